/**
 * The size bound: `compactLedger` keeps the ledger within `LEDGER_LIMITS`, measured on the bytes
 * of its file's text (`serializeLedger`).
 */
import { cut } from '../text/untrusted.js'
import { LEDGER_LIMITS, hashKey, type Attempt, type BaseFailures, type Ledger } from './model.js'

/** An older attempt's record: its signature's full key set stays, the rest of its details go. */
function withoutDetails(attempt: Attempt): Attempt {
  const { failingChecks, errorLines, details, classification, reruns, ...rest } = attempt
  void failingChecks
  void errorLines
  void details
  void classification
  void reruns
  const signature = attempt.signature && {
    hash: attempt.signature.hash,
    short: attempt.signature.short,
    keyCount: attempt.signature.keyCount,
    ...(attempt.signature.keys ? { keys: attempt.signature.keys } : {}),
    ...(attempt.signature.cut ? { cut: true } : {})
  }
  return { ...rest, signature }
}

/** An attempt's record with nothing but its hash (dropped last, when even the key sets do not fit). */
function withoutKeys(attempt: Attempt): Attempt {
  const bare = withoutDetails(attempt)
  const signature = bare.signature && {
    hash: bare.signature.hash,
    short: bare.signature.short,
    keyCount: bare.signature.keyCount
  }
  return { ...bare, signature }
}

function hasDetails(attempt: Attempt): boolean {
  return (
    attempt.failingChecks !== undefined ||
    attempt.errorLines !== undefined ||
    attempt.details !== undefined ||
    attempt.classification !== undefined ||
    attempt.reruns !== undefined ||
    attempt.signature?.full !== undefined
  )
}

/** Halves the detail lists of an attempt; once they are empty, drops them. */
function shrinkDetails(attempt: Attempt): Attempt {
  const half = <T>(list: T[] | undefined): T[] | undefined =>
    list?.slice(0, Math.floor(list.length / 2))
  const lists = [
    attempt.failingChecks,
    attempt.errorLines,
    attempt.details,
    attempt.signature?.keys,
    attempt.classification?.preExisting
  ]
  if (lists.every((list) => list === undefined || list.length === 0)) return withoutKeys(attempt)
  return {
    ...attempt,
    failingChecks: half(attempt.failingChecks),
    errorLines: half(attempt.errorLines),
    details: half(attempt.details),
    ...(attempt.classification
      ? {
          classification: {
            ...attempt.classification,
            preExisting: half(attempt.classification.preExisting) ?? []
          }
        }
      : {}),
    signature: attempt.signature && {
      ...attempt.signature,
      keys: half(attempt.signature.keys),
      full: attempt.signature.full === undefined ? undefined : cut(attempt.signature.full, 200),
      cut: true
    }
  }
}

/** The base failures when within `maxBaseChecks` and `maxBaseKeysPerCheck`, else null. */
function baseFailuresWithinLimits(base: BaseFailures | null): BaseFailures | null {
  if (!base) return null
  const { maxBaseChecks, maxBaseKeysPerCheck } = LEDGER_LIMITS
  const whole =
    base.checks.length <= maxBaseChecks &&
    base.checks.every((check) => check.keys.length <= maxBaseKeysPerCheck)
  return whole ? base : null
}

export function ledgerBytes(ledger: Ledger): number {
  return Buffer.byteLength(serializeLedger(ledger), 'utf8')
}

/**
 * Keeps the ledger within `LEDGER_LIMITS`. Always: attempts older than the latest
 * `detailedAttempts` keep no details, and there are at most `maxAttemptRecords` records (a
 * dropped record leaves its cut signature hash in `earlierSignatureHashes`, so the
 * no-progress guard still sees it). Then, while the JSON is over `maxBytes`, in this order:
 * drop the oldest records outside the latest `detailedAttempts`; drop the details of the
 * older of those; halve the latest attempt's lists until they are gone; drop the remaining
 * older records; drop the base failures (never kept cut), the oldest writes, the oldest earlier
 * hashes. Base failures over `maxBaseChecks` or `maxBaseKeysPerCheck` are dropped always.
 * The latest attempt's record and the paused signatures always stay.
 */
export function compactLedger(ledger: Ledger): Ledger {
  const { detailedAttempts, maxAttemptRecords, maxEarlierHashes, maxBytes } = LEDGER_LIMITS
  let attempts = ledger.attempts.map((attempt, i, all) =>
    i < all.length - detailedAttempts && hasDetails(attempt) ? withoutDetails(attempt) : attempt
  )
  let earlier = [...ledger.earlierSignatureHashes]
  let writes = [...ledger.writes]
  let baseFailures = baseFailuresWithinLimits(ledger.baseFailures)
  const dropOldest = (): void => {
    const [oldest, ...rest] = attempts
    attempts = rest
    if (oldest?.signature) earlier.push(hashKey(oldest.signature.hash))
  }
  const current = (): Ledger => {
    earlier = earlier
      .filter((hash, i) => earlier.indexOf(hash, i + 1) === -1)
      .slice(-maxEarlierHashes)
    return { ...ledger, earlierSignatureHashes: earlier, attempts, writes, baseFailures }
  }
  const fits = (): boolean => ledgerBytes(current()) <= maxBytes
  const latest = (): Attempt => attempts[attempts.length - 1] as Attempt
  while (attempts.length > maxAttemptRecords) dropOldest()
  // The usual case: it fits, and every step below would only measure it again.
  if (fits()) return current()
  while (attempts.length > detailedAttempts && !fits()) dropOldest()
  for (let i = 0; i < attempts.length - 1 && !fits(); i += 1) {
    attempts[i] = withoutDetails(attempts[i] as Attempt)
  }
  for (let i = 0; i < attempts.length - 1 && !fits(); i += 1) {
    attempts[i] = withoutKeys(attempts[i] as Attempt)
  }
  while (
    attempts.length > 0 &&
    (hasDetails(latest()) || latest().signature?.keys !== undefined) &&
    !fits()
  )
    attempts[attempts.length - 1] = shrinkDetails(latest())
  while (attempts.length > 1 && !fits()) dropOldest()
  // Never kept cut: a list without some keys would count those as new while its SHA matches.
  if (baseFailures && !fits()) baseFailures = null
  while (writes.length > 1 && !fits()) writes = writes.slice(1)
  while (earlier.length > 0 && !fits()) earlier.shift()
  return current()
}

/**
 * The ledger as its file holds it: indented JSON, one field per line, for readable diffs. It
 * stays with the size bound because that bound (`LEDGER_LIMITS.maxBytes`, `compactLedger`) is a
 * bound on these bytes; reading the file back (errors with their line, older versions
 * migrated) is `statefile/ledger-file.ts`.
 */
export function serializeLedger(ledger: Ledger): string {
  return `${JSON.stringify(ledger, null, 2)}\n`
}
