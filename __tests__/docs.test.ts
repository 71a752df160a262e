/**
 * action.yml, the input parser, the outputs and the README name the same inputs and outputs,
 * and action.yml's defaults mean what the parser's own defaults mean.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parse } from 'yaml'
import { INPUT_NAMES, parseInputs } from '../src/inputs.js'
import { OUTPUT_NAMES } from '../src/outputs.js'

const ROOT = resolve(import.meta.dirname, '..')
const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { description: string; default?: string }>
  outputs: Record<string, { description: string }>
  runs: { using: string; main: string }
}
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')

function readmeTableNames(heading: string): string[] {
  const section = readme.split(`## ${heading}\n`)[1]?.split(/\n## /)[0] ?? ''
  return [...section.matchAll(/^\| (`[^|]+) \|/gm)].flatMap((m) =>
    [...(m[1] ?? '').matchAll(/`([a-z-]+)`/g)].map((n) => n[1] ?? '')
  )
}

describe('documentation and interface agree', () => {
  it('action.yml declares exactly the inputs the parser reads, each described', () => {
    expect(Object.keys(action.inputs).sort()).toEqual([...INPUT_NAMES].sort())
    for (const input of Object.values(action.inputs))
      expect(input.description.length).toBeGreaterThan(10)
  })

  it("action.yml's defaults give the same configuration as the parser's own", () => {
    // The runner fills in action.yml's defaults; the CLI and tests rely on the parser's.
    const required: Record<string, string> = { 'github-token': 'token', program: 'perf' }
    const withActionDefaults = parseInputs((name) => {
      if (required[name]) return required[name]
      return action.inputs[name]?.default ?? ''
    })
    const withParserDefaults = parseInputs((name) => required[name] ?? '')
    expect(withActionDefaults).toEqual(withParserDefaults)
  })

  it('action.yml declares exactly the outputs the action sets, and runs the bundle', () => {
    expect(Object.keys(action.outputs).sort()).toEqual([...OUTPUT_NAMES].sort())
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' })
  })

  it('the README documents every input and output', () => {
    expect(readmeTableNames('Inputs').sort()).toEqual([...INPUT_NAMES].sort())
    expect(readmeTableNames('Outputs').sort()).toEqual([...OUTPUT_NAMES].sort())
  })
})
