/**
 * A pause written into the ledger, pure: the attempt's verdict, the iteration ended
 * `paused` (except on a blocked commit: its iteration waits, open, for the approval or the CI
 * that lets it be gated, and that commit is then gated with the budget it had), the signature remembered when the pause names one (a reset does not forget it),
 * and the Machine State rows (Paused, Pause Reason, Recent Statuses, Last Run) as a ledger
 * write the projection puts into `<program>.md`. The gate and `reconcile` both pause this way.
 */
import type { MachineState } from '../schema.js'
import { pausePatch } from './guard.js'
import {
  completeAttempt,
  finishIteration,
  rememberPausedSignature,
  withStateWrite,
  type AttemptVerdict,
  type Ledger,
  type SignatureLike
} from '../ledger.js'
import { pauseKindOf, type PauseKind } from './pause-reasons.js'

export interface PauseInput {
  /** The attempt the pause settles, with its verdict. */
  index: number
  verdict: AttemptVerdict
  kind: PauseKind
  reason: string
  /** The signature to remember across resets (stuck and exhausted pauses name one). */
  remember: Pick<SignatureLike, 'hash' | 'short'> | null
  now: number
}

export function pauseInLedger(ledger: Ledger, machine: MachineState, pause: PauseInput): Ledger {
  let next = completeAttempt(ledger, pause.index, pause.verdict)
  if (pause.verdict.state !== 'blocked') next = finishIteration(next, 'paused', pause.now)
  if (pause.remember)
    next = rememberPausedSignature(next, {
      signature: pause.remember,
      reason: pause.reason,
      now: pause.now
    })
  return withStateWrite(
    next,
    {
      machineState: pausePatch(machine, { kind: pause.kind, reason: pause.reason, now: pause.now }),
      pauseKind: pause.kind
    },
    pause.now
  )
}

/**
 * The kind of the pause Machine State shows: as the ledger stored it with the pause, when the
 * reason shown is the one the ledger wrote; otherwise (a pause a maintainer or autoloop wrote,
 * or the write was dropped from the ledger) read from the reason's text. Null when not paused.
 */
export function pauseKindIn(
  ledger: Pick<Ledger, 'writes'>,
  machine: Pick<MachineState, 'paused' | 'pauseReason'>
): PauseKind | null {
  if (!machine.paused) return null
  const write = [...ledger.writes].reverse().find((w) => w.machineState.pauseReason !== undefined)
  if (write?.pauseKind && write.machineState.pauseReason === machine.pauseReason)
    return write.pauseKind
  return pauseKindOf(machine.pauseReason)
}
