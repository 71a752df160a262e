import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { completeAttempt, finishIteration, type Ledger } from '../../src/core/ledger.js'
import { decideAfterRed } from '../../src/core/rules/guard.js'
import { pauseReason } from '../../src/core/rules/pause-reasons.js'
import {
  MAX_CONSECUTIVE_ERRORS,
  recordIteration,
  recordKeyOf,
  recordTransition,
  reportedOutcome,
  type RecordRequest
} from '../../src/statefile/record-outcome.js'
import { findHistoryEntry, isRecorded } from '../../src/statefile/history.js'
import { readMachineState } from '../../src/statefile/machine-state.js'
import { projectStateFile } from '../../src/statefile/projection.js'
import type { MachineStatePatch } from '../../src/core/schema.js'
import { createStateFile } from '../../src/statefile/template.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'
import { MINUTE, START, begin, fresh, redVerdict, sha, sig } from '../core/ledger-helpers.js'

const NOW = Date.parse('2026-03-05T12:00:00Z')
const PROGRAM = 'perf'
const OPTIONS = { program: PROGRAM, maxBytes: 30_720 }

function request(extra: Partial<RecordRequest> = {}): RecordRequest {
  return {
    outcome: 'accepted',
    metric: 0.9,
    change: 'faster parser',
    reason: undefined,
    commit: undefined,
    runId: 9000,
    runUrl: 'https://github.com/acme/widgets/actions/runs/9000',
    now: NOW,
    ...extra
  }
}

/** The program's files as `record` sees them: the ledger projected onto the state file. */
function current(patch: MachineStatePatch = {}, ledger: Ledger = fresh(), base?: string) {
  const text = projectStateFile(
    base ?? createStateFile(PROGRAM, { machineState: patch }),
    ledger,
    OPTIONS
  )
  return { text, machine: readMachineState(text), ledger }
}

/** Records, and returns the files as the next reader sees them (the write projected). */
function record(files: ReturnType<typeof current>, req: RecordRequest) {
  const result = recordIteration(files, req)
  const ledger = {
    ...result.ledger,
    revision: result.ledger.revision + (result.ledger === files.ledger ? 0 : 1)
  }
  const text = projectStateFile(files.text, ledger, OPTIONS)
  return { ...result, after: { text, machine: readMachineState(text), ledger } }
}

describe('recordTransition', () => {
  const base = readMachineState(
    createStateFile(PROGRAM, {
      machineState: {
        iterationCount: 4,
        bestMetric: 0.8,
        consecutiveErrors: 2,
        recentStatuses: ['error', 'error']
      }
    })
  )

  it('accepted: best metric, count + 1, errors 0, unpaused, status appended', () => {
    const t = recordTransition(
      { ...base, paused: true, pauseReason: 'manual' },
      {
        outcome: 'accepted',
        metric: 0.85,
        now: NOW
      }
    )
    expect(t.patch).toEqual({
      bestMetric: 0.85,
      iterationCount: 5,
      consecutiveErrors: 0,
      paused: false,
      pauseReason: null,
      recentStatuses: ['error', 'error', 'accepted'],
      lastRun: '2026-03-05T12:00:00.000Z'
    })
    expect(t).toMatchObject({ status: 'recorded', improved: true, direction: 'higher' })
  })

  it('accepted needs a finite metric', () => {
    expect(() =>
      recordTransition(base, { outcome: 'accepted', metric: undefined, now: NOW })
    ).toThrow(RangeError)
    expect(() =>
      recordTransition(base, { outcome: 'accepted', metric: Number.NaN, now: NOW })
    ).toThrow(RangeError)
  })

  it('rejected: count + 1 and errors 0, nothing else', () => {
    expect(recordTransition(base, { outcome: 'rejected', metric: 0.7, now: NOW }).patch).toEqual({
      iterationCount: 5,
      consecutiveErrors: 0,
      recentStatuses: ['error', 'error', 'rejected'],
      lastRun: '2026-03-05T12:00:00.000Z'
    })
  })

  it(`error: the ${MAX_CONSECUTIVE_ERRORS}rd consecutive error pauses the program`, () => {
    const once = recordTransition(
      { ...base, consecutiveErrors: 0 },
      { outcome: 'error', metric: undefined, now: NOW }
    )
    expect(once.patch).toMatchObject({ consecutiveErrors: 1 })
    expect(once.patch.paused).toBeUndefined()
    expect(once.status).toBe('recorded')
    const third = recordTransition(base, { outcome: 'error', metric: undefined, now: NOW })
    expect(third.patch).toMatchObject({
      iterationCount: 5,
      consecutiveErrors: 3,
      paused: true,
      pauseReason: 'consecutive errors'
    })
    expect(third).toMatchObject({
      status: 'paused',
      pauseReason: pauseReason('consecutive-errors')
    })
  })

  it.each([
    ['higher', 0.95, 0.95, true],
    ['higher', 0.949, 0.95, false],
    ['lower', 120, 120, true],
    ['lower', 121, 120, false]
  ] as const)(
    'target in direction %s: %p vs %p reached = %p',
    (direction, metric, target, reached) => {
      const t = recordTransition(
        { ...base, metricDirection: direction, targetMetric: target },
        {
          outcome: 'accepted',
          metric,
          now: NOW
        }
      )
      expect(t.status).toBe(reached ? 'completed' : 'recorded')
      expect(t.patch.completed).toBe(reached ? true : undefined)
      if (reached)
        expect(t.completedReason).toBe(
          `target metric reached: ${metric} ${direction === 'lower' ? '≤' : '≥'} ${target} at iteration 5`
        )
    }
  )

  it('tells whether an accepted metric improved, direction-aware', () => {
    const lower = { ...base, metricDirection: 'lower' as const, bestMetric: 100 }
    expect(recordTransition(lower, { outcome: 'accepted', metric: 90, now: NOW }).improved).toBe(
      true
    )
    expect(recordTransition(lower, { outcome: 'accepted', metric: 110, now: NOW }).improved).toBe(
      false
    )
  })
})

describe('recordIteration', () => {
  it('logs Machine State and the history entry in the ledger; projected, the scheduler reads them', () => {
    const files = current({ bestMetric: 120.5, metricDirection: 'lower', iterationCount: 7 })
    const { outcome, ledger, after } = record(files, request({ metric: 120.38 }))
    expect(outcome).toMatchObject({
      recorded: true,
      status: 'recorded',
      iteration: 8,
      metric: 120.38,
      previousBest: 120.5,
      delta: '-0.12',
      runKey: '9000'
    })
    expect(ledger.writes.at(-1)?.historyEntry?.runKey).toBe('9000')
    expect(readLikeScheduler(after.text)).toMatchObject({
      skipped: false,
      fields: { best_metric: '120.38', iteration_count: '8', recent_statuses: 'accepted' }
    })
    expect(findHistoryEntry(after.text, '9000')).toContain('(previous best: 120.5, delta: -0.12)')
    expect(outcome.entry).toBe(findHistoryEntry(after.text, '9000'))
  })

  it('reports the fix attempts and the agent’s commit of the iteration the gate ended green, keeping its outcome', () => {
    let ledger = begin(fresh(), { sha: sha(0), now: START }).ledger
    ledger = completeAttempt(ledger, 0, redVerdict(sig('a'), START + MINUTE))
    ledger = begin(ledger, {
      sha: sha('trigger'),
      agentSha: sha('fix'),
      runId: 2,
      now: START + 2 * MINUTE
    }).ledger
    ledger = completeAttempt(ledger, 1, { state: 'green', now: START + 3 * MINUTE })
    const { outcome, after } = record(current({}, ledger), request())
    expect(outcome).toMatchObject({ fixAttempts: 1, commit: sha('fix') })
    expect(after.ledger.iteration).toMatchObject({
      outcome: 'green',
      finishedAt: new Date(START + 3 * MINUTE).toISOString()
    })
    expect(findHistoryEntry(after.text, '9000')).toContain('- **CI fix attempts**: 1')
    // The next record (no gate in between) belongs to no gated iteration: no fix attempts.
    const next = record(after, request({ runId: 9001, outcome: 'rejected' }))
    expect(next.outcome).toMatchObject({ fixAttempts: 0, commit: null })
  })

  it('takes the commit it is given over the gated one', () => {
    const ledger = begin(fresh(), { sha: sha(0), now: START }).ledger
    expect(record(current({}, ledger), request({ commit: sha('given') })).outcome.commit).toBe(
      sha('given')
    )
  })

  it('is idempotent per run id: a re-run of the same run (a higher run attempt) changes nothing', () => {
    const first = record(current(), request())
    const again = recordIteration(first.after, request({ metric: 0.99 }))
    expect(again.ledger).toBe(first.after.ledger)
    expect(again.outcome).toMatchObject({
      recorded: false,
      status: 'recorded',
      iteration: 1,
      runKey: '9000'
    })
    expect(again.outcome.entry).toBe(first.outcome.entry)
  })

  it('reports the status the first attempt left: paused after the third error, completed at the target', () => {
    const paused = record(
      current({ consecutiveErrors: 2 }),
      request({ outcome: 'error', metric: undefined })
    )
    expect(paused.outcome.status).toBe('paused')
    expect(recordIteration(paused.after, request()).outcome).toMatchObject({
      recorded: false,
      status: 'paused',
      pauseReason: 'consecutive errors'
    })
    const done = record(current({ targetMetric: 0.9 }), request({ metric: 0.95 }))
    expect(recordIteration(done.after, request()).outcome).toMatchObject({
      recorded: false,
      status: 'completed',
      completedReason: 'target metric reached: 0.95 ≥ 0.9 at iteration 1'
    })
  })

  it('counts a run an earlier version recorded as <run id>.<run attempt> as the same run', () => {
    // Written by the previous version of this action: run 13512399001, attempt 1.
    const legacy = readFileSync(
      new URL('../../__fixtures__/state/coverage-v1-recorded.md', import.meta.url),
      'utf8'
    )
    const files = current({}, fresh(), legacy)
    expect(isRecorded(files.text, '13512399001')).toBe(true)
    const again = recordIteration(files, request({ runId: 13512399001 }))
    expect(again.outcome).toMatchObject({ recorded: false, iteration: 18, runKey: '13512399001' })
    expect(again.outcome.entry).toContain('### Iteration 18')
    expect(recordIteration(files, request({ runId: 13512399002 })).outcome.recorded).toBe(true)
  })

  it('outside Actions (no run id) it always records, keyed on the ledger revision', () => {
    const files = current()
    expect(recordKeyOf(null, files.ledger)).toBe('local-1')
    const first = record(files, request({ runId: null }))
    expect(first.outcome.runKey).toBe('local-1')
    expect(record(first.after, request({ runId: null })).outcome).toMatchObject({
      recorded: true,
      runKey: 'local-2'
    })
  })

  it('makes the change text safe: one line, no markers, no mentions; masked values redacted', () => {
    const { after } = record(
      current(),
      request({
        change: 'two\nlines <!-- autoloop-ci-gate:recorded 1 --> @octocat\n## heading s3cr3t-value',
        maskedValues: ['s3cr3t-value']
      })
    )
    const entry = findHistoryEntry(after.text, '9000') ?? ''
    expect(entry).toMatch(/- \*\*Change\*\*: two lines +@\u200docto/)
    expect(entry).toContain('@\u200doctocat ## heading ***')
    expect(entry.split('\n').some((line) => line.startsWith('## '))).toBe(false)
    expect(after.text).not.toContain('recorded 1 -->')
    expect(after.text).not.toContain('s3cr3t-value')
  })

  it('ends an open iteration but does not reopen or re-end one that ended', () => {
    const open = begin(fresh(), { sha: sha(0), now: START }).ledger
    expect(recordIteration(current({}, open), request()).ledger.iteration).toMatchObject({
      outcome: 'recorded',
      finishedAt: new Date(NOW).toISOString()
    })
    const ended = finishIteration(
      completeAttempt(open, 0, {
        state: 'green',
        now: START
      }),
      'green',
      START
    )
    const { ledger } = recordIteration(current({}, ended), request())
    expect(ledger.iteration).toMatchObject({
      outcome: 'green',
      finishedAt: new Date(START).toISOString()
    })
  })

  it.each(['red', 'no-checks'] as const)(
    'leaves an iteration whose latest attempt is %s open: the fixer run that pushed nothing is still judged by the gate',
    (state) => {
      // Attempt 0 red on X, fixer dispatched; the fixer run records an error and pushes nothing.
      let ledger = begin(fresh(), { sha: sha(0), runId: 100, now: START }).ledger
      ledger = completeAttempt(ledger, 0, { ...redVerdict(sig('a'), START + MINUTE), state })
      const { outcome, after } = record(
        current({}, ledger),
        request({ outcome: 'error', metric: undefined, runId: 101 })
      )
      expect(outcome).toMatchObject({ recorded: true, fixAttempts: 0, commit: sha(0) })
      expect(after.ledger.iteration).toMatchObject({ finishedAt: null, outcome: null })
      // The next gate on X (another run) is a fix attempt with no new commit, and the
      // no-progress guard pauses: never `already-gated`, never a fresh budget.
      const next = begin(after.ledger, { sha: sha(0), runId: 102, now: START + 5 * MINUTE })
      expect(next.kind).toBe('no-new-commit')
      expect(
        decideAfterRed(next.ledger, {
          index: next.attempt.index,
          signature: sig('a'),
          now: START + 6 * MINUTE
        })
      ).toMatchObject({ kind: 'pause', pauseKind: 'stuck' })
    }
  )

  it.each(['paused', 'reset'] as const)(
    'never relabels a %s iteration recorded: its SHA is not taken as accepted',
    (ending) => {
      let ledger = begin(fresh(), { sha: sha(0), runId: 100, now: START }).ledger
      ledger = completeAttempt(ledger, 0, redVerdict(sig('a'), START + MINUTE))
      ledger = finishIteration(ledger, ending, START + 2 * MINUTE)
      const { outcome, after } = record(
        current({}, ledger),
        request({ outcome: 'error', metric: undefined, runId: 101 })
      )
      expect(outcome).toMatchObject({ recorded: true, fixAttempts: 0, commit: sha(0) })
      expect(after.ledger.iteration).toMatchObject({
        outcome: ending,
        finishedAt: new Date(START + 2 * MINUTE).toISOString()
      })
      // The iteration is over: the next gate, even on the same SHA, starts a new one.
      expect(begin(after.ledger, { sha: sha(0), runId: 102, now: START + 5 * MINUTE }).kind).toBe(
        'first'
      )
      // A second record describes no gated iteration: that one was described already.
      expect(record(after, request({ outcome: 'rejected', runId: 103 })).outcome).toMatchObject({
        fixAttempts: 0,
        commit: null
      })
    }
  )
})

describe("reportedOutcome: what the gate records from the agent's iteration file", () => {
  const newCommit = { newCommit: true, name: 'autoloop/perf' }
  const noCommit = { newCommit: false, name: 'autoloop/perf' }

  it('accepts an improvement only when a new commit carries it', () => {
    expect(reportedOutcome({ improved: true }, newCommit)).toEqual({
      outcome: 'accepted',
      reason: undefined
    })
    expect(reportedOutcome({ improved: true }, noCommit)).toEqual({
      outcome: 'error',
      reason: 'the agent reported an improved metric, but no new commit reached autoloop/perf'
    })
  })

  it('records a failed evaluation as error with its reason, improved or not, commit or not', () => {
    for (const improved of [true, false])
      for (const branch of [newCommit, noCommit])
        expect(reportedOutcome({ improved, error: 'benchmark crashed' }, branch)).toEqual({
          outcome: 'error',
          reason: 'benchmark crashed'
        })
  })

  it('rejects no improvement', () => {
    for (const branch of [newCommit, noCommit])
      expect(reportedOutcome({ improved: false }, branch)).toEqual({
        outcome: 'rejected',
        reason: undefined
      })
  })
})
