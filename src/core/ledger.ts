/**
 * The ledger: the authoritative record of a program's CI fix loop, kept as its own versioned
 * JSON file, `ci-gate/<program>.json`, beside `<program>.md` in the same store. gh-aw's memory
 * push copies only root `*.md` files, so no other run's memory push can revert it; the
 * Machine State rows the action owns and the `## 🚦 CI Gate` section are projections of it
 * (`statefile/projection.ts`). README: "The ledger".
 *
 * Pure: every operation takes a ledger and returns a new one; time comes in as epoch ms.
 *
 * Lifecycle of an iteration's attempts:
 * - `beginAttempt` before waiting on a SHA (the attempt is written `in-flight` with the run id,
 *   so another run can tell it was abandoned). What it means depends on what the ledger holds
 *   (`BeginKind`): a new iteration, the next fix attempt, a re-run of the same workflow run
 *   (the attempt is re-used, never counted twice), the same SHA left by another run in flight
 *   (re-used), the same red SHA gated by another run (the fixer pushed nothing: a new attempt
 *   with the previous signature), or the SHA an ended iteration already gated (nothing to do).
 * - `completeAttempt` with the verdict; `green` ends the iteration.
 * - `finishIteration` ends an iteration that did not end green: a pause, a `record`, a reset.
 *
 * Beyond the iteration, the ledger keeps what must survive it: the signatures the loop paused
 * on (a reset does not forget them), the failures of the base branch head per base SHA, and
 * the log of Machine State writes the projection re-applies when `<program>.md` was reverted.
 *
 * This module is the ledger's one import path; its parts live under `ledger/`, in the order
 * below: the model, its attempts, beginning and completing one, what survives the iteration,
 * and the size bound with the file's text.
 */

export {
  LEDGER_VERSION,
  LEDGER_LIMITS,
  LedgerSchema,
  ledgerPath,
  hashKey,
  emptyLedger,
  type AttemptState,
  type Ledger,
  type Attempt,
  type AttemptDetail,
  type Iteration,
  type Classification,
  type Rerun,
  type Dispatch,
  type PausedSignature,
  type BaseFailures,
  type StateWrite,
  type SignatureLike
} from './ledger/model.js'

export {
  latestAttempt,
  inFlightAttempts,
  isIterationOpen,
  attemptAt,
  updateAttempt
} from './ledger/attempts.js'

export {
  awaitsFix,
  beginKind,
  beginAttempt,
  appendNoNewCommit,
  type BeginAttemptInput,
  type BeganAttempt
} from './ledger/begin.js'

export {
  signatureRecord,
  completeAttempt,
  finishIteration,
  type AttemptVerdict
} from './ledger/complete.js'

export { rememberPausedSignature, pausedSignatureOf, withStateWrite } from './ledger/lasting.js'

export { compactLedger, ledgerBytes, serializeLedger } from './ledger/compact.js'
