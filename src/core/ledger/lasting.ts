/**
 * What survives the iteration: the signatures the loop paused on (a reset does not forget
 * them) and the log of Machine State writes the projection re-applies when `<program>.md` was
 * reverted.
 */
import { cut } from '../text/untrusted.js'
import {
  LEDGER_LIMITS,
  hashKey,
  iso,
  type Ledger,
  type PausedSignature,
  type SignatureLike,
  type StateWrite
} from './model.js'

/**
 * Remembers the signature a pause stopped on (see `PausedSignatureSchema`). A signature
 * remembered already keeps its first entry: when and why it first stuck, and who reset it.
 */
export function rememberPausedSignature(
  ledger: Ledger,
  pause: { signature: Pick<SignatureLike, 'hash' | 'short'>; reason: string; now: number }
): Ledger {
  const key = hashKey(pause.signature.hash)
  if (ledger.pausedSignatures.some((paused) => paused.hash === key)) return ledger
  const entry: PausedSignature = {
    hash: key,
    short: cut(pause.signature.short, LEDGER_LIMITS.maxShortChars),
    reason: cut(pause.reason, LEDGER_LIMITS.maxNoteChars),
    pausedAt: iso(pause.now),
    iterationId: ledger.iteration?.id ?? '',
    resetAt: null,
    resetBy: null
  }
  return {
    ...ledger,
    pausedSignatures: [...ledger.pausedSignatures, entry].slice(-LEDGER_LIMITS.maxPausedSignatures)
  }
}

/** The paused signature `hash` matches, when the loop paused on it before. */
export function pausedSignatureOf(ledger: Ledger, hash: string): PausedSignature | undefined {
  const key = hashKey(hash)
  return ledger.pausedSignatures.find((paused) => paused.hash === key)
}

/** Appends a Machine State write (and history entry) under the ledger's next revision. */
export function withStateWrite(
  ledger: Ledger,
  write: Omit<StateWrite, 'revision' | 'at'>,
  now: number
): Ledger {
  const entry: StateWrite = { revision: ledger.revision + 1, at: iso(now), ...write }
  return { ...ledger, writes: [...ledger.writes, entry].slice(-LEDGER_LIMITS.maxWrites) }
}
