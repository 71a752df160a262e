/**
 * What `reconcile` decides about one program, pure (docs/commands.md: "reconcile"). From the program's
 * files alone it knows whether the program is idle (nothing to do, nothing to read from the
 * REST API) or what it must look at: the runs of attempts left in flight, the fixer run a red
 * attempt started, the head of a CI-paused program's branch, a wall clock that ran out while
 * nobody gated; and whether `<program>.md` lost what the ledger says (another run's memory
 * push reverted it), in which case it is projected again.
 */
import type { WorkflowRunState } from '../github.js'
import type { MachineState } from '../schema.js'
import { deadlineOf } from './guard.js'
import {
  inFlightAttempts,
  isIterationOpen,
  latestAttempt,
  type Attempt,
  type Ledger
} from '../ledger.js'
import { pauseKindIn } from './pause.js'
import { isCiPause } from './pause-reasons.js'

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

export interface ReconcilePlan {
  /** In-flight attempts whose run must be looked up (those with a run id). */
  inFlight: Attempt[]
  /** The red latest attempt whose dispatched fixer run must be looked up. */
  fixer: Attempt | null
  /** The iteration waits on a fix that did not come and its wall clock is spent. */
  expired: boolean
  /** The program is paused by the CI gate: look at its branch head. */
  resume: 'green' | 'verdict' | 'base-green' | null
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
  const redAndWaiting =
    open &&
    !machine.paused &&
    latest !== undefined &&
    (latest.state === 'red' || latest.state === 'no-checks')
  const spent = open && now > deadlineOf(ledger.iteration as NonNullable<Ledger['iteration']>)
  const kind = pauseKindIn(ledger, machine)
  return {
    inFlight: open ? inFlightAttempts(ledger) : [],
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
    const state = liveness.get(attempt.index) ?? 'unknown'
    return state === 'finished' || (state === 'unknown' && spent)
  })
}
