/**
 * action.yml, the input parser, the outputs and the README name the same inputs and outputs,
 * action.yml's defaults mean what the parser's own defaults mean, and the README's permission
 * tables grant what the doctor requires of each command.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parse } from 'yaml'
import { INPUT_NAMES, parseInputs } from '../src/inputs.js'
import { OUTPUT_NAMES } from '../src/outputs.js'
import { ACCESS_RANK, COMMAND_PERMISSIONS } from '../src/doctor/permissions.js'

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

  const GH_AW_TABLE = '### Permissions in gh-aw'

  /** `scope: access` pairs in the row of a table under `heading` whose first cells are `cells`. */
  function rowScopes(heading: string, ...cells: string[]): Record<string, string> {
    const start = `| ${cells.map((c) => `\`${c}\``).join(' | ')} `
    const section = readme.split(`\n${heading}\n`)[1]?.split(/\n#{2,3} /)[0] ?? ''
    const row = section.split('\n').find((line) => line.replace(/ +\|/g, ' |').startsWith(start))
    if (!row) throw new Error(`no README table row ${start}`)
    return Object.fromEntries(
      [...row.matchAll(/`([a-z-]+): (read|write)`/g)].map((m) => [m[1] ?? '', m[2] ?? ''])
    )
  }

  it("the gh-aw permission table is the doctor's, job by job", () => {
    expect(rowScopes(GH_AW_TABLE, 'ci_gate', 'gate')).toEqual(COMMAND_PERMISSIONS.gate)
    expect(rowScopes(GH_AW_TABLE, 'ci_reconcile', 'reconcile')).toEqual(
      COMMAND_PERMISSIONS.reconcile
    )
  })

  it.each(Object.keys(COMMAND_PERMISSIONS))(
    'the Security table grants `%s` at least what the doctor requires',
    (command) => {
      const granted = rowScopes('## Security', command)
      const required = COMMAND_PERMISSIONS[command as keyof typeof COMMAND_PERMISSIONS]
      const rank = (access: string | undefined) => ACCESS_RANK[access ?? 'none'] ?? 0
      const short = Object.entries(required)
        .filter(([scope, access]) => rank(granted[scope]) < rank(access))
        .map(([scope, access]) => `${scope}: ${access}`)
      expect(short).toEqual([])
    }
  )
})
