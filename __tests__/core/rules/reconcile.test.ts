import { describe, expect, it } from '@jest/globals'
import {
  completeAttempt,
  finishIteration,
  updateAttempt,
  type Ledger
} from '../../../src/core/ledger.js'
import { pauseReason } from '../../../src/core/rules/pause-reasons.js'
import {
  isIdle,
  livenessOf,
  planReconcile,
  staleAttempts,
  type RunLiveness
} from '../../../src/core/rules/reconcile.js'
import type { MachineState } from '../../../src/core/schema.js'
import { readMachineState } from '../../../src/statefile/machine-state.js'
import { createStateFile } from '../../../src/statefile/template.js'
import { MINUTE, START, begin, fresh, redAttempts, sha, sig } from '../ledger-helpers.js'

const active = readMachineState(createStateFile('perf'))
const pausedFor = (reason: string): MachineState => ({
  ...active,
  paused: true,
  pauseReason: reason
})
const inFlight = (runId: number | null = 77): Ledger =>
  begin(fresh(), { sha: sha(0), runId, now: START }).ledger
const plan = (
  ledger: Ledger,
  machine: MachineState = active,
  stale = false,
  now = START + MINUTE
) => planReconcile({ ledger, machine, stale }, now)

describe('livenessOf', () => {
  const attempt = { runAttempt: 1 }
  it.each([
    [{ kind: 'found', status: 'completed', conclusion: 'failure', runAttempt: 1 }, 'finished'],
    [{ kind: 'not-found' }, 'finished'],
    [{ kind: 'found', status: 'in_progress', conclusion: null, runAttempt: 1 }, 'running'],
    [{ kind: 'found', status: 'queued', conclusion: null, runAttempt: null }, 'running'],
    // A newer attempt of the same run is running: the one that wrote ours is gone.
    [{ kind: 'found', status: 'queued', conclusion: null, runAttempt: 2 }, 'finished'],
    [{ kind: 'forbidden' }, 'unknown']
  ] as const)('%j → %s', (state, liveness) => {
    expect(livenessOf(state, attempt)).toBe(liveness)
  })

  it('cannot tell a newer attempt when the attempt did not record its own', () => {
    expect(
      livenessOf(
        { kind: 'found', status: 'in_progress', conclusion: null, runAttempt: 3 },
        { runAttempt: null }
      )
    ).toBe('running')
  })
})

describe('planReconcile', () => {
  it('an idle program (no iteration, or one that ended, not paused, projected): nothing to look at', () => {
    for (const ledger of [fresh(), finishIteration(redAttempts([sig('a')]), 'recorded', START)]) {
      const idle = plan(ledger)
      expect(idle).toEqual({
        inFlight: [],
        fixer: null,
        expired: false,
        resume: null,
        reproject: false
      })
      expect(isIdle(idle)).toBe(true)
    }
  })

  it('attempts left in flight in the open iteration are looked up', () => {
    const p = plan(inFlight())
    expect(p.inFlight.map((a) => a.index)).toEqual([0])
    expect(isIdle(p)).toBe(false)
  })

  it('a red attempt with a dispatched fixer run: that run is looked up', () => {
    const red = updateAttempt(redAttempts([sig('a')]), 0, (attempt) => ({
      ...attempt,
      dispatch: {
        workflow: 'autoloop.lock.yml',
        ref: 'main',
        state: 'sent',
        requestedAt: new Date(START).toISOString(),
        runId: 4242,
        url: null
      }
    }))
    expect(plan(red).fixer?.index).toBe(0)
    // A sent dispatch whose run GitHub did not name is looked up too (found by time).
    const unnamed = updateAttempt(red, 0, (attempt) => ({
      ...attempt,
      dispatch: { ...attempt.dispatch!, runId: null }
    }))
    expect(plan(unnamed).fixer?.index).toBe(0)
    // Not a dispatch GitHub refused, nor one never sent.
    for (const state of ['failed', 'requested'] as const) {
      const notSent = updateAttempt(red, 0, (attempt) => ({
        ...attempt,
        dispatch: { ...attempt.dispatch!, state }
      }))
      expect(plan(notSent).fixer).toBeNull()
    }
    // Not without a dispatch, not when paused, not when no longer the latest.
    expect(plan(redAttempts([sig('a')])).fixer).toBeNull()
    expect(plan(red, pausedFor(pauseReason('stuck', 'a'))).fixer).toBeNull()
  })

  it('a red attempt nobody fixed by the end of the wall clock has expired', () => {
    const red = redAttempts([sig('a')])
    expect(plan(red, active, false, START + 60 * MINUTE).expired).toBe(false)
    expect(plan(red, active, false, START + 61 * MINUTE).expired).toBe(true)
    const silent = completeAttempt(inFlight(), 0, { state: 'no-checks', now: START })
    expect(plan(silent, active, false, START + 61 * MINUTE).expired).toBe(true)
    // Green, or ended: nothing waits on a fix.
    const ended = finishIteration(red, 'paused', START)
    expect(plan(ended, active, false, START + 61 * MINUTE).expired).toBe(false)
  })

  it.each([
    [pauseReason('stuck', 'a'), 'green'],
    [pauseReason('exhausted', 'a'), 'green'],
    [pauseReason('timeout'), 'green'],
    [pauseReason('blocked', 'runs wait for approval'), 'verdict'],
    [pauseReason('base-red', 'eslint:x'), 'base-green'],
    [pauseReason('consecutive-errors'), null],
    ['manual', null]
  ])('a program paused %j resumes on %s', (reason, resume) => {
    expect(plan(redAttempts([sig('a')]), pausedFor(reason)).resume).toBe(resume)
  })

  it('a state file that lags its ledger is projected again', () => {
    const p = plan(fresh(), active, true)
    expect(p.reproject).toBe(true)
    expect(isIdle(p)).toBe(false)
  })
})

describe('staleAttempts', () => {
  const liveness = (state: RunLiveness) => new Map([[0, state]])

  it('an attempt whose run finished is stale; one whose run runs is not, however late', () => {
    const ledger = inFlight()
    expect(staleAttempts(ledger, liveness('finished'), START + MINUTE).map((a) => a.index)).toEqual(
      [0]
    )
    expect(staleAttempts(ledger, liveness('running'), START + 10 * 60 * MINUTE)).toEqual([])
  })

  it('when the run cannot be told (no permission, no run id), only once the wall clock is spent', () => {
    const ledger = inFlight(null)
    expect(staleAttempts(ledger, new Map(), START + 60 * MINUTE)).toEqual([])
    expect(staleAttempts(ledger, new Map(), START + 61 * MINUTE).map((a) => a.index)).toEqual([0])
    expect(staleAttempts(inFlight(), liveness('unknown'), START + 61 * MINUTE)).toHaveLength(1)
  })

  it('nothing in an iteration that ended', () => {
    const ended = finishIteration(inFlight(), 'paused', START)
    expect(staleAttempts(ended, liveness('finished'), START + MINUTE)).toEqual([])
  })
})
