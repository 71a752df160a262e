/**
 * The plain example workflows (examples/*.yml) parse as YAML and pass the action only inputs
 * that action.yml declares.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { declaredInputs, inputNameProblems, readYaml } from './workflow-rules.js'

const ROOT = resolve(import.meta.dirname, '../..')
const EXAMPLES = join(ROOT, 'examples')
const declared = declaredInputs(readFileSync(join(ROOT, 'action.yml'), 'utf8'))
const files = readdirSync(EXAMPLES).filter((name) => name.endsWith('.yml'))

describe('plain example workflows', () => {
  it('are there to check', () => {
    expect(files.length).toBeGreaterThan(0)
  })

  it.each(files)('%s parses and uses only declared inputs', (file) => {
    const workflow = readYaml(readFileSync(join(EXAMPLES, file), 'utf8'))
    expect(inputNameProblems(workflow, declared)).toEqual([])
  })

  it('a misspelt input is found', () => {
    const text = readFileSync(join(EXAMPLES, 'autoloop-reset.yml'), 'utf8')
    const broken = readYaml(text.replace('reason: ', 'reasons: '))
    expect(inputNameProblems(broken, declared)).toEqual([
      expect.stringMatching(/`reasons` is not an input of the action/)
    ])
  })

  it('a workflow with no step of the action is found, not passed unchecked', () => {
    expect(inputNameProblems({ jobs: { build: { steps: [{ run: 'make' }] } } }, declared)).toEqual([
      expect.stringContaining('no step uses autoloop/autoloop-ci-gate')
    ])
  })
})
