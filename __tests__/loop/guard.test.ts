import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { manualClock, type ManualClock } from '../../__fixtures__/clock.js'
import {
  CI_PAUSE_STATUS,
  deadlineOf,
  decideAfterRed,
  isPastDeadline,
  pausePatch,
  pauseStateText,
  type RedDecision
} from '../../src/loop/guard.js'
import {
  beginAttempt,
  completeAttempt,
  latestAttempt,
  readLedger,
  writeLedger,
  type Ledger,
  type SignatureLike
} from '../../src/loop/ledger.js'
import { createStateFile, readMachineState, updateMachineState } from '../../src/state/markdown.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'

const MINUTE = 60_000

function sig(name: string): SignatureLike {
  const keys = [`jest:tests/${name}.test.ts>fails`]
  return {
    hash: `${name}-hash`.padEnd(64, '0'),
    short: keys.join('; '),
    keys,
    full: keys.join('; ')
  }
}

/**
 * Drives the gate the way `main` will: begin an attempt on a SHA, wait (the clock moves),
 * record the red verdict, then ask the guards. Optionally round-trips the ledger through
 * the state file text between attempts, as a new workflow run would.
 */
class Loop {
  ledger: Ledger | null = null
  text = createStateFile('coverage')
  constructor(
    readonly clock: ManualClock,
    readonly limits: { maxFixAttempts: number; timeoutMinutes: number },
    readonly restartBetweenAttempts = false
  ) {}

  red(sha: string, signature: SignatureLike, waitMinutes = 5): RedDecision {
    const { ledger, attempt } = beginAttempt(this.ledger, { sha, runId: 1, now: this.clock.now() })
    this.save(ledger)
    this.clock.advance(waitMinutes * MINUTE)
    const completed = completeAttempt(this.load(), attempt.index, {
      state: 'red',
      now: this.clock.now(),
      signature
    })
    this.save(completed)
    return decideAfterRed(this.load(), {
      index: attempt.index,
      signature,
      now: this.clock.now(),
      ...this.limits
    })
  }

  private save(ledger: Ledger): void {
    this.ledger = ledger
    if (!this.restartBetweenAttempts) return
    this.text = writeLedger(this.text, ledger)
    expect(readLikeScheduler(this.text).fields).toEqual(
      readLikeScheduler(createStateFile('coverage')).fields
    )
  }

  private load(): Ledger {
    if (!this.restartBetweenAttempts) return this.ledger as Ledger
    const read = readLedger(this.text)
    if (!read) throw new Error('the state file lost its ledger')
    return read
  }
}

const pauseKindOf = (decision: RedDecision): string | null =>
  decision.kind === 'pause' ? decision.pauseKind : null

const sha = (n: number): string => n.toString(16).padStart(40, '0')

describe.each([false, true])(
  'the guards (ledger re-read from the state file between attempts: %s)',
  (restart) => {
    const loop = (maxFixAttempts = 5, timeoutMinutes = 60): Loop =>
      new Loop(manualClock(), { maxFixAttempts, timeoutMinutes }, restart)

    it('lets a new failure be fixed, counting the attempts left', () => {
      const l = loop(5)
      expect(l.red(sha(0), sig('a'))).toEqual({ kind: 'fix', attemptsRemaining: 5 })
      expect(l.red(sha(1), sig('b'))).toEqual({ kind: 'fix', attemptsRemaining: 4 })
      expect(l.red(sha(2), sig('c'))).toEqual({ kind: 'fix', attemptsRemaining: 3 })
    })

    it('no progress: the same signature as the previous attempt is stuck', () => {
      const l = loop()
      l.red(sha(0), sig('a'))
      expect(l.red(sha(1), sig('a'))).toEqual({
        kind: 'pause',
        pauseKind: 'stuck',
        reason: 'stuck in CI fix loop: jest:tests/a.test.ts>fails'
      })
    })

    it('no progress: oscillating A→B→A is stuck too', () => {
      const l = loop()
      l.red(sha(0), sig('a'))
      expect(l.red(sha(1), sig('b')).kind).toBe('fix')
      expect(l.red(sha(2), sig('a'))).toMatchObject({ kind: 'pause', pauseKind: 'stuck' })
    })

    it('budget: fix attempt max-fix-attempts coming back red pauses', () => {
      const l = loop(2)
      expect(l.red(sha(0), sig('a'))).toEqual({ kind: 'fix', attemptsRemaining: 2 })
      expect(l.red(sha(1), sig('b'))).toEqual({ kind: 'fix', attemptsRemaining: 1 })
      expect(l.red(sha(2), sig('c'))).toEqual({
        kind: 'pause',
        pauseKind: 'exhausted',
        reason: 'ci-fix-exhausted: jest:tests/c.test.ts>fails'
      })
    })

    it('budget: zero fix attempts pauses on the first red', () => {
      expect(loop(0).red(sha(0), sig('a'))).toMatchObject({ kind: 'pause', pauseKind: 'exhausted' })
    })

    it('wall clock: counts the time between attempts, not only the waits', () => {
      const l = loop(5, 60)
      expect(l.red(sha(0), sig('a'), 10).kind).toBe('fix')
      l.clock.advance(45 * MINUTE) // the fixer works, a workflow run starts later: 10 + 45 + 10 > 60
      expect(l.red(sha(1), sig('b'), 10)).toEqual({
        kind: 'pause',
        pauseKind: 'timeout',
        reason: 'ci-timeout'
      })
    })

    it('wall clock: exactly at the cap is not past it', () => {
      const l = loop(5, 60)
      l.red(sha(0), sig('a'), 30)
      expect(l.red(sha(1), sig('b'), 30).kind).toBe('fix')
      l.clock.advance(1)
      expect(isPastDeadline(l.ledger as Ledger, 60, l.clock.now())).toBe(true)
    })

    it('checks the guards in order: no progress, then budget, then wall clock', () => {
      const stuckAndExhaustedAndLate = loop(1, 10)
      stuckAndExhaustedAndLate.red(sha(0), sig('a'), 20)
      expect(pauseKindOf(stuckAndExhaustedAndLate.red(sha(1), sig('a'), 20))).toBe('stuck')
      const exhaustedAndLate = loop(1, 10)
      exhaustedAndLate.red(sha(0), sig('a'), 5)
      expect(pauseKindOf(exhaustedAndLate.red(sha(1), sig('b'), 20))).toBe('exhausted')
    })

    it('the same SHA gated twice (a re-run) is one attempt: the budget is not spent twice', () => {
      const l = loop(1)
      expect(l.red(sha(0), sig('a'))).toEqual({ kind: 'fix', attemptsRemaining: 1 })
      expect(l.red(sha(0), sig('a'))).toEqual({ kind: 'fix', attemptsRemaining: 1 })
      expect(l.ledger?.attempts).toHaveLength(1)
      expect(pauseKindOf(l.red(sha(1), sig('b')))).toBe('exhausted')
    })
  }
)

describe('restarts', () => {
  it('a new run continues the count and the wall clock from the state file alone', () => {
    const clock = manualClock()
    let text = createStateFile('coverage')
    // Run 1: attempt 0 red, then the run ends.
    const first = beginAttempt(readLedger(text), { sha: sha(0), runId: 100, now: clock.now() })
    let ledger = completeAttempt(first.ledger, first.attempt.index, {
      state: 'red',
      now: clock.now() + 5 * MINUTE,
      signature: sig('a')
    })
    text = writeLedger(text, ledger)
    // Run 2, 50 minutes later, crashes while waiting on attempt 1.
    clock.advance(50 * MINUTE)
    ;({ ledger } = beginAttempt(readLedger(text), { sha: sha(1), runId: 101, now: clock.now() }))
    text = writeLedger(text, ledger)
    // Run 3 re-runs the same SHA: the attempt is re-used and the clock still counts from run 1.
    clock.advance(15 * MINUTE)
    const rerun = beginAttempt(readLedger(text), { sha: sha(1), runId: 102, now: clock.now() })
    expect(rerun).toMatchObject({ reused: true, attempt: { index: 1, runId: 102 } })
    const done = completeAttempt(rerun.ledger, 1, {
      state: 'red',
      now: clock.now(),
      signature: sig('b')
    })
    text = writeLedger(text, done)
    expect(readLikeScheduler(text).fields).toEqual(
      readLikeScheduler(createStateFile('coverage')).fields
    )
    const stored = readLedger(text) as Ledger
    expect(deadlineOf(stored, 60)).toBe(manualClock().now() + 60 * MINUTE)
    expect(
      decideAfterRed(stored, {
        index: 1,
        signature: sig('b'),
        now: clock.now(),
        maxFixAttempts: 5,
        timeoutMinutes: 60
      })
    ).toEqual({
      kind: 'pause',
      pauseKind: 'timeout',
      reason: 'ci-timeout'
    })
    expect(
      decideAfterRed(stored, {
        index: 1,
        signature: sig('a'),
        now: clock.now(),
        maxFixAttempts: 5,
        timeoutMinutes: 60
      }).kind
    ).toBe('pause')
  })
})

describe('no progress survives compaction', () => {
  it('matches a model of "seen before in this iteration" over long iterations', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40 }).map(String), { minLength: 1, maxLength: 80 }),
        (names) => {
          const clock = manualClock()
          let ledger: Ledger | null = null
          const seen = new Set<string>()
          names.forEach((name, i) => {
            const begun = beginAttempt(ledger, { sha: sha(i), runId: i, now: clock.now() })
            clock.advance(MINUTE)
            ledger = completeAttempt(begun.ledger, begun.attempt.index, {
              state: 'red',
              now: clock.now(),
              signature: sig(name)
            })
            const decision = decideAfterRed(ledger, {
              index: begun.attempt.index,
              signature: sig(name),
              now: clock.now(),
              maxFixAttempts: 1000,
              timeoutMinutes: 10_000
            })
            expect(decision.kind === 'pause' && decision.pauseKind === 'stuck').toBe(seen.has(name))
            seen.add(name)
          })
          expect(latestAttempt(ledger as unknown as Ledger).index).toBe(names.length - 1)
        }
      ),
      { numRuns: 100 }
    )
  })

  it('a signature from an attempt whose record was dropped is still stuck', () => {
    const clock = manualClock()
    let ledger: Ledger | null = null
    for (let i = 0; i < 40; i += 1) {
      const begun = beginAttempt(ledger, { sha: sha(i), runId: i, now: clock.now() })
      ledger = completeAttempt(begun.ledger, i, {
        state: 'red',
        now: clock.now(),
        signature: sig(`s${i}`)
      })
    }
    const begun = beginAttempt(ledger, { sha: sha(40), runId: 40, now: clock.now() })
    expect(
      begun.ledger.attempts.some((attempt) => attempt.signature?.hash === sig('s0').hash)
    ).toBe(false)
    const last = completeAttempt(begun.ledger, 40, {
      state: 'red',
      now: clock.now(),
      signature: sig('s0')
    })
    const limits = { now: clock.now(), maxFixAttempts: 100, timeoutMinutes: 60 }
    expect(decideAfterRed(last, { index: 40, signature: sig('s0'), ...limits }).kind).toBe('pause')
    expect(decideAfterRed(last, { index: 40, signature: sig('new'), ...limits }).kind).toBe('fix')
  })
})

describe('pause reasons and the pause patch', () => {
  it('puts the one-line short signature in the reason, with no pipe or line break', () => {
    const clock = manualClock()
    const { ledger } = beginAttempt(null, { sha: sha(0), runId: 1, now: clock.now() })
    const nasty = { hash: 'h'.repeat(64), short: 'eslint:no-bitwise:src/a.ts>a | b\nsecond line' }
    const decision = decideAfterRed(
      completeAttempt(ledger, 0, { state: 'red', now: clock.now(), signature: nasty }),
      {
        index: 0,
        signature: nasty,
        now: clock.now(),
        maxFixAttempts: 0,
        timeoutMinutes: 60
      }
    )
    expect(decision).toEqual({
      kind: 'pause',
      pauseKind: 'exhausted',
      reason: 'ci-fix-exhausted: eslint:no-bitwise:src/a.ts>a ¦ b second line'
    })
  })

  it('sets Paused, Pause Reason, Recent Statuses (+ ci-fix-exhausted, last 10) and Last Run', () => {
    const statuses = [
      'accepted',
      'rejected',
      'error',
      'accepted',
      'rejected',
      'accepted',
      'accepted',
      'rejected',
      'error',
      'accepted'
    ]
    const now = Date.UTC(2026, 2, 5, 12, 30, 0)
    expect(pausePatch({ recentStatuses: statuses }, { reason: 'ci-timeout', now })).toEqual({
      paused: true,
      pauseReason: 'ci-timeout',
      recentStatuses: [...statuses.slice(1), CI_PAUSE_STATUS],
      lastRun: now
    })
    const before = updateMachineState(createStateFile('coverage'), {
      recentStatuses: statuses,
      iterationCount: 9
    })
    const after = pauseStateText(before, { reason: 'stuck in CI fix loop: go:TestParse', now })
    const reading = readLikeScheduler(after)
    expect(reading).toMatchObject({
      skipped: true,
      why: 'paused: stuck in CI fix loop: go:TestParse'
    })
    expect(reading.fields).toMatchObject({
      paused: 'true',
      pause_reason: 'stuck in CI fix loop: go:TestParse',
      recent_statuses: [...statuses.slice(1), 'ci-fix-exhausted'].join(', '),
      last_run: '2026-03-05T12:30:00Z',
      iteration_count: '9'
    })
    expect(readMachineState(after).recentStatuses).toHaveLength(10)
  })
})
