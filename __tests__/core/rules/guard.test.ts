import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { manualClock, type ManualClock } from '../../../__fixtures__/clock.js'
import {
  deadlineOf,
  decideAfterRed,
  noProgressPause,
  pausePatch,
  repeatsEarlierSignature,
  type RedDecision
} from '../../../src/core/rules/guard.js'
import {
  completeAttempt,
  finishIteration,
  latestAttempt,
  rememberPausedSignature,
  serializeLedger,
  type Ledger
} from '../../../src/core/ledger.js'
import { parseLedgerFile } from '../../../src/statefile/ledger-file.js'
import { CI_PAUSE_STATUS, type PauseKind } from '../../../src/core/rules/pause-reasons.js'
import { readMachineState, updateMachineState } from '../../../src/statefile/machine-state.js'
import { createStateFile } from '../../../src/statefile/template.js'
import {
  missingRequiredKey,
  signatureOf,
  type Signature
} from '../../../src/core/signature/signature.js'
import { readLikeScheduler } from '../../helpers/scheduler-rule.js'
import {
  MINUTE,
  START,
  begin,
  fresh,
  redVerdict,
  sha,
  sig,
  type Limits
} from '../ledger-helpers.js'

/**
 * Drives the gate the way it runs: begin an attempt on a SHA (written in flight), wait (the
 * clock moves), record the red verdict, then ask the guards. With `restart`, every step reads
 * the ledger back from its file, as a new workflow run does.
 */
class Loop {
  private file: string
  ledger: Ledger
  runId = 100

  constructor(
    readonly clock: ManualClock,
    readonly limits: Limits,
    readonly restart: boolean,
    ledger: Ledger = fresh(clock.now())
  ) {
    this.file = serializeLedger(ledger)
    this.ledger = ledger
  }

  red(commit: string, signature: Signature, waitMinutes = 5, runId = this.runId++): RedDecision {
    const { ledger, attempt } = begin(this.load(), {
      sha: commit,
      runId,
      now: this.clock.now(),
      ...this.limits
    })
    this.save(ledger)
    this.clock.advance(waitMinutes * MINUTE)
    const now = this.clock.now()
    this.save(completeAttempt(this.load(), attempt.index, redVerdict(signature, now)))
    return decideAfterRed(this.load(), { index: attempt.index, signature, now })
  }

  /** The iteration ends paused, remembering the signature (as the gate's pause does). */
  pauseOn(signature: Signature, reason: string): void {
    const now = this.clock.now()
    let ledger = finishIteration(this.load(), 'paused', now)
    ledger = rememberPausedSignature(ledger, { signature, reason, now })
    this.save(ledger)
  }

  private save(ledger: Ledger): void {
    this.ledger = ledger
    if (this.restart) this.file = serializeLedger(ledger)
  }

  private load(): Ledger {
    return this.restart ? parseLedgerFile(this.file, 'ci-gate/perf.json') : this.ledger
  }
}

const kindOf = (decision: RedDecision): string =>
  decision.kind === 'pause' ? decision.pauseKind : 'fix'

describe.each([false, true])(
  'the guards (ledger read back from its file between steps: %s)',
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
      expect(kindOf(l.red(sha(1), sig('b')))).toBe('fix')
      expect(l.red(sha(2), sig('a'))).toMatchObject({ kind: 'pause', pauseKind: 'stuck' })
    })

    it('no progress: a fixer that pushed nothing (the same SHA, another run) is stuck', () => {
      const l = loop()
      l.red(sha(0), sig('a'), 5, 100)
      // The fixer run 200 gates the same head: a new attempt, the previous signature again.
      expect(l.red(sha(0), sig('a'), 5, 200)).toMatchObject({ kind: 'pause', pauseKind: 'stuck' })
      expect(l.ledger.attempts.map((a) => [a.index, a.noNewCommit ?? false])).toEqual([
        [0, false],
        [1, true]
      ])
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

    it('wall clock: counts the time between attempts (another workflow run), not only the waits', () => {
      const l = loop(5, 60)
      expect(kindOf(l.red(sha(0), sig('a'), 10))).toBe('fix')
      l.clock.advance(45 * MINUTE) // the fixer works; its run starts later: 10 + 45 + 10 > 60
      expect(l.red(sha(1), sig('b'), 10)).toEqual({
        kind: 'pause',
        pauseKind: 'timeout',
        reason: 'ci-timeout'
      })
    })

    it('wall clock: exactly at the deadline is not past it', () => {
      const l = loop(5, 60)
      l.red(sha(0), sig('a'), 30)
      expect(kindOf(l.red(sha(1), sig('b'), 30))).toBe('fix')
      const iteration = l.ledger.iteration as NonNullable<Ledger['iteration']>
      expect(deadlineOf(iteration)).toBe(l.clock.now())
      const red = { index: 1, signature: sig('b') }
      expect(kindOf(decideAfterRed(l.ledger, { ...red, now: l.clock.now() + 1 }))).toBe('timeout')
    })

    it('checks the guards in order: no progress, then budget, then wall clock', () => {
      const stuckExhaustedLate = loop(1, 10)
      stuckExhaustedLate.red(sha(0), sig('a'), 20)
      expect(kindOf(stuckExhaustedLate.red(sha(1), sig('a'), 20))).toBe('stuck')
      const exhaustedLate = loop(1, 10)
      exhaustedLate.red(sha(0), sig('a'), 5)
      expect(kindOf(exhaustedLate.red(sha(1), sig('b'), 20))).toBe('exhausted')
      const late = loop(5, 10)
      late.red(sha(0), sig('a'), 5)
      expect(kindOf(late.red(sha(1), sig('b'), 20))).toBe('timeout')
    })

    it('the same SHA gated again by the same run (a re-run) is one attempt: the budget is spent once', () => {
      const l = loop(1)
      expect(l.red(sha(0), sig('a'), 5, 100)).toEqual({ kind: 'fix', attemptsRemaining: 1 })
      expect(l.red(sha(0), sig('a'), 5, 100)).toEqual({ kind: 'fix', attemptsRemaining: 1 })
      expect(l.ledger.attempts).toHaveLength(1)
      expect(kindOf(l.red(sha(1), sig('b')))).toBe('exhausted')
    })

    describe('after a reset (the paused signatures are remembered)', () => {
      /** Stuck on `a` in a first iteration, then reset: the iteration ended, `a` remembered. */
      function stuckThenReset(): Loop {
        const l = loop(5, 60)
        l.red(sha(0), sig('a'))
        const stuck = l.red(sha(1), sig('a'))
        expect(kindOf(stuck)).toBe('stuck')
        l.pauseOn(sig('a'), stuck.kind === 'pause' ? stuck.reason : '')
        l.clock.advance(24 * 60 * MINUTE)
        return l
      }

      it('the same failure on the first attempt pauses at once, spending no fix attempt', () => {
        const l = stuckThenReset()
        const decision = l.red(sha(2), sig('a'))
        expect(decision).toMatchObject({
          kind: 'pause',
          pauseKind: 'stuck',
          reason: 'stuck in CI fix loop: jest:tests/a.test.ts>fails',
          remembered: {
            short: sig('a').short,
            reason: 'stuck in CI fix loop: jest:tests/a.test.ts>fails',
            pausedAt: new Date(l.clock.now() - 24 * 60 * MINUTE - 5 * MINUTE).toISOString()
          }
        })
        expect(latestAttempt(l.ledger)?.index).toBe(0)
      })

      it('a different failure gets the fresh budget; the remembered one coming back later is stuck at once', () => {
        const l = stuckThenReset()
        expect(l.red(sha(2), sig('b'))).toEqual({ kind: 'fix', attemptsRemaining: 5 })
        expect(l.red(sha(3), sig('c'))).toEqual({ kind: 'fix', attemptsRemaining: 4 })
        expect(l.red(sha(4), sig('a'))).toMatchObject({
          kind: 'pause',
          pauseKind: 'stuck',
          remembered: { hash: sig('a').hash.slice(0, 16) }
        })
      })

      it('a remembered failure is stuck before the budget and the wall clock are looked at', () => {
        const l = stuckThenReset()
        // No budget at all, and the wall clock long spent: still `stuck`, naming the old pause.
        const began = begin(l.ledger, { sha: sha(9), now: l.clock.now(), maxFixAttempts: 0 })
        const late = l.clock.now() + 10 * 60 * MINUTE
        const decision = decideAfterRed(began.ledger, { index: 0, signature: sig('a'), now: late })
        expect(decision).toMatchObject({
          pauseKind: 'stuck',
          remembered: { short: sig('a').short }
        })
        expect(
          kindOf(decideAfterRed(began.ledger, { index: 0, signature: sig('b'), now: late }))
        ).toBe('exhausted')
      })
    })
  }
)

describe('restarts', () => {
  it('a new run continues the count and the wall clock from the ledger file alone', () => {
    const clock = manualClock()
    const start = clock.now()
    let file = serializeLedger(fresh(start))
    const read = (): Ledger => parseLedgerFile(file, 'ci-gate/perf.json')
    // Run 1: attempt 0 red, then the run ends.
    const first = begin(read(), { sha: sha(0), runId: 100, now: clock.now() })
    file = serializeLedger(
      completeAttempt(first.ledger, 0, redVerdict(sig('a'), start + 5 * MINUTE))
    )
    // Run 2, 50 minutes later, crashes while waiting on attempt 1.
    clock.advance(50 * MINUTE)
    file = serializeLedger(begin(read(), { sha: sha(1), runId: 101, now: clock.now() }).ledger)
    // Its re-run gates the same SHA: the attempt is re-used, the clock counts from run 1.
    clock.advance(15 * MINUTE)
    const rerun = begin(read(), { sha: sha(1), runId: 101, runAttempt: 2, now: clock.now() })
    expect(rerun).toMatchObject({ kind: 'rerun', attempt: { index: 1, runAttempt: 2 } })
    file = serializeLedger(completeAttempt(rerun.ledger, 1, redVerdict(sig('b'), clock.now())))
    const stored = read()
    expect(deadlineOf(stored.iteration as NonNullable<Ledger['iteration']>)).toBe(
      start + 60 * MINUTE
    )
    expect(decideAfterRed(stored, { index: 1, signature: sig('b'), now: clock.now() })).toEqual({
      kind: 'pause',
      pauseKind: 'timeout',
      reason: 'ci-timeout'
    })
    expect(
      kindOf(decideAfterRed(stored, { index: 1, signature: sig('a'), now: clock.now() }))
    ).toBe('stuck')
  })

  it('needs an iteration to judge a red verdict', () => {
    expect(() => decideAfterRed(fresh(), { index: 0, signature: sig('a'), now: 0 })).toThrow(
      /needs an iteration/
    )
  })
})

describe('no progress survives compaction', () => {
  it('matches a model of "seen before in this iteration" over long iterations', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40 }).map(String), { minLength: 1, maxLength: 80 }),
        (names) => {
          let ledger = fresh()
          let now = ledger.updatedAt ? Date.parse(ledger.updatedAt) : 0
          const seen = new Set<string>()
          names.forEach((name, i) => {
            const began = begin(ledger, {
              sha: sha(i),
              runId: i,
              now,
              maxFixAttempts: 1000,
              timeoutMinutes: 100_000
            })
            now += MINUTE
            ledger = completeAttempt(began.ledger, began.attempt.index, redVerdict(sig(name), now))
            const decision = decideAfterRed(ledger, {
              index: began.attempt.index,
              signature: sig(name),
              now
            })
            expect(kindOf(decision) === 'stuck').toBe(seen.has(name))
            expect(repeatsEarlierSignature(ledger, began.attempt.index, sig(name).hash)).toBe(
              seen.has(name)
            )
            seen.add(name)
          })
          expect(latestAttempt(ledger)?.index).toBe(names.length - 1)
        }
      ),
      { numRuns: 100 }
    )
  })

  it('a signature of an attempt whose record was dropped is still stuck', () => {
    let ledger = fresh()
    const now = Date.parse(ledger.updatedAt)
    const limits = { maxFixAttempts: 100, timeoutMinutes: 600 }
    for (let i = 0; i < 40; i += 1) {
      const began = begin(ledger, { sha: sha(i), runId: i, now, ...limits })
      ledger = completeAttempt(began.ledger, i, redVerdict(sig(`s${i}`), now))
    }
    const began = begin(ledger, { sha: sha(40), runId: 40, now, ...limits })
    expect(began.ledger.attempts.some((a) => a.signature?.hash === sig('s0').hash)).toBe(false)
    const last = completeAttempt(began.ledger, 40, redVerdict(sig('s0'), now))
    expect(kindOf(decideAfterRed(last, { index: 40, signature: sig('s0'), now }))).toBe('stuck')
    expect(kindOf(decideAfterRed(last, { index: 40, signature: sig('new'), now }))).toBe('fix')
  })
})

describe('pause reasons and the pause patch', () => {
  it('puts the one-line short signature in the reason, with no pipe or line break', () => {
    let ledger = begin(fresh(), { sha: sha(0), now: 0, maxFixAttempts: 0 }).ledger
    const nasty = { hash: 'h'.repeat(64), short: 'eslint:no-bitwise:src/a.ts>a | b\nsecond line' }
    ledger = completeAttempt(ledger, 0, { state: 'red', now: 0, signature: nasty })
    expect(decideAfterRed(ledger, { index: 0, signature: nasty, now: 0 })).toEqual({
      kind: 'pause',
      pauseKind: 'exhausted',
      reason: 'ci-fix-exhausted: eslint:no-bitwise:src/a.ts>a ¦ b second line'
    })
  })

  it('names a required check that never reported as SPEC §3 words it', () => {
    let ledger = begin(fresh(), { sha: sha(0), now: 0, maxFixAttempts: 0 }).ledger
    const missing = signatureOf([missingRequiredKey('e2e')])
    ledger = completeAttempt(ledger, 0, { state: 'red', now: 0, signature: missing })
    const decision = decideAfterRed(ledger, { index: 0, signature: missing, now: 0 })
    expect(decision).toMatchObject({ kind: 'pause', pauseKind: 'exhausted' })
    expect(decision.kind === 'pause' && decision.reason).toBe(
      'ci-fix-exhausted: required check never reported: e2e (signature required-missing:e2e)'
    )
  })

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

  it.each(['stuck', 'exhausted', 'timeout'] as const)(
    'a %s pause ends the fix loop: Paused, Pause Reason, Recent Statuses + ci-fix-exhausted (last 10), Last Run',
    (kind) => {
      expect(pausePatch({ recentStatuses: statuses }, { kind, reason: 'r', now })).toEqual({
        paused: true,
        pauseReason: 'r',
        recentStatuses: [...statuses.slice(1), CI_PAUSE_STATUS],
        lastRun: '2026-03-05T12:30:00.000Z'
      })
    }
  )

  it.each(['blocked', 'base-red', 'consecutive-errors'] as PauseKind[])(
    'a %s pause appends no status: it is not the fix loop giving up',
    (kind) => {
      expect(pausePatch({ recentStatuses: statuses }, { kind, reason: 'r', now })).toEqual({
        paused: true,
        pauseReason: 'r',
        lastRun: '2026-03-05T12:30:00.000Z'
      })
    }
  )

  it('reads as a pause to the scheduler once written to Machine State', () => {
    const before = updateMachineState(createStateFile('coverage'), {
      recentStatuses: statuses,
      iterationCount: 9
    })
    const reason = 'stuck in CI fix loop: go:TestParse'
    const after = updateMachineState(
      before,
      pausePatch(readMachineState(before), { kind: 'stuck', reason, now })
    )
    const reading = readLikeScheduler(after)
    expect(reading).toMatchObject({ skipped: true, why: `paused: ${reason}` })
    expect(reading.fields).toMatchObject({
      paused: 'true',
      pause_reason: reason,
      recent_statuses: [...statuses.slice(1), 'ci-fix-exhausted'].join(', '),
      last_run: '2026-03-05T12:30:00Z',
      iteration_count: '9'
    })
    expect(readMachineState(after).recentStatuses).toHaveLength(10)
  })
})

describe('noProgressPause: the fixer pushed nothing', () => {
  const red = (signature: Signature, runId: number): Ledger => {
    const began = begin(fresh(START), { sha: sha('red'), runId, now: START })
    return completeAttempt(began.ledger, began.attempt.index, redVerdict(signature, START + MINUTE))
  }

  it('repeats the previous attempt (its signature, checks and lines) and is stuck, remembering the signature', () => {
    const signature = sig('cart')
    const ledger = red(signature, 100)
    const repeated = begin(ledger, { sha: sha('red'), runId: 101, now: START + 10 * MINUTE })
    expect(repeated.kind).toBe('no-new-commit')
    const judged = noProgressPause(
      repeated.ledger,
      repeated.attempt.index,
      START + 11 * MINUTE,
      'no new commit'
    )
    expect(judged.kind).toBe('stuck')
    expect(judged.reason).toBe(`stuck in CI fix loop: ${signature.short}`)
    expect(judged.verdict).toMatchObject({
      state: 'red',
      note: 'no new commit',
      signature: { hash: signature.hash, short: signature.short, keys: signature.keys }
    })
    const previous = latestAttempt(ledger)
    expect(judged.verdict.failingChecks).toEqual(previous?.failingChecks)
    expect(judged.verdict.errorLines).toEqual(previous?.errorLines)
    expect(judged.remember).toMatchObject({ hash: signature.hash })
  })

  it('a previous attempt with no signature is still stuck, with nothing to remember', () => {
    const began = begin(fresh(START), { sha: sha('silent'), runId: 100, now: START })
    const ledger = completeAttempt(began.ledger, 0, { state: 'red', now: START + MINUTE })
    const repeated = begin(ledger, { sha: sha('silent'), runId: 101, now: START + 2 * MINUTE })
    const judged = noProgressPause(repeated.ledger, repeated.attempt.index, START + 3 * MINUTE, 'x')
    expect(judged).toMatchObject({
      kind: 'stuck',
      reason: 'stuck in CI fix loop: no new commit',
      remember: null
    })
  })
})
