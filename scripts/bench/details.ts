/**
 * Failure details in the fix brief, measured: how many of the facts a fixer needs (the failure's
 * message, its expected and received values, its location in the project) reach the brief the
 * next run reads.
 *
 * For each failure class of the corpus (`__fixtures__/corpus`, real output of real tools), its
 * GitHub Actions job log (`job-log.log`) is served by the fake API as the log of the one failing
 * check of a commit; the action gates that commit in-process (the same `run(deps)` the bundle
 * runs) and writes `<program>.md`; the benchmark reads the `## 🚦 CI Gate` section (the fix
 * brief) and looks for each fact.
 *
 * The facts are `scripts/bench/details-facts.json`: annotations of each class's job log, read by
 * hand with these rules (docs/failure-details.md: "Failure details"):
 * - message: the line that says what failed (the assertion or matcher, the error's type and
 *   text, a compiler's or linter's diagnostic);
 * - expected / received: each value as printed, with its label when the tool gave one
 *   (`Expected: 6`, `left: 750`, `want 949`, `got: 449`);
 * - location: the failing file and line inside the project as printed, the checkout root
 *   (`/home/runner/work/app/app/`) removed; for a thrown error, the first frame in the project.
 * A fact is found when it is a substring of the brief, blanks collapsed on both sides. Every
 * fact must be a substring of one line of its log (checked here), so no fact is invented.
 *
 *   npx tsx scripts/bench/details.ts [--class jest/assertion] [--show]
 */
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { CheckRunPlan } from '../../__fixtures__/fake-github/index.js'
import { runOnFreshFake } from '../../__fixtures__/run-in-process.js'

const CORPUS = resolve(import.meta.dirname, '../../__fixtures__/corpus')
const BRANCH = 'autoloop/bench'
const HEAD = 'b'.repeat(40)
const BASE = 'a'.repeat(40)
const KINDS = ['message', 'expected', 'received', 'location'] as const
type Kind = (typeof KINDS)[number]

interface Manifest {
  classes: { id: string; tool: string; files: string[] }[]
}
type Facts = Partial<Record<Kind, string[]>>

const collapse = (text: string): string => text.replace(/\s+/g, ' ')
/** A job log's lines as the tool printed them: the runner's timestamp and colour codes removed. */
const logLines = (log: string): string[] =>
  log.split('\n').map((line) =>
    collapse(
      // eslint-disable-next-line no-control-regex -- colour codes are removed
      line.replace(/^\uFEFF?\d{4}-\d\d-\d\dT[\d:.]+Z /, '').replace(/\u001b\[[\d;]*[mK]/g, '')
    )
  )

function completed(conclusion: 'success' | 'failure'): CheckRunPlan['timeline'] {
  return [
    { at: 0, status: 'queued' },
    { at: 30, status: 'in_progress' },
    { at: 120, status: 'completed', conclusion }
  ]
}

/** The fix brief the gate writes for a commit whose one failing check printed `log`. */
export async function briefFor(log: string): Promise<string> {
  const scenario = {
    branches: { main: BASE, [BRANCH]: HEAD },
    checkRuns: [
      { sha: BASE, name: 'test', timeline: completed('success') },
      { sha: HEAD, name: 'test', timeline: completed('failure'), log }
    ]
  }
  const inputs = (dir: string) => ({
    inputs: {
      program: 'bench',
      push: 'false',
      'create-pr': 'false',
      'rerun-failed': '0',
      'state-dir': dir
    }
  })
  return runOnFreshFake(scenario, inputs, (_fake, run, dir) => {
    if (run.outputs.status !== 'failure')
      throw new Error(`expected a red gate, got ${run.outputs.status}: ${run.errors.join('; ')}`)
    const state = readFileSync(join(dir, 'bench.md'), 'utf8')
    const at = state.indexOf('## 🚦 CI Gate')
    if (at === -1) return ''
    const end = state.indexOf('\n## ', at + 1)
    return state.slice(at, end === -1 ? undefined : end).replace(/\n-{3,}\n*$/, '\n')
  })
}

interface Row {
  tool: string
  classes: number
  found: Record<Kind, number>
  total: Record<Kind, number>
  missing: string[]
}

const zero = (): Record<Kind, number> => ({ message: 0, expected: 0, received: 0, location: 0 })

export async function runDetailsBench(
  options: { only?: string; show?: (id: string, brief: string) => void } = {}
): Promise<string> {
  const manifest = JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as Manifest
  const facts = (
    JSON.parse(readFileSync(join(import.meta.dirname, 'details-facts.json'), 'utf8')) as {
      classes: Record<string, Facts>
    }
  ).classes
  const rows = new Map<string, Row>()
  const unannotated: string[] = []
  for (const entry of manifest.classes) {
    if (options.only !== undefined && entry.id !== options.only) continue
    const classFacts = facts[entry.id]
    const file = entry.files.find((f) => f.endsWith('job-log.log'))
    // A class added to the corpus since the facts were annotated is listed, not counted.
    if (classFacts === undefined || file === undefined) {
      unannotated.push(entry.id)
      continue
    }
    const log = readFileSync(join(CORPUS, file), 'utf8')
    const lines = logLines(log)
    const raw = await briefFor(log)
    options.show?.(entry.id, raw)
    const brief = collapse(raw)
    const row = rows.get(entry.tool) ?? {
      tool: entry.tool,
      classes: 0,
      found: zero(),
      total: zero(),
      missing: []
    }
    row.classes += 1
    for (const kind of KINDS) {
      for (const fact of classFacts[kind] ?? []) {
        const wanted = collapse(fact)
        if (!lines.some((line) => line.includes(wanted)))
          throw new Error(`${entry.id}: the ${kind} fact ${JSON.stringify(fact)} is not in its log`)
        row.total[kind] += 1
        if (brief.includes(wanted)) row.found[kind] += 1
        else row.missing.push(`${entry.id} ${kind}: ${fact}`)
      }
    }
    rows.set(entry.tool, row)
  }
  const sum = (row: Row, of: 'found' | 'total'): number =>
    KINDS.reduce((n, kind) => n + row[of][kind], 0)
  const pct = (found: number, total: number): string =>
    total === 0 ? '—' : `${Math.round((100 * found) / total)}%`
  const cell = (row: Row, kind: Kind): string =>
    row.total[kind] === 0 ? '—' : `${row.found[kind]}/${row.total[kind]}`
  const all: Row = { tool: '**all**', classes: 0, found: zero(), total: zero(), missing: [] }
  for (const row of rows.values()) {
    all.classes += row.classes
    for (const kind of KINDS) {
      all.found[kind] += row.found[kind]
      all.total[kind] += row.total[kind]
    }
  }
  const line = (row: Row): string =>
    `| ${row.tool} | ${row.classes} | ${KINDS.map((kind) => cell(row, kind)).join(' | ')} | ${sum(row, 'found')}/${sum(row, 'total')} | ${pct(sum(row, 'found'), sum(row, 'total'))} |`
  const missing = [...rows.values()].flatMap((row) => row.missing)
  return [
    '| tool | classes | message | expected | received | location | facts in the brief | share |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...[...rows.values()].map(line),
    line(all),
    '',
    missing.length === 0
      ? 'Every fact reached the brief.'
      : `Facts missing from the brief (${missing.length}):\n\n${missing.map((m) => `- ${m}`).join('\n')}`,
    ...(unannotated.length > 0
      ? [
          '',
          `Classes with no facts in details-facts.json or no job log, not counted (${unannotated.length}): ${unannotated.join(', ')}`
        ]
      : [])
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { class: { type: 'string' }, show: { type: 'boolean' } }
  })
  console.log(
    await runDetailsBench({
      ...(values.class ? { only: values.class } : {}),
      ...(values.show
        ? { show: (id: string, brief: string) => console.log(`### ${id}\n\n${brief}\n`) }
        : {})
    })
  )
}
