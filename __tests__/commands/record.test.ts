import { describe, expect, it } from '@jest/globals'
import {
  CONSECUTIVE_ERRORS_REASON,
  applyRecord,
  reachesTarget,
  recordTransition,
  type RecordRequest
} from '../../src/commands/record.js'
import { createStateFile, readMachineState } from '../../src/state/markdown.js'
import type { MachineStatePatch } from '../../src/state/schema.js'
import { beginAttempt, completeAttempt, readLedger, writeLedger } from '../../src/loop/ledger.js'
import { findHistoryEntry } from '../../src/state/history.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'

const NOW = Date.parse('2026-03-05T12:00:00Z')
const SHA = 'c0ffee'.padEnd(40, '0')

function file(patch: MachineStatePatch = {}): string {
  return createStateFile('perf', { machineState: patch })
}

function request(extra: Partial<RecordRequest> = {}): RecordRequest {
  return {
    program: 'perf',
    outcome: 'accepted',
    metric: 0.9,
    change: 'faster parser',
    reason: undefined,
    commit: undefined,
    runKey: '9000.1',
    runUrl: 'https://github.example/o/r/actions/runs/9000',
    now: NOW,
    maxBytes: 30720,
    ...extra
  }
}

describe('recordTransition', () => {
  const base = readMachineState(
    file({
      iterationCount: 4,
      bestMetric: 0.8,
      consecutiveErrors: 2,
      recentStatuses: ['error', 'error']
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
    expect(t.patch).toMatchObject({
      bestMetric: 0.85,
      iterationCount: 5,
      consecutiveErrors: 0,
      paused: false,
      pauseReason: null,
      recentStatuses: ['error', 'error', 'accepted'],
      lastRun: NOW
    })
    expect(t.status).toBe('recorded')
    expect(t.improved).toBe(true)
  })

  it('rejected: count + 1 and errors 0, nothing else', () => {
    const t = recordTransition(base, { outcome: 'rejected', metric: 0.7, now: NOW })
    expect(t.patch).toEqual({
      iterationCount: 5,
      consecutiveErrors: 0,
      recentStatuses: ['error', 'error', 'rejected'],
      lastRun: NOW
    })
    expect(t.status).toBe('recorded')
  })

  it('error: the third consecutive error pauses the program', () => {
    const once = recordTransition(
      { ...base, consecutiveErrors: 1 },
      {
        outcome: 'error',
        metric: undefined,
        now: NOW
      }
    )
    expect(once.patch).toMatchObject({ consecutiveErrors: 2 })
    expect(once.patch.paused).toBeUndefined()
    expect(once.status).toBe('recorded')
    const third = recordTransition(base, { outcome: 'error', metric: undefined, now: NOW })
    expect(third.patch).toMatchObject({
      iterationCount: 5,
      consecutiveErrors: 3,
      paused: true,
      pauseReason: CONSECUTIVE_ERRORS_REASON
    })
    expect(third.status).toBe('paused')
  })

  it.each([
    ['higher', 0.95, 0.95, true],
    ['higher', 0.949, 0.95, false],
    ['lower', 120, 120, true],
    ['lower', 121, 120, false]
  ] as const)(
    'target in direction %s: %p vs %p reached = %p',
    (direction, metric, target, reached) => {
      expect(reachesTarget(metric, target, direction)).toBe(reached)
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

describe('applyRecord', () => {
  it('writes Machine State, the history entry with a signed delta, and reads like the scheduler', () => {
    const { text, outcome } = applyRecord(
      file({ bestMetric: 120.5, metricDirection: 'lower', iterationCount: 7 }),
      request({ metric: 120.38 })
    )
    expect(outcome).toMatchObject({
      recorded: true,
      status: 'recorded',
      iteration: 8,
      delta: '-0.12'
    })
    expect(readLikeScheduler(text)).toMatchObject({
      skipped: false,
      fields: { best_metric: '120.38', iteration_count: '8', recent_statuses: 'accepted' }
    })
    expect(findHistoryEntry(text, '9000.1')).toContain('(previous best: 120.5, delta: -0.12)')
  })

  it('finishes the ledger iteration and reports its fix attempts and commit', () => {
    let ledger = beginAttempt(null, { sha: SHA, runId: 1, now: NOW - 60_000 }).ledger
    ledger = completeAttempt(ledger, 0, { state: 'red', now: NOW - 50_000 })
    const fix = 'f1'.padEnd(40, '1')
    ledger = beginAttempt(ledger, { sha: fix, runId: 1, now: NOW - 40_000 }).ledger
    ledger = completeAttempt(ledger, 1, { state: 'green', now: NOW - 30_000 })
    const { text, outcome } = applyRecord(writeLedger(file(), ledger), request())
    expect(outcome).toMatchObject({ fixAttempts: 1, commit: fix })
    expect(readLedger(text)?.iteration.outcome).toBe('recorded')
    expect(findHistoryEntry(text, '9000.1')).toContain('- **CI fix attempts**: 1')
    // The next record (no gate in between) belongs to a new iteration: no fix attempts.
    const next = applyRecord(text, request({ runKey: '9001.1', outcome: 'rejected' }))
    expect(next.outcome).toMatchObject({ fixAttempts: 0, commit: null })
  })

  it('is idempotent per run: the same run key changes nothing', () => {
    const first = applyRecord(file(), request())
    const again = applyRecord(first.text, request({ metric: 0.99, outcome: 'accepted' }))
    expect(again.text).toBe(first.text)
    expect(again.outcome.recorded).toBe(false)
    expect(again.outcome.entry).toBe(first.outcome.entry)
  })

  it('creates the file from the template when there is none', () => {
    const { text } = applyRecord(null, request({ outcome: 'error', metric: undefined }))
    expect(readMachineState(text)).toMatchObject({ iterationCount: 1, consecutiveErrors: 1 })
  })

  it('makes the change text safe: one line, no markers', () => {
    const { text } = applyRecord(
      file(),
      request({ change: 'two\nlines <!-- autoloop-ci-gate:recorded 1.1 -->\n## heading' })
    )
    expect(findHistoryEntry(text, '9000.1')).toMatch(/- \*\*Change\*\*: two lines +\\?## heading/)
    expect(text).not.toContain('recorded 1.1')
  })
})
