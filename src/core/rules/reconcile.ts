/**
 * What `reconcile` decides about one program, pure (docs/commands.md: "reconcile"). From the program's
 * files alone it knows whether the program is idle (nothing to do, nothing to read from the
 * REST API) or what it must look at: the runs of attempts left in flight, the fixer run a red
 * attempt started, the head of a CI-paused program's branch, a wall clock that ran out while
 * nobody gated; and whether `<program>.md` lost what the ledger says (another run's memory
 * push reverted it), in which case it is projected again.
 *
 * Once it has looked, what it does to the files is decided here too, on the files as they are
 * at the write (a compare-and-swap retry decides again from the new text): `decideInFlight`,
 * `decideUnfixed`, `decideResume` each return what to write, or that nothing is to be done;
 * the command only writes it.
 */
import type { Verdict } from '../checks/reduce.js'
import type { WorkflowRunState } from '../github.js'
import type { MachineState } from '../schema.js'
import type { Blocked } from './classify.js'
import { deadlineOf, noProgressPause, repeatedVerdict } from './guard.js'
import {
  appendNoNewCommit,
  awaitsFix,
  completeAttempt,
  inFlightAttempts,
  isIterationOpen,
  latestAttempt,
  withStateWrite,
  type Attempt,
  type Ledger
} from '../ledger.js'
import { pauseInLedger, pauseKindIn, type PauseInput } from './pause.js'
import { isCiPause, pauseReason, type PauseKind } from './pause-reasons.js'

/** Whether a run is still running, as far as `reconcile` can tell. */
export type RunLiveness = 'running' | 'finished' | 'unknown'

export function livenessOf(
  state: WorkflowRunState,
  attempt: Pick<Attempt, 'runAttempt'>
): RunLiveness {
  if (state.kind === 'not-found') return 'finished'
  if (state.kind === 'forbidden') return 'unknown'
  if (state.status !== 'completed') {
    // A newer attempt of the same run is running: the attempt that wrote ours is gone.
    const newer =
      attempt.runAttempt !== null &&
      state.runAttempt !== null &&
      state.runAttempt > attempt.runAttempt
    return newer ? 'finished' : 'running'
  }
  return 'finished'
}

/**
 * What lifts a CI pause: every check green on the branch head (`green`), any verdict there
 * (`verdict`: a `blocked` pause), every check green on the base branch (`base-green`).
 */
export type ResumeWhen = 'green' | 'verdict' | 'base-green'

export interface ReconcilePlan {
  /** In-flight attempts whose run must be looked up (those with a run id). */
  inFlight: Attempt[]
  /**
   * The attempt begun with `wait: false` that waits for `settle`: reconcile settles it when
   * CI has finished (the safety net for an event that never came). Its run ended at once, so
   * it is never abandoned for that.
   */
  waiting: Attempt | null
  /** The red latest attempt whose dispatched fixer run must be looked up. */
  fixer: Attempt | null
  /** The iteration waits on a fix that did not come and its wall clock is spent. */
  expired: boolean
  /** The program is paused by the CI gate: look at its branch head. */
  resume: ResumeWhen | null
  /** `<program>.md` lags the ledger: project it again. */
  reproject: boolean
}

/** What must be looked at (see the module comment); nothing at all for an idle program. */
export function planReconcile(
  files: { ledger: Ledger; machine: MachineState; stale: boolean },
  now: number
): ReconcilePlan {
  const { ledger, machine } = files
  const open = isIterationOpen(ledger)
  const latest = latestAttempt(ledger)
  const redAndWaiting = open && !machine.paused && latest !== undefined && awaitsFix(latest.state)
  const spent = isIterationOpen(ledger) && now > deadlineOf(ledger.iteration)
  const kind = pauseKindIn(ledger, machine)
  const waiting =
    open && !machine.paused && latest?.state === 'in-flight' && latest.waits ? latest : null
  return {
    inFlight: open ? inFlightAttempts(ledger).filter((attempt) => !attempt.waits) : [],
    waiting,
    fixer: redAndWaiting && latest?.dispatch?.state === 'sent' ? latest : null,
    expired: redAndWaiting && spent,
    resume: isCiPause(kind)
      ? kind === 'blocked'
        ? 'verdict'
        : kind === 'base-red'
          ? 'base-green'
          : 'green'
      : null,
    reproject: files.stale
  }
}

export function isIdle(plan: ReconcilePlan): boolean {
  return (
    plan.inFlight.length === 0 &&
    plan.waiting === null &&
    plan.fixer === null &&
    !plan.expired &&
    plan.resume === null &&
    !plan.reproject
  )
}

/**
 * The in-flight attempts of an open iteration that nothing is waiting on any more: their
 * run has finished (or is gone), or, when the run cannot be told (no run id, no permission),
 * the iteration's wall clock is spent.
 */
export function staleAttempts(
  ledger: Ledger,
  liveness: ReadonlyMap<number, RunLiveness>,
  now: number
): Attempt[] {
  if (!isIterationOpen(ledger)) return []
  const spent = now > deadlineOf(ledger.iteration)
  return inFlightAttempts(ledger).filter((attempt) => {
    if (attempt.waits) return false
    const state = liveness.get(attempt.index) ?? 'unknown'
    return state === 'finished' || (state === 'unknown' && spent)
  })
}

/** What became of the attempts left in flight, decided on the ledger at the write. */
export type InFlightOutcome =
  /** None is stale any more (their runs still run, or another writer settled them). */
  | { kind: 'unchanged' }
  /** Attempts `indices` marked abandoned. */
  | { kind: 'abandoned'; indices: number[]; ledger: Ledger }
  /** Marked abandoned, and with nothing left in flight and the wall clock spent: paused. */
  | { kind: 'abandoned-and-paused'; indices: number[]; reason: string; ledger: Ledger }

/**
 * In-flight attempts nothing waits on any more (`staleAttempts`) are marked abandoned; once
 * none is left in flight, an unpaused program whose wall clock is spent pauses `ci-timeout`
 * on its latest attempt.
 */
export function decideInFlight(read: {
  ledger: Ledger
  machine: MachineState
  liveness: ReadonlyMap<number, RunLiveness>
  now: number
}): InFlightOutcome {
  const { machine, now } = read
  const stale = staleAttempts(read.ledger, read.liveness, now)
  if (stale.length === 0) return { kind: 'unchanged' }
  let ledger = read.ledger
  for (const attempt of stale)
    ledger = completeAttempt(ledger, attempt.index, { state: 'abandoned', now })
  const indices = stale.map((attempt) => attempt.index)
  const latest = latestAttempt(ledger)
  const spent = isIterationOpen(ledger) && now > deadlineOf(ledger.iteration)
  if (!latest || !spent || machine.paused || inFlightAttempts(ledger).length > 0)
    return { kind: 'abandoned', indices, ledger }
  const reason = pauseReason('timeout')
  return {
    kind: 'abandoned-and-paused',
    indices,
    reason,
    ledger: pauseInLedger(ledger, machine, {
      index: latest.index,
      verdict: { state: 'abandoned', now },
      kind: 'timeout',
      reason,
      remember: null,
      now
    })
  }
}

/** Why nobody fixed a red attempt, as `reconcile` found out (README: "When no fix arrives"). */
export type UnfixedCause =
  /** No fix could have come (the fixer never ran its agent, gh-aw diverted its push, …). */
  | { kind: 'no-fix'; blocked: Blocked }
  /** The fixer run `runId` ended without gating a new commit: it pushed nothing. */
  | { kind: 'fixer-ended'; runId: number | null }
  /** The wall clock ran out with no fix gated. */
  | { kind: 'expired' }

export type UnfixedOutcome =
  /** The program moved on meanwhile: paused, its iteration ended, a newer attempt, or not red. */
  { kind: 'unchanged' } | { kind: 'paused'; pauseKind: PauseKind; reason: string; ledger: Ledger }

/** The words a pause for `cause` gives in the summary and the log. */
export function unfixedWhy(cause: UnfixedCause): string {
  switch (cause.kind) {
    case 'no-fix':
      return 'no fix could arrive'
    case 'fixer-ended':
      return `the fixer run ${cause.runId} ended without gating a new commit`
    case 'expired':
      return 'no fix was gated before the wall clock ran out'
  }
}

/**
 * A red attempt nobody fixed pauses the program: `ci-blocked` on the attempt itself when no
 * fix could come (no attempt spent); when the fixer run ended without gating, a new attempt
 * with no new commit that the no-progress guard judges (stuck, unless the budget or the wall
 * clock ran out first); `ci-timeout` when the wall clock ran out. `fixerIndex` is the attempt
 * whose fixer run was looked up, if any: the latest attempt must still be that one.
 */
export function decideUnfixed(read: {
  ledger: Ledger
  machine: MachineState
  cause: UnfixedCause
  fixerIndex: number | null
  now: number
}): UnfixedOutcome {
  const { ledger, machine, cause, now } = read
  const latest = latestAttempt(ledger)
  if (
    !latest ||
    machine.paused ||
    !isIterationOpen(ledger) ||
    latest.index !== (read.fixerIndex ?? latest.index) ||
    !awaitsFix(latest.state)
  )
    return { kind: 'unchanged' }
  switch (cause.kind) {
    case 'no-fix':
      return pausedBy(ledger, machine, {
        index: latest.index,
        verdict: repeatedVerdict(latest, latest.state, now, cause.blocked.cause),
        kind: 'blocked',
        reason: pauseReason('blocked', cause.blocked.cause),
        remember: null,
        now
      })
    case 'fixer-ended': {
      const note = unfixedWhy(cause)
      const began = appendNoNewCommit(ledger, {
        sha: latest.sha,
        agentSha: latest.agentSha ?? null,
        runId: latest.dispatch?.runId ?? cause.runId,
        now,
        maxFixAttempts: ledger.iteration.maxFixAttempts,
        timeoutMinutes: ledger.iteration.timeoutMinutes
      })
      const judged = noProgressPause(began.ledger, began.attempt.index, now, note)
      return pausedBy(began.ledger, machine, {
        index: began.attempt.index,
        verdict: judged.verdict,
        kind: judged.kind,
        reason: judged.reason,
        remember: judged.remember,
        now
      })
    }
    case 'expired':
      return pausedBy(ledger, machine, {
        index: latest.index,
        verdict: repeatedVerdict(latest, latest.state, now, unfixedWhy(cause)),
        kind: 'timeout',
        reason: pauseReason('timeout'),
        remember: null,
        now
      })
  }
}

/** The outcome of pausing the ledger as `pause` says. */
function pausedBy(ledger: Ledger, machine: MachineState, pause: PauseInput): UnfixedOutcome {
  return {
    kind: 'paused',
    pauseKind: pause.kind,
    reason: pause.reason,
    ledger: pauseInLedger(ledger, machine, pause)
  }
}

/** Whether the verdict on the watched head lifts the pause (see `ResumeWhen`). */
export function liftsPause(when: ResumeWhen, verdict: Verdict['kind']): boolean {
  return when === 'verdict' ? verdict === 'green' || verdict === 'red' : verdict === 'green'
}

export type ResumeOutcome =
  /** The pause is no longer the one reconcile looked at (lifted, or paused again for another reason). */
  | { kind: 'pause-changed' }
  /** Paused and Pause Reason cleared. */
  | { kind: 'resumed'; ledger: Ledger }

/** Lifts the pause reconcile found (`pausedFor`), when it is still the program's pause. */
export function decideResume(read: {
  ledger: Ledger
  machine: MachineState
  pausedFor: string | null
  now: number
}): ResumeOutcome {
  if (!read.machine.paused || read.machine.pauseReason !== read.pausedFor)
    return { kind: 'pause-changed' }
  return {
    kind: 'resumed',
    ledger: withStateWrite(
      read.ledger,
      { machineState: { paused: false, pauseReason: null } },
      read.now
    )
  }
}

/**
 * What reconcile did to a program, in order. A program may see more than one: attempts
 * abandoned and then a pause (the wall clock, a fixer that pushed nothing) or a resume; a
 * pause left alone and its state file projected again.
 */
export type Happened =
  | { kind: 'abandoned'; attempts: string[] }
  | { kind: 'paused'; reason: string; why: string; advice: string | null }
  | { kind: 'resumed'; why: string }
  | { kind: 'left-paused'; why: string }
  /**
   * A waiting attempt (`wait: false`) looked at: settled (`status`, and the pause reason when
   * the settlement paused the program), or still waiting.
   */
  | { kind: 'settled'; status: string; why: string; pause?: string }
  | { kind: 'pause-changed' }
  /** `<program>.md` projected from the ledger again, with no other write to do it. */
  | { kind: 'reprojected' }

/** Whether reconcile wrote the program's files (any write projects the ledger again). */
export function wroteFiles(happened: readonly Happened[]): boolean {
  return happened.some(
    (step) =>
      step.kind === 'abandoned' ||
      step.kind === 'paused' ||
      step.kind === 'resumed' ||
      (step.kind === 'settled' && step.status !== 'waiting')
  )
}

/** What reconcile found and did, per program. */
export type ProgramOutcome =
  /** `<program>.md` was listed but is gone. */
  | { kind: 'deleted'; program: string }
  /** Reading or writing failed: its files are left as they were. */
  | { kind: 'failed'; program: string; state: string; reason: string }
  | {
      kind: 'reconciled'
      program: string
      /** The program's state as found: active, paused: <reason>, completed. */
      state: string
      happened: Happened[]
      /** `<program>.md` lagged the ledger and is projected again (by a write of its own or another). */
      reprojected: boolean
    }

export const resumedIn = (outcome: ProgramOutcome): boolean =>
  outcome.kind === 'reconciled' && outcome.happened.some((step) => step.kind === 'resumed')

export const abandonedIn = (outcome: ProgramOutcome): boolean =>
  outcome.kind === 'reconciled' && outcome.happened.some((step) => step.kind === 'abandoned')

/** The pause a step made, if it made one (a settled waiting attempt may pause the program). */
export function pauseOf(step: Happened): string | null {
  if (step.kind === 'paused') return step.reason
  return step.kind === 'settled' ? (step.pause ?? null) : null
}

/** The pauses reconcile made of a program, as the `paused` output lists them. */
export const pausesIn = (outcome: ProgramOutcome): { program: string; reason: string }[] =>
  outcome.kind === 'reconciled'
    ? outcome.happened.flatMap((step) => {
        const reason = pauseOf(step)
        return reason === null ? [] : [{ program: outcome.program, reason }]
      })
    : []
