import { describe, expect, it } from '@jest/globals'
import { applyReset } from '../../src/commands/reset.js'
import {
  isCiPause,
  livenessOf,
  markAbandoned,
  resumeText,
  resumeVerdict,
  staleAttempts
} from '../../src/commands/reconcile.js'
import { createStateFile, readMachineState } from '../../src/state/markdown.js'
import { beginAttempt, readLedger, writeLedger, type Ledger } from '../../src/loop/ledger.js'
import type { MachineStatePatch } from '../../src/state/schema.js'
import type { CheckRunInfo } from '../../src/checks/reduce.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'

const NOW = Date.parse('2026-03-05T12:00:00Z')
const SHA = 'c0ffee'.padEnd(40, '0')

function file(patch: MachineStatePatch = {}, ledger?: Ledger): string {
  const text = createStateFile('perf', { machineState: patch })
  return ledger ? writeLedger(text, ledger) : text
}

const inFlight = (startedAt: number, runId: number | null = 77) =>
  beginAttempt(null, { sha: SHA, runId, runAttempt: 1, now: startedAt }).ledger

describe('applyReset', () => {
  it('unpauses, clears the ledger and consecutive errors, appends no status', () => {
    const text = file(
      {
        paused: true,
        pauseReason: 'ci-fix-exhausted: tsc',
        consecutiveErrors: 2,
        recentStatuses: ['ci-fix-exhausted']
      },
      inFlight(NOW)
    )
    const { text: after, outcome } = applyReset(text)
    expect(outcome).toEqual({
      status: 'reset',
      clearedReason: 'ci-fix-exhausted: tsc',
      clearedLedger: true
    })
    expect(readMachineState(after)).toMatchObject({
      paused: false,
      pauseReason: null,
      consecutiveErrors: 0,
      recentStatuses: ['ci-fix-exhausted']
    })
    expect(readLedger(after)).toBeNull()
    expect(readLikeScheduler(after).skipped).toBe(false)
  })

  it('changes nothing on a program that is not paused', () => {
    const text = file({ consecutiveErrors: 2 }, inFlight(NOW))
    expect(applyReset(text)).toEqual({
      text,
      outcome: { status: 'skipped', clearedReason: null, clearedLedger: false }
    })
  })
})

describe('reconcile decisions', () => {
  it('knows the CI pauses, and that manual and consecutive-errors pauses are not', () => {
    expect(isCiPause('ci-fix-exhausted: tsc:TS2339')).toBe(true)
    expect(isCiPause('stuck in CI fix loop: jest:a')).toBe(true)
    expect(isCiPause('ci-timeout')).toBe(true)
    expect(isCiPause('no-checks')).toBe(true)
    expect(isCiPause('manual')).toBe(false)
    expect(isCiPause('consecutive errors')).toBe(false)
    expect(isCiPause(null)).toBe(false)
  })

  it('reads run liveness: finished, gone, running, re-run, forbidden', () => {
    const attempt = inFlight(NOW).attempts[0]!
    expect(livenessOf({ kind: 'found', status: 'completed', runAttempt: 1 }, attempt)).toBe(
      'finished'
    )
    expect(livenessOf({ kind: 'not-found' }, attempt)).toBe('finished')
    expect(livenessOf({ kind: 'found', status: 'in_progress', runAttempt: 1 }, attempt)).toBe(
      'running'
    )
    expect(livenessOf({ kind: 'found', status: 'queued', runAttempt: 2 }, attempt)).toBe('finished')
    expect(livenessOf({ kind: 'forbidden' }, attempt)).toBe('unknown')
  })

  it('an attempt is stale when its run finished, or, unknown, once the wall clock is spent', () => {
    const ledger = inFlight(NOW - 30 * 60_000)
    const at = (state: 'running' | 'finished' | 'unknown', now: number) =>
      staleAttempts(ledger, new Map([[0, state]]), { now, timeoutMinutes: 60 }).length
    expect(at('finished', NOW)).toBe(1)
    expect(at('running', NOW + 3 * 3_600_000)).toBe(0)
    expect(at('unknown', NOW)).toBe(0)
    expect(at('unknown', NOW + 31 * 60_000)).toBe(1)
  })

  it('marks abandoned, and pauses with ci-timeout only when the wall clock is spent', () => {
    const ledger = inFlight(NOW - 30 * 60_000)
    const text = file({}, ledger)
    const early = markAbandoned(text, ledger.attempts, { now: NOW, timeoutMinutes: 60 })
    expect(early).toMatchObject({ abandoned: [0], paused: false })
    expect(readLedger(early.text)?.attempts[0]?.state).toBe('abandoned')
    expect(readLedger(early.text)?.iteration.finishedAt).toBeNull()
    expect(readMachineState(early.text).paused).toBe(false)

    const late = markAbandoned(text, ledger.attempts, {
      now: NOW + 31 * 60_000,
      timeoutMinutes: 60
    })
    expect(late).toMatchObject({ abandoned: [0], paused: true })
    expect(readMachineState(late.text)).toMatchObject({ paused: true, pauseReason: 'ci-timeout' })
    expect(readLedger(late.text)?.iteration.outcome).toBe('paused')
    expect(readLikeScheduler(late.text).skipped).toBe(true)
  })

  it('does not mark an attempt that moved on meanwhile', () => {
    const ledger = inFlight(NOW)
    const moved = beginAttempt(ledger, { sha: SHA, runId: 78, now: NOW + 1000 }).ledger
    const text = file(
      {},
      { ...moved, attempts: moved.attempts.map((a) => ({ ...a, sha: 'ab'.repeat(20) })) }
    )
    expect(
      markAbandoned(text, ledger.attempts, { now: NOW, timeoutMinutes: 60 }).abandoned
    ).toEqual([])
  })

  it('resumes only a CI pause, clearing the ledger', () => {
    const ci = file({ paused: true, pauseReason: 'ci-timeout' }, inFlight(NOW))
    const resumed = resumeText(ci)
    expect(resumed.resumed).toBe(true)
    expect(readMachineState(resumed.text)).toMatchObject({ paused: false, pauseReason: null })
    expect(readLedger(resumed.text)).toBeNull()
    const manual = file({ paused: true, pauseReason: 'manual' })
    expect(resumeText(manual)).toEqual({ text: manual, resumed: false })
  })

  it('green on every check: no grace, nothing pending, at least one success', () => {
    const run = (name: string, conclusion: string | null, status = 'completed'): CheckRunInfo => ({
      id: name.length,
      name,
      status,
      conclusion,
      url: '',
      startedAt: null,
      workflowRunId: 1,
      jobId: 1,
      checkSuiteId: 1,
      appSlug: 'github-actions'
    })
    const policy = { requiredChecks: [], ignoreChecks: [] }
    expect(resumeVerdict({ checkRuns: [run('test', 'success')], statuses: [] }, policy).kind).toBe(
      'green'
    )
    expect(resumeVerdict({ checkRuns: [run('test', 'failure')], statuses: [] }, policy).kind).toBe(
      'red'
    )
    expect(
      resumeVerdict({ checkRuns: [run('test', null, 'in_progress')], statuses: [] }, policy).kind
    ).toBe('pending')
    expect(resumeVerdict({ checkRuns: [], statuses: [] }, policy).kind).toBe('no-checks')
    expect(
      resumeVerdict(
        { checkRuns: [run('test', 'success'), run('lint!', 'failure')], statuses: [] },
        { requiredChecks: [], ignoreChecks: ['lint*'] }
      ).kind
    ).toBe('green')
  })
})
