/**
 * The fix loop's guards, pure (docs/decisions.md: "The fix loop"). After each red verdict, in order:
 * 1. no progress: the signature equals that of an earlier attempt of this iteration (A→B→A is
 *    stuck too), or one the loop paused on before (a reset does not forget it) → pause
 *    `stuck in CI fix loop: <short signature>`;
 * 2. budget: fix attempt `maxFixAttempts` is red → pause `ci-fix-exhausted: <short signature>`;
 * 3. wall clock: more than `timeoutMinutes` since the iteration's first gate (waiting or
 *    between attempts, across workflow runs) → pause `ci-timeout`;
 * 4. otherwise: fix, with `maxFixAttempts - index` attempts left.
 * The budget and wall clock are the iteration's, as the ledger records them.
 */
import { appendRecentStatus, type MachineState, type MachineStatePatch } from '../schema.js'
import {
  hashKey,
  pausedSignatureOf,
  type Attempt,
  type AttemptVerdict,
  type Iteration,
  type Ledger,
  type PausedSignature,
  type SignatureLike
} from '../ledger.js'
import { missingRequiredChecks } from '../signature/signature.js'
import { CI_PAUSE_STATUS, endsFixLoop, pauseReason, type PauseKind } from './pause-reasons.js'

export type RedDecision =
  | {
      kind: 'pause'
      pauseKind: 'stuck' | 'exhausted' | 'timeout'
      reason: string
      /** For `stuck`: the earlier pause on the same signature, when that is what repeats. */
      remembered?: PausedSignature
    }
  | { kind: 'fix'; attemptsRemaining: number }

interface RedInput {
  /** The index of the attempt that came back red (0 = the first gate). */
  index: number
  /**
   * Its failure signature; `short` (≤ 160 characters, one line) goes into pause reasons, after
   * the names of required checks that never reported (from `keys`, when given).
   */
  signature: Pick<SignatureLike, 'hash' | 'short' | 'keys'>
  now: number
}

/** The moment (epoch ms) the iteration's wall-clock budget runs out. */
export function deadlineOf(iteration: Pick<Iteration, 'startedAt' | 'timeoutMinutes'>): number {
  return Date.parse(iteration.startedAt) + iteration.timeoutMinutes * 60_000
}

/** Whether an attempt of this iteration before `index` (or a dropped one) had the same signature. */
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

/**
 * What a pause reason says of a signature: its one-line form, after the words SPEC §3 gives a
 * required check that never reported (`required check never reported: e2e`).
 */
function reasonDetail(signature: Pick<SignatureLike, 'short' | 'keys'>): string {
  const missing = missingRequiredChecks(signature.keys ?? [])
  if (missing.length === 0) return signature.short
  const words = missing.map((name) => `required check never reported: ${name}`).join(', ')
  return `${words} (signature ${signature.short})`
}

export function decideAfterRed(ledger: Ledger, input: RedInput): RedDecision {
  const iteration = ledger.iteration
  if (!iteration) throw new RangeError('a red verdict needs an iteration in the ledger')
  const short = reasonDetail(input.signature)
  if (repeatsEarlierSignature(ledger, input.index, input.signature.hash))
    return { kind: 'pause', pauseKind: 'stuck', reason: pauseReason('stuck', short) }
  const remembered = pausedSignatureOf(ledger, input.signature.hash)
  if (remembered)
    return { kind: 'pause', pauseKind: 'stuck', reason: pauseReason('stuck', short), remembered }
  if (input.index >= iteration.maxFixAttempts)
    return { kind: 'pause', pauseKind: 'exhausted', reason: pauseReason('exhausted', short) }
  if (input.now > deadlineOf(iteration))
    return { kind: 'pause', pauseKind: 'timeout', reason: pauseReason('timeout') }
  return { kind: 'fix', attemptsRemaining: iteration.maxFixAttempts - input.index }
}

/**
 * The Machine State rows a pause writes: Paused, Pause Reason, Last Run, and for a pause of
 * the fix loop `ci-fix-exhausted` appended to Recent Statuses (last 10 kept, newest last).
 */
export function pausePatch(
  state: Pick<MachineState, 'recentStatuses'>,
  pause: { kind: PauseKind; reason: string; now: number }
): MachineStatePatch {
  return {
    paused: true,
    pauseReason: pause.reason,
    ...(endsFixLoop(pause.kind)
      ? { recentStatuses: appendRecentStatus(state.recentStatuses, CI_PAUSE_STATUS) }
      : {}),
    lastRun: new Date(pause.now).toISOString()
  }
}

/** An attempt's findings carried over under a new verdict: the same failures, seen again. */
export function repeatedVerdict(
  attempt: Attempt,
  state: AttemptVerdict['state'],
  now: number,
  note: string
): AttemptVerdict {
  const signature = attempt.signature
  return {
    state,
    now,
    signature: signature
      ? {
          hash: signature.hash,
          short: signature.short,
          ...(signature.keys ? { keys: signature.keys } : {}),
          ...(signature.full ? { full: signature.full } : {})
        }
      : null,
    failingChecks: attempt.failingChecks ?? [],
    errorLines: attempt.errorLines ?? [],
    ...(attempt.classification ? { classification: attempt.classification } : {}),
    note
  }
}

interface NoProgressPause {
  kind: 'stuck' | 'exhausted' | 'timeout'
  reason: string
  /** The new attempt's verdict: the previous attempt's failures and signature again. */
  verdict: AttemptVerdict
  /** The signature to remember across resets (none for a wall-clock pause). */
  remember: Pick<SignatureLike, 'hash' | 'short'> | null
}

/**
 * The fixer pushed nothing (the branch head did not move since the previous attempt, or its
 * run ended without gating): attempt `index` repeats the previous attempt's failures, so the
 * no-progress guard stops the loop: a fix attempt with an unchanged signature is stuck.
 */
export function noProgressPause(
  ledger: Ledger,
  index: number,
  now: number,
  note: string
): NoProgressPause {
  const previous = [...ledger.attempts].reverse().find((attempt) => attempt.index < index)
  const signature = previous?.signature ?? null
  const decision = signature ? decideAfterRed(ledger, { index, signature, now }) : null
  const kind = decision?.kind === 'pause' ? decision.pauseKind : 'stuck'
  return {
    kind,
    reason:
      decision?.kind === 'pause'
        ? decision.reason
        : pauseReason('stuck', signature ? reasonDetail(signature) : 'no new commit'),
    verdict: previous ? repeatedVerdict(previous, 'red', now, note) : { state: 'red', now, note },
    remember: kind === 'timeout' || !signature ? null : signature
  }
}
