/**
 * action.yml, the input parser, the outputs and docs/inputs-outputs.md name the same inputs and
 * outputs, action.yml's defaults mean what the parser's own defaults mean, the permission tables
 * (docs/gh-aw.md, the README's Security) grant what the doctor requires of each command, and every
 * relative link in the README and docs/ reaches a file and, with `#`, a heading in it.
 */
import { describe, expect, it } from '@jest/globals'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parse } from 'yaml'
import { INPUT_NAMES, parseInputs } from '../src/core/inputs.js'
import { OUTPUT_NAMES } from '../src/app/outputs.js'
import { ACCESS_RANK, COMMAND_PERMISSIONS } from '../src/core/doctor/permissions.js'

const ROOT = resolve(import.meta.dirname, '..')
const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { description: string; default?: string }>
  outputs: Record<string, { description: string }>
  runs: { using: string; main: string }
}
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')
const readme = read('README.md')
const inputsOutputs = read('docs/inputs-outputs.md')
const ghAw = read('docs/gh-aw.md')

function tableNames(page: string, heading: string): string[] {
  const section = page.split(`\n## ${heading}\n`)[1]?.split(/\n## /)[0] ?? ''
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

  it('docs/inputs-outputs.md documents every input and output', () => {
    expect(tableNames(inputsOutputs, 'Inputs').sort()).toEqual([...INPUT_NAMES].sort())
    expect(tableNames(inputsOutputs, 'Outputs').sort()).toEqual([...OUTPUT_NAMES].sort())
  })

  const GH_AW_TABLE = '## Permissions in gh-aw'

  /** `scope: access` pairs in the row of a table under `heading` whose first cells are `cells`. */
  function rowScopes(page: string, heading: string, ...cells: string[]): Record<string, string> {
    const start = `| ${cells.map((c) => `\`${c}\``).join(' | ')} `
    const section = page.split(`\n${heading}\n`)[1]?.split(/\n#{2,3} /)[0] ?? ''
    const row = section.split('\n').find((line) => line.replace(/ +\|/g, ' |').startsWith(start))
    if (!row) throw new Error(`no table row ${start} under ${heading}`)
    return Object.fromEntries(
      [...row.matchAll(/`([a-z-]+): (read|write)`/g)].map((m) => [m[1] ?? '', m[2] ?? ''])
    )
  }

  it("the gh-aw permission table is the doctor's, job by job", () => {
    expect(rowScopes(ghAw, GH_AW_TABLE, 'ci_gate', 'gate')).toEqual(COMMAND_PERMISSIONS.gate)
    expect(rowScopes(ghAw, GH_AW_TABLE, 'ci_reconcile', 'reconcile')).toEqual(
      COMMAND_PERMISSIONS.reconcile
    )
  })

  it.each(Object.keys(COMMAND_PERMISSIONS))(
    'the Security table grants `%s` at least what the doctor requires',
    (command) => {
      const granted = rowScopes(readme, '## Security', command)
      const required = COMMAND_PERMISSIONS[command as keyof typeof COMMAND_PERMISSIONS]
      const rank = (access: string | undefined) => ACCESS_RANK[access ?? 'none'] ?? 0
      const short = Object.entries(required)
        .filter(([scope, access]) => rank(granted[scope]) < rank(access))
        .map(([scope, access]) => `${scope}: ${access}`)
      expect(short).toEqual([])
    }
  )

  /** GitHub's heading anchors: lower case, punctuation dropped, spaces to `-`, repeats `-1`, `-2`. */
  function anchors(markdown: string): Set<string> {
    const seen = new Map<string, number>()
    const out = new Set<string>()
    let fenced = false
    for (const line of markdown.split('\n')) {
      if (line.startsWith('```')) fenced = !fenced
      const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line)
      if (!heading) continue
      const slug = (heading[1] ?? '')
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}_\- ]/gu, '')
        .replace(/ /g, '-')
      const n = seen.get(slug) ?? 0
      seen.set(slug, n + 1)
      out.add(n === 0 ? slug : `${slug}-${n}`)
    }
    return out
  }

  const pages = [
    'README.md',
    'SECURITY.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`)
  ]

  it.each(pages)('every relative link in %s reaches its file and heading', (page) => {
    const broken: string[] = []
    for (const [, target = ''] of read(page).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue
      const [path = '', anchor] = target.split('#')
      const file = path ? join(dirname(page), path) : page
      if (!existsSync(join(ROOT, file))) broken.push(target)
      else if (anchor && file.endsWith('.md') && !anchors(read(file)).has(anchor))
        broken.push(target)
    }
    expect(broken).toEqual([])
  })
})
