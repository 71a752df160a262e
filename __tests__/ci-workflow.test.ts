/**
 * The action's own CI (`.github/workflows/ci.yml`): every action pinned by a full commit SHA
 * with its release in a comment, and the `uses: ./` steps pass only inputs action.yml declares.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parse } from 'yaml'

const ROOT = resolve(import.meta.dirname, '..')
const text = readFileSync(resolve(ROOT, '.github/workflows/ci.yml'), 'utf8')

interface Step {
  uses?: string
  with?: Record<string, unknown>
}
const workflow = parse(text) as { jobs: Record<string, { steps?: Step[] }> }
const steps = Object.values(workflow.jobs).flatMap((job) => job.steps ?? [])

describe('ci.yml', () => {
  it('pins every action by a full commit SHA, naming the release', () => {
    const lines = text.split('\n').filter((line) => /^\s*(-\s+)?uses:/.test(line))
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) {
      if (/uses:\s+\.\/\s*$/.test(line)) continue
      expect(line).toMatch(/uses:\s+[\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/)
    }
  })

  it('runs the action itself with inputs action.yml declares', () => {
    const declared = Object.keys(
      (parse(readFileSync(resolve(ROOT, 'action.yml'), 'utf8')) as { inputs: object }).inputs
    )
    const own = steps.filter((step) => step.uses === './')
    expect(own.length).toBeGreaterThanOrEqual(2)
    for (const step of own)
      expect(declared).toEqual(expect.arrayContaining(Object.keys(step.with ?? {})))
  })
})
