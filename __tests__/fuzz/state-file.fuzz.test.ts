/**
 * Fuzzing the state-file writer with random edits of a real-looking file (docs/state.md: "The state
 * file"): rows reordered, duplicated, dropped, padded or split by stray pipes, unknown rows,
 * unicode and invisible characters, a BOM, CRLF, a giant human section. After the gate's two
 * writes projected onto it (the attempt with the Branch and PR rows, then a pause) the file is
 * either refused with a StateFileError, or:
 * - every byte outside the owned rows and the CI Gate section is as it was;
 * - the scheduler rule reads the pause as meant and every other field as before;
 * - the line endings and the BOM are kept, and the section points at the ledger's revision.
 */
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { beginAttempt, emptyLedger, withStateWrite, type Ledger } from '../../src/core/ledger.js'
import { pauseInLedger } from '../../src/core/rules/pause.js'
import { readLedgerPointer } from '../../src/statefile/ci-gate-section.js'
import { StateFileError } from '../../src/core/state-errors.js'
import { readMachineState } from '../../src/statefile/machine-state.js'
import { projectStateFile } from '../../src/statefile/projection.js'
import { signatureOf } from '../../src/core/signature/signature.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'
import { GATE_OWNED_KEYS, withoutOwnedParts } from '../statefile/helpers.js'

const FIXTURE = readFileSync(
  resolve(import.meta.dirname, '../../__fixtures__/state/coverage.md'),
  'utf8'
)
/** Files tried per run; a failure prints fast-check's seed and path, to replay it. */
const FUZZ_RUNS = 400

const UNICODE = ['é', '🚀', '\u200b', '\u202e', 'ß', '中文', '\u00a0', '—', '\ufeff', '̀', '\u2028']

type Mutation =
  | { kind: 'swap-rows'; a: number; b: number }
  | { kind: 'duplicate-row'; row: number; last: boolean }
  | { kind: 'drop-row'; row: number }
  | { kind: 'pad-row'; row: number; spaces: number }
  | { kind: 'stray-pipe'; line: number; at: number }
  | { kind: 'insert'; line: number; at: number; text: string }
  | { kind: 'unknown-row'; label: string; value: string }
  | { kind: 'giant-section'; kib: number }
  | { kind: 'bom' }
  | { kind: 'crlf' }

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('swap-rows' as const), a: fc.nat(20), b: fc.nat(20) }),
  fc.record({ kind: fc.constant('duplicate-row' as const), row: fc.nat(20), last: fc.boolean() }),
  fc.record({ kind: fc.constant('drop-row' as const), row: fc.nat(20) }),
  fc.record({
    kind: fc.constant('pad-row' as const),
    row: fc.nat(20),
    spaces: fc.integer({ min: 1, max: 40 })
  }),
  fc.record({ kind: fc.constant('stray-pipe' as const), line: fc.nat(200), at: fc.nat(120) }),
  fc.record({
    kind: fc.constant('insert' as const),
    line: fc.nat(200),
    at: fc.nat(120),
    text: fc.oneof(fc.constantFrom(...UNICODE), fc.string({ unit: 'grapheme', maxLength: 6 }))
  }),
  fc.record({
    kind: fc.constant('unknown-row' as const),
    label: fc.constantFrom('Owner', 'Notes 🚀', 'Steering Issue', 'Last Run Extra'),
    value: fc.constantFrom('x', '—', 'a, b', '#12', 'über')
  }),
  fc.record({ kind: fc.constant('giant-section' as const), kib: fc.integer({ min: 1, max: 64 }) }),
  fc.constant({ kind: 'bom' as const }),
  fc.constant({ kind: 'crlf' as const })
)

/** Indices of the Machine State data rows (lines) in `lines`. */
function dataRows(lines: string[]): number[] {
  const start = lines.findIndex((l) => l.startsWith('## ⚙️ Machine State'))
  const rows: number[] = []
  for (let i = start + 1; i < lines.length && !(lines[i] ?? '').startsWith('## '); i++) {
    const line = lines[i] ?? ''
    if (line.startsWith('|') && !/^\|\s*(Field|-+)\s*\|/.test(line)) rows.push(i)
  }
  return rows
}

function mutate(text: string, mutations: readonly Mutation[]): string {
  const lines = text.split('\n')
  let crlf = false
  let bom = false
  for (const m of mutations) {
    const rows = dataRows(lines)
    const rowAt = (n: number) => rows[n % Math.max(1, rows.length)]
    switch (m.kind) {
      case 'swap-rows': {
        const a = rowAt(m.a)
        const b = rowAt(m.b)
        if (a !== undefined && b !== undefined)
          [lines[a], lines[b]] = [lines[b] ?? '', lines[a] ?? '']
        break
      }
      case 'duplicate-row': {
        const r = rowAt(m.row)
        if (r !== undefined)
          lines.splice(m.last ? (rows.at(-1) ?? r) + 1 : r + 1, 0, lines[r] ?? '')
        break
      }
      case 'drop-row': {
        const r = rowAt(m.row)
        if (r !== undefined) lines.splice(r, 1)
        break
      }
      case 'pad-row': {
        const r = rowAt(m.row)
        if (r !== undefined) lines[r] = (lines[r] ?? '').replace('|', `|${' '.repeat(m.spaces)}`)
        break
      }
      case 'stray-pipe':
      case 'insert': {
        const i = m.line % lines.length
        const line = lines[i] ?? ''
        const at = Math.min(m.at, line.length)
        lines[i] = line.slice(0, at) + (m.kind === 'stray-pipe' ? '|' : m.text) + line.slice(at)
        break
      }
      case 'unknown-row': {
        const last = rows.at(-1)
        if (last !== undefined) lines.splice(last + 1, 0, `| ${m.label} | ${m.value} |`)
        break
      }
      case 'giant-section': {
        const lessons = lines.findIndex((l) => l.startsWith('## 📚'))
        const para = `- ${'lesson | with pipes and 🚀 unicode '.repeat(28)}`
        const block = Array.from({ length: m.kib }, () => para.slice(0, 1000))
        lines.splice(lessons + 2, 0, ...block)
        break
      }
      case 'bom':
        bom = true
        break
      case 'crlf':
        crlf = true
        break
    }
  }
  const joined = lines.join(crlf ? '\r\n' : '\n')
  return (bom ? '\ufeff' : '') + joined
}

const NOW = Date.UTC(2026, 2, 1, 12)
const SIGNATURE = signatureOf(['tsc:TS2339:fromArrays:src/x.ts'])
const REASON = `ci-fix-exhausted: ${SIGNATURE.short}`
/** Large enough that no history is collapsed: compaction is tested with the projection. */
const OPTIONS = { program: 'coverage', maxBytes: 1 << 20 }

/** A ledger write, as updateProgram makes it: the next revision. */
const written = (ledger: Ledger): Ledger => ({ ...ledger, revision: ledger.revision + 1 })

/** The gate's writes projected onto the file: the attempt (Branch and PR rows), then the pause. */
function gateWrites(text: string): { text: string; ledger: Ledger } {
  const began = beginAttempt(emptyLedger('coverage', NOW), {
    sha: 'a'.repeat(40),
    runId: 1,
    runAttempt: 1,
    now: NOW,
    maxFixAttempts: 0,
    timeoutMinutes: 60
  })
  let ledger = written(
    withStateWrite(began.ledger, { machineState: { branch: 'autoloop/coverage', pr: 214 } }, NOW)
  )
  const attempted = projectStateFile(text, ledger, OPTIONS)
  ledger = written(
    pauseInLedger(ledger, readMachineState(attempted), {
      index: 0,
      verdict: { state: 'red', now: NOW, signature: SIGNATURE },
      kind: 'exhausted',
      reason: REASON,
      remember: SIGNATURE,
      now: NOW
    })
  )
  return { text: projectStateFile(attempted, ledger, OPTIONS), ledger }
}

describe('state file writer under random edits', () => {
  const tally = { accepted: 0, refused: 0 }

  it(`keeps every unowned byte and what the scheduler reads (${FUZZ_RUNS} files)`, () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 8 }), (mutations) => {
        const input = mutate(FIXTURE, mutations)
        let output: string
        let ledger: Ledger
        try {
          ;({ text: output, ledger } = gateWrites(input))
        } catch (error) {
          // Refusing a malformed file is allowed; any other failure is a bug.
          if (!(error instanceof StateFileError)) throw error
          tally.refused++
          return
        }
        tally.accepted++
        expect(withoutOwnedParts(output)).toBe(withoutOwnedParts(input))
        expect(output.startsWith('\ufeff')).toBe(input.startsWith('\ufeff'))
        expect(output.includes('\r\n')).toBe(input.includes('\r\n'))
        const before = readLikeScheduler(input)
        const after = readLikeScheduler(output)
        expect(after.fields.paused).toBe('true')
        expect(after.fields.pause_reason).toBe(REASON)
        expect(after.fields.recent_statuses?.split(',').at(-1)?.trim()).toBe('ci-fix-exhausted')
        expect(after.skipped).toBe(true)
        for (const [key, value] of Object.entries(before.fields))
          if (!(GATE_OWNED_KEYS as readonly string[]).includes(key))
            expect({ key, value: after.fields[key] }).toEqual({ key, value })
        expect(readLedgerPointer(output)).toEqual({
          path: 'ci-gate/coverage.json',
          revision: ledger.revision
        })
        // Projecting again changes nothing.
        expect(projectStateFile(output, ledger, OPTIONS)).toBe(output)
      }),
      { numRuns: FUZZ_RUNS }
    )
    // Both branches were exercised.
    expect(tally.accepted).toBeGreaterThan(FUZZ_RUNS / 4)
  })
})
