/**
 * helpers/scheduler-rule.ts, the re-implementation of autoloop's reading of a state file that
 * the fast unit tests use, checked against autoloop's own code: `parse_machine_state` and
 * `check_skip_conditions` of `autoloop_scheduler.py` (helpers/autoloop-scheduler.ts), called
 * in one python process on many files: the state fixtures, and generated Machine State
 * tables with the characters where Python's and JavaScript's regular expressions differ.
 * The scheduler coerces some fields (numbers, booleans, the status list); the others are
 * compared as text, and so is the decision to skip and its reason.
 */
import { describe, expect, it } from '@jest/globals'
import { spawnSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import fc from 'fast-check'
import { SCHEDULER_PATH, schedulerMissing } from '../helpers/autoloop-scheduler.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'

const missing = schedulerMissing()
if (missing) console.log(missing)
const describeScheduler = missing ? describe.skip : describe

const COERCED = new Set([
  'iteration_count',
  'consecutive_errors',
  'paused',
  'completed',
  'recent_statuses'
])

interface PythonReading {
  state: Record<string, unknown>
  skip: boolean
  reason: string | null
}

/** autoloop's own functions on each text, in one python process. */
function readWithAutoloop(texts: string[]): PythonReading[] {
  const program = [
    'import importlib.util, json, sys',
    `spec = importlib.util.spec_from_file_location("autoloop_scheduler", ${JSON.stringify(SCHEDULER_PATH)})`,
    'mod = importlib.util.module_from_spec(spec)',
    'spec.loader.exec_module(mod)',
    'out = []',
    'for text in json.load(sys.stdin):',
    '    state = mod.parse_machine_state(text)',
    '    skip, reason = mod.check_skip_conditions(state)',
    '    out.append({"state": state, "skip": skip, "reason": reason})',
    'json.dump(out, sys.stdout)'
  ].join('\n')
  const run = spawnSync('python3', ['-c', program], {
    input: JSON.stringify(texts),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024
  })
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`)
  return JSON.parse(run.stdout) as PythonReading[]
}

/** Where the two readings differ (empty when they agree). */
function differences(text: string, python: PythonReading): string[] {
  const ours = readLikeScheduler(text)
  const found: string[] = []
  if (ours.skipped !== python.skip)
    found.push(`skip: ours ${ours.skipped}, autoloop ${python.skip}`)
  else if (ours.skipped && ours.why !== python.reason)
    found.push(`reason: ours ${ours.why}, autoloop ${python.reason}`)
  const keys = new Set([...Object.keys(ours.fields), ...Object.keys(python.state)])
  for (const key of keys) {
    if (COERCED.has(key)) continue
    const theirs = key in python.state ? python.state[key] : undefined
    const mine = key in ours.fields ? ours.fields[key] : undefined
    if (theirs !== mine)
      found.push(
        `${JSON.stringify(key)}: ours ${JSON.stringify(mine)}, autoloop ${JSON.stringify(theirs)}`
      )
  }
  return found
}

const FIELDS = [
  'Last Run',
  'Iteration Count',
  'Best Metric',
  'Paused',
  'Pause Reason',
  'Completed',
  'Recent Statuses',
  'Branch'
]
/** Characters where the two regex dialects and `strip()` can part ways, and plain ones. */
const CHARS = [
  'a',
  'b',
  ' ',
  '\t',
  '|',
  '\r',
  '\u00a0',
  '\u2028',
  '\u0085',
  '\u001c',
  '\u3000',
  '—',
  '-',
  ',',
  'true',
  'rejected'
]
const cell = fc.array(fc.constantFrom(...CHARS), { maxLength: 8 }).map((parts) => parts.join(''))
const row = fc
  .tuple(fc.constantFrom(...FIELDS), cell, cell, fc.constantFrom(' ', '', '  '))
  .map(
    ([key, before, value, pad]) =>
      `|${pad}${key}${before.replace(/\|/g, '')} |${pad}${value}${pad}|`
  )
const stateFile = fc
  .tuple(
    fc.array(row, { minLength: 1, maxLength: 8 }),
    fc.constantFrom('', '\n## 🚦 CI Gate\n\n| Paused | true |\n')
  )
  .map(
    ([rows, after]) =>
      `# Autoloop: x\n\n## ⚙️ Machine State\n\n| Field | Value |\n|-------|-------|\n${rows.join('\n')}\n${after}`
  )

describeScheduler("scheduler-rule.ts against autoloop's own reading", () => {
  it('agrees on the state file fixtures', () => {
    const dir = resolve(import.meta.dirname, '../../__fixtures__/state')
    const texts = readdirSync(dir)
      .filter((f) => f.endsWith('.md'))
      .map((f) => readFileSync(join(dir, f), 'utf8'))
    const readings = readWithAutoloop(texts)
    expect(texts.map((text, i) => differences(text, readings[i]!))).toEqual(texts.map(() => []))
  })

  it('agrees on generated Machine State tables', () => {
    const texts = fc.sample(stateFile, { numRuns: 1000, seed: 19 })
    const readings = readWithAutoloop(texts)
    const disagreements = texts
      .map((text, i) => ({ text, found: differences(text, readings[i]!) }))
      .filter((d) => d.found.length > 0)
    expect(disagreements.slice(0, 3)).toEqual([])
  })
})
