/**
 * The fix-loop guards (SPEC §5), pure. After each red verdict, in this order:
 * 1. no progress: the signature equals that of any earlier attempt of this iteration
 *    (A→B→A is stuck too) → pause `stuck in CI fix loop: <short signature>`;
 * 2. budget: fix attempt `maxFixAttempts` is red → pause `ci-fix-exhausted: <short signature>`;
 * 3. wall clock: more than `timeoutMinutes` since the iteration's first gate (waiting or
 *    between attempts, across workflow runs) → pause `ci-timeout`;
 * 4. otherwise: fix, with `maxFixAttempts - index` attempts left.
 */
import { readMachineState, updateMachineState } from '../state/markdown.js'
import {
  appendRecentStatus,
  sanitizeCellText,
  type MachineState,
  type MachineStatePatch
} from '../state/schema.js'
import { hashKey, type Ledger, type SignatureLike } from './ledger.js'

export type PauseKind = 'stuck' | 'exhausted' | 'timeout'

export type RedDecision =
  | { kind: 'pause'; reason: string; pauseKind: PauseKind }
  | { kind: 'fix'; attemptsRemaining: number }

export interface RedInput {
  /** The index of the attempt that came back red (0 = the first gate). */
  index: number
  /** Its failure signature; `short` (≤ 160 characters, one line) goes into pause reasons. */
  signature: Pick<SignatureLike, 'hash' | 'short'>
  now: number
  maxFixAttempts: number
  timeoutMinutes: number
}

/** The Recent Statuses word a CI pause appends. */
export const CI_PAUSE_STATUS = 'ci-fix-exhausted'

/** The moment (epoch ms) the iteration's wall-clock budget runs out. */
export function deadlineOf(ledger: Ledger, timeoutMinutes: number): number {
  return Date.parse(ledger.iteration.startedAt) + timeoutMinutes * 60_000
}

/** Whether more than `timeoutMinutes` have passed since the iteration's first gate. */
export function isPastDeadline(ledger: Ledger, timeoutMinutes: number, now: number): boolean {
  return now > deadlineOf(ledger, timeoutMinutes)
}

/** Whether an attempt before `index` (or a dropped one) had the same signature. */
export function repeatsEarlierSignature(ledger: Ledger, index: number, hash: string): boolean {
  const key = hashKey(hash)
  return (
    ledger.earlierSignatureHashes.includes(key) ||
    ledger.attempts.some(
      (attempt) =>
        attempt.index < index && attempt.signature && hashKey(attempt.signature.hash) === key
    )
  )
}

export function decideAfterRed(ledger: Ledger, input: RedInput): RedDecision {
  const short = sanitizeCellText(input.signature.short)
  if (repeatsEarlierSignature(ledger, input.index, input.signature.hash)) {
    return { kind: 'pause', pauseKind: 'stuck', reason: `stuck in CI fix loop: ${short}` }
  }
  if (input.index >= input.maxFixAttempts) {
    return { kind: 'pause', pauseKind: 'exhausted', reason: `ci-fix-exhausted: ${short}` }
  }
  if (isPastDeadline(ledger, input.timeoutMinutes, input.now)) {
    return { kind: 'pause', pauseKind: 'timeout', reason: 'ci-timeout' }
  }
  return { kind: 'fix', attemptsRemaining: input.maxFixAttempts - input.index }
}

/**
 * The Machine State rows a CI pause writes: Paused, Pause Reason, Recent Statuses with
 * `ci-fix-exhausted` appended (last 10 kept, newest last) and Last Run.
 */
export function pausePatch(
  state: Pick<MachineState, 'recentStatuses'>,
  pause: { reason: string; now: number }
): MachineStatePatch {
  return {
    paused: true,
    pauseReason: pause.reason,
    recentStatuses: appendRecentStatus(state.recentStatuses, CI_PAUSE_STATUS),
    lastRun: pause.now
  }
}

/** Applies a CI pause to state file text (for `updateState`'s apply: re-read on every retry). */
export function pauseStateText(text: string, pause: { reason: string; now: number }): string {
  return updateMachineState(text, pausePatch(readMachineState(text), pause))
}
