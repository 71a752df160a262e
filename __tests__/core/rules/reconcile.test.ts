import { describe, expect, it } from '@jest/globals'
import {
  completeAttempt,
  finishIteration,
  updateAttempt,
  type Ledger
} from '../../../src/core/ledger.js'
import { pauseReason } from '../../../src/core/rules/pause-reasons.js'
import {
  decideInFlight,
  decideResume,
  decideUnfixed,
  isIdle,
  liftsPause,
  livenessOf,
  planReconcile,
  staleAttempts,
  unfixedWhy,
  wroteFiles,
  type Happened,
  type ResumeWhen,
  type RunLiveness,
  type UnfixedCause
} from '../../../src/core/rules/reconcile.js'
import type { MachineState } from '../../../src/core/schema.js'
import { readMachineState } from '../../../src/statefile/machine-state.js'
import { createStateFile } from '../../../src/statefile/template.js'
import {
  MINUTE,
  START,
  awaitingApproval,
  begin,
  fresh,
  redAttempts,
  sha,
  sig
} from '../ledger-helpers.js'

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
        waiting: null,
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

/** The Machine State rows the ledger's last write sets (what the projection puts into `<program>.md`). */
const lastWrite = (ledger: Ledger) => ledger.writes[ledger.writes.length - 1]

describe('decideInFlight: attempts of runs that are gone, decided at the write', () => {
  const running = new Map<number, RunLiveness>([[0, 'running']])
  const finished = new Map<number, RunLiveness>([[0, 'finished']])
  const late = START + 61 * MINUTE

  const none = new Map<number, RunLiveness>()
  it.each([
    ['its run still runs', 'unchanged', running, active, START + MINUTE],
    ['its run finished, time left', 'abandoned', finished, active, START + MINUTE],
    ['its run finished, the wall clock spent', 'abandoned-and-paused', finished, active, late],
    ['its run finished, spent, paused already', 'abandoned', finished, pausedFor('manual'), late],
    ['no run to ask, time left', 'unchanged', none, active, START + MINUTE],
    ['no run to ask, the wall clock spent', 'abandoned-and-paused', none, active, late]
  ] as const)('%s → %s', (_, kind, liveness, machine, now) => {
    expect(decideInFlight({ ledger: inFlight(), machine, liveness, now }).kind).toBe(kind)
  })

  it('abandoned: the attempt is marked, the iteration goes on, nothing paused', () => {
    const outcome = decideInFlight({
      ledger: inFlight(),
      machine: active,
      liveness: finished,
      now: START + MINUTE
    })
    if (outcome.kind !== 'abandoned') throw new Error(outcome.kind)
    expect(outcome.indices).toEqual([0])
    expect(outcome.ledger.attempts.map((a) => a.state)).toEqual(['abandoned'])
    expect(outcome.ledger.iteration?.finishedAt).toBeNull()
    expect(outcome.ledger.writes).toEqual(inFlight().writes)
  })

  it('abandoned and paused: the iteration ends paused `ci-timeout`', () => {
    const outcome = decideInFlight({
      ledger: inFlight(),
      machine: active,
      liveness: finished,
      now: late
    })
    if (outcome.kind !== 'abandoned-and-paused') throw new Error(outcome.kind)
    expect(outcome).toMatchObject({ indices: [0], reason: pauseReason('timeout') })
    expect(outcome.ledger.attempts.map((a) => a.state)).toEqual(['abandoned'])
    expect(outcome.ledger.iteration?.outcome).toBe('paused')
    expect(lastWrite(outcome.ledger)).toMatchObject({
      machineState: { paused: true, pauseReason: pauseReason('timeout') },
      pauseKind: 'timeout'
    })
  })

  it('an iteration that ended meanwhile: nothing to abandon', () => {
    const ended = finishIteration(inFlight(), 'paused', START)
    expect(
      decideInFlight({ ledger: ended, machine: active, liveness: finished, now: late }).kind
    ).toBe('unchanged')
  })
})

describe('decideUnfixed: a red attempt nobody fixed, decided at the write', () => {
  const red = redAttempts([sig('a')])
  const blocked = awaitingApproval()
  const noFix: UnfixedCause = { kind: 'no-fix', blocked }
  const ended: UnfixedCause = { kind: 'fixer-ended', runId: 4242 }
  const expired: UnfixedCause = { kind: 'expired' }
  const now = START + 30 * MINUTE
  const decideOn = (
    cause: UnfixedCause,
    ledger: Ledger = red,
    machine: MachineState = active,
    fixerIndex: number | null = 0
  ) => decideUnfixed({ ledger, machine, cause, fixerIndex, now })

  it.each([
    ['no fix could arrive', 'blocked', noFix, pauseReason('blocked', blocked.cause), 1],
    ['the fixer run ended without gating', 'stuck', ended, pauseReason('stuck', sig('a').short), 2],
    ['the wall clock ran out', 'timeout', expired, pauseReason('timeout'), 1]
  ] as const)('%s → paused %s', (_, pauseKind, cause, reason, attempts) => {
    const outcome = decideOn(cause)
    if (outcome.kind !== 'paused') throw new Error(outcome.kind)
    expect(outcome).toMatchObject({ pauseKind, reason })
    expect(outcome.ledger.attempts).toHaveLength(attempts)
    expect(outcome.ledger.iteration?.outcome).toBe('paused')
    expect(lastWrite(outcome.ledger)).toMatchObject({
      machineState: { paused: true, pauseReason: reason },
      pauseKind
    })
    // The attempt the pause settles keeps the red attempt's failures, with why in its note.
    const settled = outcome.ledger.attempts[attempts - 1]!
    expect(settled.signature?.hash).toBe(sig('a').hash)
    expect(settled.note).toBe(cause.kind === 'no-fix' ? blocked.cause : unfixedWhy(cause))
  })

  it('the fixer pushed nothing: a new attempt on the same commit, by the fixer run', () => {
    const outcome = decideOn(ended)
    if (outcome.kind !== 'paused') throw new Error(outcome.kind)
    expect(outcome.ledger.attempts[1]).toMatchObject({
      index: 1,
      sha: sha(0),
      noNewCommit: true,
      runId: 4242,
      state: 'red'
    })
  })

  it.each([
    ['paused meanwhile', red, pausedFor('manual'), 0],
    ['the iteration ended', finishIteration(red, 'paused', START), active, 0],
    ['a newer attempt than the one whose fixer was read', red, active, 3],
    ['the latest attempt is not red', inFlight(), active, null]
  ] as const)('%s → unchanged', (_, ledger, machine, fixerIndex) => {
    for (const cause of [noFix, ended, expired])
      expect(decideOn(cause, ledger, machine, fixerIndex)).toEqual({ kind: 'unchanged' })
  })
})

describe('liftsPause: the verdict on the watched head', () => {
  it.each([
    ['green', 'green', true],
    ['green', 'red', false],
    ['green', 'pending', false],
    ['green', 'no-checks', false],
    ['verdict', 'green', true],
    ['verdict', 'red', true],
    ['verdict', 'pending', false],
    ['verdict', 'no-checks', false],
    ['base-green', 'green', true],
    ['base-green', 'red', false]
  ] as const)('resume on %s, head %s → %s', (when: ResumeWhen, verdict, lifts) => {
    expect(liftsPause(when, verdict)).toBe(lifts)
  })
})

describe('decideResume: the pause lifted at the write, if it is still the one read', () => {
  const reason = pauseReason('stuck', 'a')
  const ledger = redAttempts([sig('a')])
  const now = START + 90 * MINUTE

  it.each([
    ['still paused for the reason read', 'resumed', pausedFor(reason)],
    ['paused for another reason meanwhile', 'pause-changed', pausedFor('manual')],
    ['no longer paused', 'pause-changed', active]
  ] as const)('%s → %s', (_, kind, machine) => {
    expect(decideResume({ ledger, machine, pausedFor: reason, now }).kind).toBe(kind)
  })

  it('resumed: Paused and Pause Reason cleared, nothing else', () => {
    const outcome = decideResume({ ledger, machine: pausedFor(reason), pausedFor: reason, now })
    if (outcome.kind !== 'resumed') throw new Error(outcome.kind)
    expect(lastWrite(outcome.ledger)?.machineState).toEqual({ paused: false, pauseReason: null })
    expect(outcome.ledger.attempts).toEqual(ledger.attempts)
  })
})

describe('wroteFiles: whether a step wrote the program (so it is projected already)', () => {
  it.each([
    [{ kind: 'abandoned', attempts: ['attempt 0'] }, true],
    [{ kind: 'paused', reason: 'ci-timeout', why: 'wall clock spent', advice: null }, true],
    [{ kind: 'resumed', why: 'green' }, true],
    [{ kind: 'left-paused', why: 'red' }, false],
    [{ kind: 'pause-changed' }, false],
    [{ kind: 'reprojected' }, false]
  ] as const)('%j → %s', (step, wrote) => {
    expect(wroteFiles([step as Happened])).toBe(wrote)
  })
})
