/**
 * Completing an attempt: `completeAttempt` records the verdict, cut to the per-attempt limits
 * (a green one ends the iteration); `finishIteration` ends an iteration that did not end green:
 * a pause, a `record`, a reset.
 */
import { cut } from '../text/untrusted.js'
import {
  LEDGER_LIMITS,
  iso,
  type Attempt,
  type AttemptDetail,
  type AttemptState,
  type Classification,
  type IterationOutcome,
  type Ledger,
  type Rerun,
  type SignatureLike,
  type SignatureRecord
} from './model.js'
import { attemptAt, latestAttempt, replaceAttempt } from './attempts.js'
import { compactLedger } from './compact.js'

export interface AttemptVerdict {
  state: Exclude<AttemptState, 'in-flight'>
  now: number
  /** The failure signature (for red, no-checks, ci-timeout, error). */
  signature?: SignatureLike | null
  failingChecks?: readonly { name: string; conclusion: string; url?: string | null }[]
  /** First error lines, already sanitised (untrusted text removed) by the caller. */
  errorLines?: readonly string[]
  /** Failure details, already redacted by the caller; kept whole up to `maxDetailBytes`. */
  details?: readonly AttemptDetail[]
  classification?: Classification
  /** The re-runs' outcomes, once known: they replace the entries recorded when requested. */
  reruns?: readonly Rerun[]
  note?: string
}

/** `recorded` with each re-run replaced by its settled form in `settled` (same run, same request time). */
function settleReruns(recorded: readonly Rerun[], settled: readonly Rerun[]): Rerun[] {
  const same = (a: Rerun, b: Rerun) =>
    a.workflowRunId === b.workflowRunId && a.requestedAt === b.requestedAt
  const kept = recorded.map((rerun) => settled.find((s) => same(s, rerun)) ?? rerun)
  return [...kept, ...settled.filter((s) => !recorded.some((rerun) => same(s, rerun)))]
}

export function signatureRecord(signature: SignatureLike): SignatureRecord {
  const allKeys = signature.keys ?? []
  const keys = allKeys.map((key) => cut(key, LEDGER_LIMITS.maxKeyChars))
  const full = cut(signature.full ?? allKeys.join('; '), LEDGER_LIMITS.maxFullChars)
  // `cut`: some key is not whole (the full form is only a reading aid and may be cut).
  const wasCut = keys.some((key, i) => key !== allKeys[i])
  return {
    hash: signature.hash,
    short: cut(signature.short.replace(/\s+/g, ' '), LEDGER_LIMITS.maxShortChars),
    keyCount: allKeys.length,
    keys,
    full,
    ...(wasCut ? { cut: true } : {})
  }
}

/** The first failures' details, each whole, within `maxDetailBytes` in all. */
function boundedDetails(details: readonly AttemptDetail[]): AttemptDetail[] {
  const kept: AttemptDetail[] = []
  let bytes = 0
  for (const detail of details) {
    const size = Buffer.byteLength(JSON.stringify(detail), 'utf8')
    if (bytes + size > LEDGER_LIMITS.maxDetailBytes) break
    kept.push({ check: detail.check, key: detail.key, lines: [...detail.lines] })
    bytes += size
  }
  return kept
}

function boundedClassification(classification: Classification): Classification {
  const { maxKeys, maxKeyChars, maxFailingChecks, maxCheckNameChars, maxCheckUrlChars } =
    LEDGER_LIMITS
  const url = (value: string | null) => (value ? cut(value, maxCheckUrlChars) : null)
  return {
    preExisting: classification.preExisting.slice(0, maxKeys).map((key) => cut(key, maxKeyChars)),
    baseSha: classification.baseSha,
    baseNote: classification.baseNote
      ? cut(classification.baseNote, LEDGER_LIMITS.maxNoteChars)
      : null,
    ...(classification.baseChecks
      ? {
          baseChecks: classification.baseChecks
            .slice(0, maxFailingChecks)
            .map((c) => ({ check: cut(c.check, maxCheckNameChars), url: url(c.url) }))
        }
      : {}),
    flaky: classification.flaky
      .slice(0, maxFailingChecks)
      .map((f) => ({ check: cut(f.check, maxCheckNameChars), url: url(f.url) })),
    infrastructure: classification.infrastructure.slice(0, maxFailingChecks).map((f) => ({
      check: cut(f.check, maxCheckNameChars),
      cause: cut(f.cause, LEDGER_LIMITS.maxNoteChars),
      url: url(f.url)
    }))
  }
}

/**
 * Records the verdict of attempt `index`. Lists are cut to the per-attempt limits; a green
 * verdict (also one green except pre-existing failures) on the latest attempt ends the
 * iteration.
 */
export function completeAttempt(ledger: Ledger, index: number, verdict: AttemptVerdict): Ledger {
  const attempt = attemptAt(ledger, index)
  const completed: Attempt = {
    ...attempt,
    state: verdict.state,
    endedAt: iso(verdict.now),
    signature: verdict.signature ? signatureRecord(verdict.signature) : null,
    failingChecks: (verdict.failingChecks ?? [])
      .slice(0, LEDGER_LIMITS.maxFailingChecks)
      .map((check) => ({
        name: cut(check.name, LEDGER_LIMITS.maxCheckNameChars),
        conclusion: cut(check.conclusion, LEDGER_LIMITS.maxCheckConclusionChars),
        url: check.url ? cut(check.url, LEDGER_LIMITS.maxCheckUrlChars) : null
      })),
    errorLines: (verdict.errorLines ?? [])
      .slice(0, LEDGER_LIMITS.maxErrorLines)
      .map((line) => cut(line, LEDGER_LIMITS.maxErrorLineChars)),
    ...(verdict.details && verdict.details.length > 0
      ? { details: boundedDetails(verdict.details) }
      : {}),
    ...(verdict.classification
      ? { classification: boundedClassification(verdict.classification) }
      : {}),
    ...(verdict.reruns && verdict.reruns.length > 0
      ? { reruns: settleReruns(attempt.reruns ?? [], verdict.reruns) }
      : {}),
    ...(verdict.note ? { note: cut(verdict.note, LEDGER_LIMITS.maxAttemptNoteChars) } : {})
  }
  let next = replaceAttempt(ledger, index, completed)
  const latest = latestAttempt(ledger)
  const endsIteration = verdict.state === 'green' || verdict.state === 'green-except-pre-existing'
  if (endsIteration && latest && index === latest.index) {
    next = finishIteration(
      next,
      verdict.state as 'green' | 'green-except-pre-existing',
      verdict.now
    )
  }
  return compactLedger(next)
}

/** Ends the iteration; the next gate starts a new one. */
export function finishIteration(ledger: Ledger, outcome: IterationOutcome, now: number): Ledger {
  if (!ledger.iteration) return ledger
  return { ...ledger, iteration: { ...ledger.iteration, finishedAt: iso(now), outcome } }
}
