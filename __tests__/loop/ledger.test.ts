import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { manualClock } from '../../__fixtures__/clock.js'
import {
  LEDGER_LIMITS,
  beginAttempt,
  clearLedger,
  compactLedger,
  completeAttempt,
  finishIteration,
  inFlightAttempts,
  latestAttempt,
  ledgerBytes,
  readLedger,
  serializeLedger,
  writeLedger,
  type Ledger,
  type SignatureLike
} from '../../src/loop/ledger.js'
import { StateFileError } from '../../src/state/errors.js'
import { createStateFile, splitSections, updateMachineState } from '../../src/state/markdown.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'

const SHA_A = 'a'.repeat(40)
const SHA_B = 'b'.repeat(40)
const SHA_C = 'c'.repeat(40)

function signature(name: string, keys = [`jest:tests/${name}.test.ts>works`]): SignatureLike {
  return {
    hash: `${name.padEnd(16, '0')}${'f'.repeat(48)}`,
    short: keys.join('; ').slice(0, 160),
    keys,
    full: keys.join('; ')
  }
}

const iso = (ms: number): string => new Date(ms).toISOString()

describe('beginAttempt', () => {
  it('starts an iteration at attempt 0, in flight, with the run id', () => {
    const clock = manualClock()
    const { ledger, attempt, reused } = beginAttempt(null, {
      sha: SHA_A.toUpperCase(),
      runId: 123,
      runAttempt: 1,
      now: clock.now()
    })
    expect(reused).toBe(false)
    expect(attempt).toEqual({
      index: 0,
      sha: SHA_A,
      runId: 123,
      runAttempt: 1,
      startedAt: iso(clock.now()),
      endedAt: null,
      state: 'in-flight',
      signature: null
    })
    expect(ledger.iteration).toEqual({
      id: `${iso(clock.now())}/${SHA_A.slice(0, 12)}`,
      startedAt: iso(clock.now()),
      finishedAt: null,
      outcome: null
    })
    expect(ledger.version).toBe(1)
    expect(() => beginAttempt(null, { sha: 'HEAD', runId: 1, now: clock.now() })).toThrow(
      /not a commit SHA/
    )
    expect(() =>
      writeLedger(createStateFile('p'), {
        ...ledger,
        iteration: { ...ledger.iteration, startedAt: 'soon' }
      })
    ).toThrow()
  })

  it('re-uses the latest attempt when its SHA is gated again: never counted twice', () => {
    const clock = manualClock()
    const first = beginAttempt(null, { sha: SHA_A, runId: 1, now: clock.now() })
    clock.advance(60_000)
    const again = beginAttempt(first.ledger, {
      sha: SHA_A,
      runId: 2,
      runAttempt: 2,
      now: clock.now()
    })
    expect(again.reused).toBe(true)
    expect(again.ledger.attempts).toHaveLength(1)
    expect(again.attempt).toMatchObject({
      index: 0,
      runId: 2,
      runAttempt: 2,
      state: 'in-flight',
      startedAt: iso(clock.now() - 60_000)
    })
  })

  it('counts a new SHA as the next fix attempt and marks a forgotten in-flight attempt abandoned', () => {
    const clock = manualClock()
    const first = beginAttempt(null, { sha: SHA_A, runId: 1, now: clock.now() })
    clock.advance(5 * 60_000)
    const second = beginAttempt(first.ledger, { sha: SHA_B, runId: 2, now: clock.now() })
    expect(second.attempt.index).toBe(1)
    expect(second.ledger.attempts[0]).toMatchObject({
      state: 'abandoned',
      endedAt: iso(clock.now())
    })
    expect(inFlightAttempts(second.ledger).map((a) => a.index)).toEqual([1])
    expect(second.ledger.iteration.startedAt).toBe(first.ledger.iteration.startedAt)
  })

  it('re-uses the SHA of an iteration that ended green, and starts over after any other end', () => {
    const clock = manualClock()
    const begun = beginAttempt(null, { sha: SHA_A, runId: 1, now: clock.now() })
    const green = completeAttempt(begun.ledger, 0, { state: 'green', now: clock.now() + 1000 })
    expect(green.iteration).toMatchObject({ outcome: 'green', finishedAt: iso(clock.now() + 1000) })
    const rerun = beginAttempt(green, { sha: SHA_A, runId: 2, now: clock.now() + 2000 })
    expect(rerun).toMatchObject({ reused: true, attempt: { index: 0, state: 'in-flight' } })
    expect(rerun.ledger.iteration).toMatchObject({ outcome: null, finishedAt: null })

    const next = beginAttempt(green, { sha: SHA_B, runId: 3, now: clock.now() + 3000 })
    expect(next.reused).toBe(false)
    expect(next.ledger.attempts.map((a) => [a.index, a.sha])).toEqual([[0, SHA_B]])
    expect(next.ledger.iteration.startedAt).toBe(iso(clock.now() + 3000))

    const paused = finishIteration(
      completeAttempt(begun.ledger, 0, {
        state: 'red',
        now: clock.now(),
        signature: signature('a')
      }),
      'paused',
      clock.now()
    )
    const afterPause = beginAttempt(paused, { sha: SHA_A, runId: 4, now: clock.now() + 4000 })
    expect(afterPause.reused).toBe(false)
    expect(afterPause.ledger.iteration.startedAt).toBe(iso(clock.now() + 4000))
  })
})

describe('completeAttempt', () => {
  it('records the verdict, cutting lists to the per-attempt limits', () => {
    const clock = manualClock()
    const { ledger } = beginAttempt(null, { sha: SHA_A, runId: 1, now: clock.now() })
    const keys = Array.from(
      { length: 30 },
      (_, i) => `tsc:TS2339:f${i}:src/${'x'.repeat(i * 10)}.ts`
    )
    const done = completeAttempt(ledger, 0, {
      state: 'red',
      now: clock.now() + 90_000,
      signature: signature('many', keys),
      failingChecks: Array.from({ length: 12 }, (_, i) => ({
        name: `job ${i}`,
        conclusion: 'failure',
        url: `https://example.test/runs/${i}`
      })),
      errorLines: Array.from({ length: 20 }, (_, i) => `error ${i} ${'y'.repeat(300)}`)
    })
    const attempt = latestAttempt(done)
    expect(attempt.state).toBe('red')
    expect(attempt.endedAt).toBe(iso(clock.now() + 90_000))
    expect(attempt.signature?.keyCount).toBe(30)
    expect(attempt.signature?.keys).toHaveLength(LEDGER_LIMITS.maxKeys)
    expect(attempt.signature?.keys?.[0]).toBe(keys[0])
    expect(attempt.signature?.cut).toBe(true)
    expect(attempt.signature?.hash).toBe(signature('many').hash)
    expect(attempt.failingChecks).toHaveLength(LEDGER_LIMITS.maxFailingChecks)
    expect(attempt.failingChecks?.[3]).toEqual({
      name: 'job 3',
      conclusion: 'failure',
      url: 'https://example.test/runs/3'
    })
    expect(attempt.errorLines).toHaveLength(LEDGER_LIMITS.maxErrorLines)
    expect(
      attempt.errorLines?.every((line) => line.length <= LEDGER_LIMITS.maxErrorLineChars)
    ).toBe(true)
    expect(done.iteration.finishedAt).toBeNull()
    expect(() => completeAttempt(done, 7, { state: 'red', now: clock.now() })).toThrow(
      /no attempt 7/
    )
  })
})

describe('in the state file', () => {
  function ledgerWithTwoAttempts(): Ledger {
    const clock = manualClock()
    let { ledger } = beginAttempt(null, { sha: SHA_A, runId: 10, runAttempt: 1, now: clock.now() })
    ledger = completeAttempt(ledger, 0, {
      state: 'red',
      now: clock.now() + 60_000,
      signature: signature('pipes', [
        'eslint:no-bitwise:src/a.ts>a | b',
        'jest:`x` <!-- y --> ```'
      ]),
      failingChecks: [
        { name: 'lint | test', conclusion: 'failure', url: 'https://example.test/job/1' }
      ],
      errorLines: [
        "  src/a.ts:1:3  error  Unexpected use of '|'  no-bitwise",
        '```',
        '## not a heading',
        '| a | b |'
      ]
    })
    return beginAttempt(ledger, { sha: SHA_B, runId: 11, now: clock.now() + 120_000 }).ledger
  }

  it('round-trips through the CI Gate section without changing what the scheduler reads', () => {
    const ledger = ledgerWithTwoAttempts()
    const base = updateMachineState(createStateFile('coverage'), { iterationCount: 4 })
    const text = writeLedger(base, ledger)
    expect(readLedger(text)).toEqual(ledger)
    expect(readLikeScheduler(text).fields).toEqual(readLikeScheduler(base).fields)
    const section = splitSections(text).sections.find((s) => s.name === 'CI Gate')
    expect(section?.content).not.toContain('|')
    expect(section?.content.match(/```/g)).toHaveLength(2)
    expect(section?.content).toMatch(
      /^## 🚦 CI Gate\n\n🤖 \*CI fix loop of the current iteration \(attempt 1: in-flight on bbbbbbb\)\./
    )
    expect(serializeLedger(ledger).split('\n')).toHaveLength(4)
    expect(clearLedger(text)).toBe(base)
    expect(readLedger(base)).toBeNull()
  })

  it('refuses a ledger that does not match the schema, quoting the JSON line', () => {
    const text = writeLedger(createStateFile('coverage'), ledgerWithTwoAttempts()).replace(
      '"state":"red"',
      '"state":"purple"'
    )
    expect(() => readLedger(text)).toThrow(StateFileError)
    expect(() => readLedger(text)).toThrow(
      /line \d+ "\{\\"version\\":1,.*: the CI Gate ledger is invalid at attempts\.0\.state: .*Fix: delete the whole "## 🚦 CI Gate" section/
    )
  })

  it('refuses a ledger written by a newer version', () => {
    const text = writeLedger(createStateFile('coverage'), ledgerWithTwoAttempts()).replace(
      '{"version":1,',
      '{"version":2,'
    )
    expect(() => readLedger(text)).toThrow(/version 2, written by a newer autoloop-ci-gate/)
  })
})

describe('the size bound', () => {
  /** The largest attempt the per-attempt limits allow, with multi-byte text. */
  function worstCaseLedger(attempts: number): Ledger {
    const clock = manualClock()
    let ledger: Ledger | null = null
    for (let i = 0; i < attempts; i += 1) {
      const sha = i.toString(16).padStart(40, '0')
      ledger = beginAttempt(ledger, {
        sha,
        runId: 99_999_999_999,
        runAttempt: 3,
        now: clock.now()
      }).ledger
      ledger = completeAttempt(ledger, latestAttempt(ledger).index, {
        state: 'red',
        now: clock.now() + 1,
        signature: {
          hash: `${i}`.padEnd(64, 'e'),
          short: '🚀'.repeat(160),
          keys: Array.from({ length: 40 }, (_, k) => `${k}${'ü'.repeat(300)}`)
        },
        failingChecks: Array.from({ length: 20 }, () => ({
          name: 'n'.repeat(500),
          conclusion: 'c'.repeat(100),
          url: 'u'.repeat(1000)
        })),
        errorLines: Array.from({ length: 50 }, () => '€'.repeat(1000))
      })
      clock.advance(60_000)
    }
    return ledger as Ledger
  }

  it.each([1, 3, 6, 30, 101])('stays within %s attempts worth of worst-case input', (attempts) => {
    const ledger = worstCaseLedger(attempts)
    expect(ledgerBytes(ledger)).toBeLessThanOrEqual(LEDGER_LIMITS.maxBytes)
    expect(latestAttempt(ledger).index).toBe(attempts - 1)
    expect(latestAttempt(ledger).signature?.hash).toBe(`${attempts - 1}`.padEnd(64, 'e'))
    const text = writeLedger(createStateFile('coverage'), ledger)
    expect(readLedger(text)).toEqual(compactLedger(ledger))
    expect(readLikeScheduler(text).fields).toEqual(
      readLikeScheduler(createStateFile('coverage')).fields
    )
  })

  it('keeps full details for a realistic six-attempt iteration', () => {
    const clock = manualClock()
    let ledger: Ledger | null = null
    for (let i = 0; i < 6; i += 1) {
      ledger = beginAttempt(ledger, {
        sha: `${i}`.repeat(40),
        runId: 13_512_345_678 + i,
        runAttempt: 1,
        now: clock.now()
      }).ledger
      ledger = completeAttempt(ledger, i, {
        state: 'red',
        now: clock.now() + 4 * 60_000,
        signature: signature(`s${i}`, [
          `tsc:TS2339:fromArrays:tests/stats/eval_query${i}.test.ts`,
          `jest:tests/a${i}.test.ts>sum adds`
        ]),
        failingChecks: [
          {
            name: 'build / typecheck (20.x)',
            conclusion: 'failure',
            url: `https://github.com/acme/widgets/actions/runs/1351234567${i}/job/3790000000${i}`
          }
        ],
        errorLines: [
          `tests/stats/eval_query${i}.test.ts(12,5): error TS2339: Property 'fromArrays' does not exist on type 'Stats'.`
        ]
      })
      clock.advance(10 * 60_000)
    }
    const final = ledger as Ledger
    const detailed = final.attempts.filter((a) => a.errorLines !== undefined).map((a) => a.index)
    expect(detailed).toEqual([3, 4, 5])
    expect(final.attempts).toHaveLength(6)
    expect(ledgerBytes(final)).toBeLessThan(LEDGER_LIMITS.maxBytes / 2)
  })

  it('any sequence of operations keeps the invariants', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('begin' as const),
        sha: fc.constantFrom(SHA_A, SHA_B, SHA_C, 'd'.repeat(40), 'e'.repeat(64))
      }),
      fc.record({
        kind: fc.constant('complete' as const),
        state: fc.constantFrom(
          'green' as const,
          'red' as const,
          'no-checks' as const,
          'ci-timeout' as const,
          'error' as const
        ),
        sig: fc.constantFrom('a', 'b', 'c'),
        lines: fc.nat(12)
      }),
      fc.record({
        kind: fc.constant('finish' as const),
        outcome: fc.constantFrom('paused' as const, 'recorded' as const)
      })
    )
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 60 }), (ops) => {
        const clock = manualClock()
        let ledger: Ledger | null = null
        for (const step of ops) {
          clock.advance(1000)
          if (step.kind === 'begin')
            ledger = beginAttempt(ledger, { sha: step.sha, runId: 1, now: clock.now() }).ledger
          else if (ledger && step.kind === 'complete') {
            ledger = completeAttempt(ledger, latestAttempt(ledger).index, {
              state: step.state,
              now: clock.now(),
              signature: signature(step.sig),
              errorLines: Array.from({ length: step.lines }, () => 'x'.repeat(150))
            })
          } else if (ledger && step.kind === 'finish')
            ledger = finishIteration(ledger, step.outcome, clock.now())
          if (!ledger) continue
          const indexes = ledger.attempts.map((a) => a.index)
          expect(indexes).toEqual(indexes.map((_, i) => (indexes[0] as number) + i))
          expect(ledgerBytes(ledger)).toBeLessThanOrEqual(LEDGER_LIMITS.maxBytes)
          expect(
            inFlightAttempts(ledger).filter(
              (a) => a.index !== latestAttempt(ledger as Ledger).index
            )
          ).toEqual([])
          const text = writeLedger(createStateFile('p'), ledger)
          expect(readLedger(text)).toEqual(ledger)
          expect(readLikeScheduler(text).fields).toEqual(
            readLikeScheduler(createStateFile('p')).fields
          )
        }
      }),
      { numRuns: 150 }
    )
  })
})
