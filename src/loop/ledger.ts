/**
 * The CI fix-loop ledger of the current iteration (SPEC §5), kept in the state file's
 * `## 🚦 CI Gate` section as a versioned JSON block. Pure: every operation takes a ledger
 * and returns a new one; time comes in as epoch milliseconds.
 *
 * Lifecycle, and how the caller signals it:
 * - `beginAttempt` before waiting on a SHA (the attempt is written `in-flight` with the run
 *   id). The latest attempt's SHA again re-uses that attempt (a re-run after a crash is never
 *   counted twice); a new SHA is the next fix attempt; with no ledger, or when the iteration
 *   has finished, a new iteration starts at attempt 0. Earlier attempts still `in-flight`
 *   are marked `abandoned`.
 * - `completeAttempt` with the verdict. A `green` verdict finishes the iteration.
 * - `finishIteration(ledger, 'paused' | 'recorded', now)` is how the caller ends an iteration
 *   that did not end green: after a guard paused the program, or when `record` writes the
 *   iteration's outcome. The next `beginAttempt` then starts a new iteration (except for the
 *   latest SHA of an iteration that ended green, which is re-used: gating it again is a
 *   re-run, not a new iteration).
 * - `reset` removes the section (`clearLedger`).
 *
 * Size: the serialised ledger never exceeds `LEDGER_LIMITS.maxBytes` (see `compactLedger`).
 */
import { z } from 'zod'
import { StateFileError } from '../state/errors.js'
import { readLedgerBlock, removeLedgerBlock, writeLedgerBlock } from '../state/markdown.js'

export const LEDGER_VERSION = 1

/**
 * Bounds that keep the ledger small next to the 30 KiB state file budget. Per-attempt caps
 * apply when an attempt is completed; the rest is enforced by `compactLedger`.
 */
export const LEDGER_LIMITS = {
  /** The serialised JSON block never exceeds this many UTF-8 bytes. */
  maxBytes: 8192,
  /** Only the latest attempts keep their details (keys, full signature, checks, error lines). */
  detailedAttempts: 3,
  /** At most this many attempt records; older ones leave only their signature hash behind. */
  maxAttemptRecords: 24,
  /** Signature hashes of dropped attempts, kept (cut to `hashChars`) for the no-progress guard. */
  maxEarlierHashes: 128,
  hashChars: 16,
  maxErrorLines: 8,
  maxErrorLineChars: 160,
  maxFailingChecks: 6,
  maxCheckNameChars: 100,
  maxCheckConclusionChars: 20,
  maxCheckUrlChars: 200,
  maxKeys: 10,
  maxKeyChars: 160,
  maxFullChars: 500,
  maxShortChars: 160
} as const

export const ATTEMPT_STATES = [
  'in-flight',
  'green',
  'red',
  'no-checks',
  'ci-timeout',
  'abandoned',
  'error'
] as const
export type AttemptState = (typeof ATTEMPT_STATES)[number]

const isoTime = z.iso.datetime({ offset: true })

const SignatureRecordSchema = z.object({
  /** Hash of the full key set: equal hashes, equal signatures. */
  hash: z.string().min(1).max(128),
  /** The one-line form (≤ 160 characters). */
  short: z.string(),
  keyCount: z.number().int().nonnegative(),
  /** Dropped from older attempts; cut to `maxKeys` keys. */
  keys: z.array(z.string()).optional(),
  /** Dropped from older attempts; cut to `maxFullChars`. */
  full: z.string().optional(),
  /** Whether `keys` or `full` were cut (the hash always covers the whole set). */
  cut: z.boolean().optional()
})

const FailingCheckSchema = z.object({
  name: z.string(),
  conclusion: z.string(),
  url: z.string().nullable()
})

const AttemptSchema = z.object({
  /** 0 = the first gate of the iteration, k = the k-th fix. */
  index: z.number().int().nonnegative(),
  sha: z.string().regex(/^[0-9a-f]{7,64}$/, 'must be a lower-case hex commit SHA'),
  runId: z.number().int().nonnegative().nullable(),
  runAttempt: z.number().int().positive().nullable(),
  startedAt: isoTime,
  endedAt: isoTime.nullable(),
  state: z.enum(ATTEMPT_STATES),
  signature: SignatureRecordSchema.nullable(),
  /** Dropped from older attempts. */
  failingChecks: z.array(FailingCheckSchema).optional(),
  /** First error lines, already sanitised by the caller. Dropped from older attempts. */
  errorLines: z.array(z.string()).optional()
})

const IterationSchema = z.object({
  /** `<first gate's ISO start>/<first SHA, 12 digits>`. */
  id: z.string().min(1),
  /** When the iteration's first gate started: the wall clock counts from here. */
  startedAt: isoTime,
  finishedAt: isoTime.nullable(),
  outcome: z.enum(['green', 'paused', 'recorded']).nullable()
})

export const LedgerSchema = z.object({
  version: z.literal(LEDGER_VERSION),
  iteration: IterationSchema,
  /** Cut signature hashes of attempts whose records were dropped, oldest first. */
  earlierSignatureHashes: z.array(z.string()),
  /** Oldest first; never empty; indexes increase by one. */
  attempts: z.array(AttemptSchema).min(1)
})

export type Ledger = z.infer<typeof LedgerSchema>
export type Attempt = z.infer<typeof AttemptSchema>
export type SignatureRecord = z.infer<typeof SignatureRecordSchema>
export type FailingCheck = z.infer<typeof FailingCheckSchema>
export type IterationOutcome = NonNullable<Ledger['iteration']['outcome']>

/** What the ledger needs of a failure signature (`signatureOf` from src/signature provides it). */
export interface SignatureLike {
  hash: string
  short: string
  keys?: readonly string[]
  full?: string
}

function iso(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError(`not a time: ${ms}`)
  return new Date(ms).toISOString()
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/** The part of a signature hash the ledger compares. */
export function hashKey(hash: string): string {
  return hash.slice(0, LEDGER_LIMITS.hashChars)
}

export function latestAttempt(ledger: Ledger): Attempt {
  return ledger.attempts[ledger.attempts.length - 1] as Attempt
}

/** Attempts left `in-flight` (by this run or by one that died). */
export function inFlightAttempts(ledger: Ledger): Attempt[] {
  return ledger.attempts.filter((attempt) => attempt.state === 'in-flight')
}

export function isIterationFinished(ledger: Ledger): boolean {
  return ledger.iteration.finishedAt !== null
}

function replaceAttempt(ledger: Ledger, index: number, attempt: Attempt): Ledger {
  return { ...ledger, attempts: ledger.attempts.map((a) => (a.index === index ? attempt : a)) }
}

function attemptAt(ledger: Ledger, index: number): Attempt {
  const attempt = ledger.attempts.find((a) => a.index === index)
  if (!attempt) throw new RangeError(`the ledger has no attempt ${index}`)
  return attempt
}

export interface BeginAttemptInput {
  sha: string
  /** `GITHUB_RUN_ID` of the run that waits on this attempt (null when not in Actions). */
  runId: number | null
  /** `GITHUB_RUN_ATTEMPT`. */
  runAttempt?: number | null
  now: number
}

export interface BeganAttempt {
  ledger: Ledger
  attempt: Attempt
  /** True when the latest attempt's SHA was gated again: no new attempt was counted. */
  reused: boolean
}

function canReuse(ledger: Ledger, sha: string): boolean {
  const outcome = ledger.iteration.outcome
  return latestAttempt(ledger).sha === sha && (outcome === null || outcome === 'green')
}

/** Records the start of a gate on `sha` as an `in-flight` attempt (see the module comment). */
export function beginAttempt(ledger: Ledger | null, input: BeginAttemptInput): BeganAttempt {
  const sha = input.sha.toLowerCase()
  if (!/^[0-9a-f]{7,64}$/.test(sha))
    throw new RangeError(`not a commit SHA: ${JSON.stringify(input.sha)}`)
  const now = iso(input.now)
  const run = { runId: input.runId, runAttempt: input.runAttempt ?? null }
  if (ledger && canReuse(ledger, sha)) {
    const attempt: Attempt = { ...latestAttempt(ledger), ...run, state: 'in-flight', endedAt: null }
    const reopened = {
      ...ledger,
      iteration: { ...ledger.iteration, finishedAt: null, outcome: null }
    }
    const next = compactLedger(replaceAttempt(reopened, attempt.index, attempt))
    return { ledger: next, attempt: latestAttempt(next), reused: true }
  }
  const fresh = (index: number): Attempt => ({
    index,
    sha,
    ...run,
    startedAt: now,
    endedAt: null,
    state: 'in-flight',
    signature: null
  })
  let next: Ledger
  if (ledger && !isIterationFinished(ledger)) {
    const abandoned = ledger.attempts.map((a) =>
      a.state === 'in-flight' ? { ...a, state: 'abandoned' as const, endedAt: now } : a
    )
    next = { ...ledger, attempts: [...abandoned, fresh(latestAttempt(ledger).index + 1)] }
  } else {
    next = {
      version: LEDGER_VERSION,
      iteration: {
        id: `${now}/${sha.slice(0, 12)}`,
        startedAt: now,
        finishedAt: null,
        outcome: null
      },
      earlierSignatureHashes: [],
      attempts: [fresh(0)]
    }
  }
  next = compactLedger(next)
  return { ledger: next, attempt: latestAttempt(next), reused: false }
}

export interface FailingCheckInput {
  name: string
  conclusion: string
  url?: string | null
}

export interface AttemptVerdict {
  state: Exclude<AttemptState, 'in-flight'>
  now: number
  /** The failure signature (for red, no-checks, ci-timeout, error). */
  signature?: SignatureLike | null
  failingChecks?: readonly FailingCheckInput[]
  /** First error lines, already sanitised (untrusted text removed) by the caller. */
  errorLines?: readonly string[]
}

function signatureRecord(signature: SignatureLike): SignatureRecord {
  const allKeys = signature.keys ?? []
  const keys = allKeys
    .slice(0, LEDGER_LIMITS.maxKeys)
    .map((key) => cut(key, LEDGER_LIMITS.maxKeyChars))
  const full = cut(signature.full ?? allKeys.join('; '), LEDGER_LIMITS.maxFullChars)
  const wasCut =
    keys.length < allKeys.length ||
    keys.some((key, i) => key !== allKeys[i]) ||
    full !== (signature.full ?? allKeys.join('; '))
  return {
    hash: signature.hash,
    short: cut(signature.short.replace(/\s+/g, ' '), LEDGER_LIMITS.maxShortChars),
    keyCount: allKeys.length,
    keys,
    full,
    ...(wasCut ? { cut: true } : {})
  }
}

/**
 * Records the verdict of attempt `index`. Lists are cut to the per-attempt limits; a `green`
 * verdict finishes the iteration.
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
      .map((line) => cut(line, LEDGER_LIMITS.maxErrorLineChars))
  }
  let next = replaceAttempt(ledger, index, completed)
  if (verdict.state === 'green' && index === latestAttempt(ledger).index) {
    next = finishIteration(next, 'green', verdict.now)
  }
  return compactLedger(next)
}

/** Ends the iteration (see the module comment); the next gate starts a new one. */
export function finishIteration(ledger: Ledger, outcome: IterationOutcome, now: number): Ledger {
  return { ...ledger, iteration: { ...ledger.iteration, finishedAt: iso(now), outcome } }
}

// ---------------------------------------------------------------------------------------
// Size bound

function withoutDetails(attempt: Attempt): Attempt {
  const { index, sha, runId, runAttempt, startedAt, endedAt, state, signature } = attempt
  const summary = signature && {
    hash: signature.hash,
    short: signature.short,
    keyCount: signature.keyCount
  }
  return { index, sha, runId, runAttempt, startedAt, endedAt, state, signature: summary }
}

function hasDetails(attempt: Attempt): boolean {
  return (
    attempt.failingChecks !== undefined ||
    attempt.errorLines !== undefined ||
    attempt.signature?.keys !== undefined ||
    attempt.signature?.full !== undefined
  )
}

/** Halves the detail lists of an attempt; once they are empty, drops them. */
function shrinkDetails(attempt: Attempt): Attempt {
  const half = <T>(list: T[] | undefined): T[] | undefined =>
    list?.slice(0, Math.floor(list.length / 2))
  const lists = [attempt.failingChecks, attempt.errorLines, attempt.signature?.keys]
  if (lists.every((list) => list === undefined || list.length === 0)) return withoutDetails(attempt)
  return {
    ...attempt,
    failingChecks: half(attempt.failingChecks),
    errorLines: half(attempt.errorLines),
    signature: attempt.signature && {
      ...attempt.signature,
      keys: half(attempt.signature.keys),
      full: attempt.signature.full === undefined ? undefined : cut(attempt.signature.full, 200),
      cut: true
    }
  }
}

export function ledgerBytes(ledger: Ledger): number {
  return new TextEncoder().encode(serializeLedger(ledger)).length
}

/**
 * Keeps the ledger within `LEDGER_LIMITS`. Always: attempts older than the latest
 * `detailedAttempts` keep no details, and there are at most `maxAttemptRecords` records (a
 * dropped record leaves its cut signature hash in `earlierSignatureHashes`, so the
 * no-progress guard still sees it). Then, while the JSON is over `maxBytes`, in this order:
 * drop the oldest records outside the latest `detailedAttempts`; drop the details of the
 * older of those, oldest first; halve the latest attempt's lists until they are gone; drop
 * the remaining older records; drop the oldest earlier hashes. The latest attempt's record
 * always stays.
 */
export function compactLedger(ledger: Ledger): Ledger {
  const { detailedAttempts, maxAttemptRecords, maxEarlierHashes, maxBytes } = LEDGER_LIMITS
  let attempts = ledger.attempts.map((attempt, i, all) =>
    i < all.length - detailedAttempts && hasDetails(attempt) ? withoutDetails(attempt) : attempt
  )
  let earlier = [...ledger.earlierSignatureHashes]
  const dropOldest = (): void => {
    const [oldest, ...rest] = attempts
    attempts = rest
    if (oldest?.signature) earlier.push(hashKey(oldest.signature.hash))
  }
  const current = (): Ledger => {
    earlier = earlier
      .filter((hash, i) => earlier.indexOf(hash, i + 1) === -1)
      .slice(-maxEarlierHashes)
    return { ...ledger, earlierSignatureHashes: earlier, attempts }
  }
  const fits = (): boolean => ledgerBytes(current()) <= maxBytes
  const latest = (): Attempt => attempts[attempts.length - 1] as Attempt
  while (attempts.length > maxAttemptRecords) dropOldest()
  while (attempts.length > detailedAttempts && !fits()) dropOldest()
  for (let i = 0; i < attempts.length - 1 && !fits(); i += 1) {
    attempts[i] = withoutDetails(attempts[i] as Attempt)
  }
  while (hasDetails(latest()) && !fits()) attempts[attempts.length - 1] = shrinkDetails(latest())
  while (attempts.length > 1 && !fits()) dropOldest()
  while (earlier.length > 0 && !fits()) earlier.shift()
  return current()
}

// ---------------------------------------------------------------------------------------
// Serialising into the state file

/**
 * The JSON block: one attempt per line (readable diffs), and `|`, backticks and `<` written
 * as `\u` escapes so no cell-like run, fence or HTML can appear in the state file.
 */
export function serializeLedger(ledger: Ledger): string {
  const { attempts, ...head } = ledger
  const headJson = JSON.stringify(head)
  const lines = [
    `${headJson.slice(0, -1)},"attempts":[`,
    ...attempts.map((attempt, i) => JSON.stringify(attempt) + (i < attempts.length - 1 ? ',' : '')),
    ']}'
  ]
  return lines
    .join('\n')
    .replace(/\|/g, '\\u007c')
    .replace(/`/g, '\\u0060')
    .replace(/</g, '\\u003c')
}

function ledgerNote(ledger: Ledger): string {
  const latest = latestAttempt(ledger)
  const count = ledger.attempts.length === 1 ? '1 attempt' : `attempt ${latest.index}`
  const finished = ledger.iteration.outcome ? `, iteration ended ${ledger.iteration.outcome}` : ''
  return (
    `🤖 *CI fix loop of the current iteration (${count}: ${latest.state} on ${latest.sha.slice(0, 7)}${finished}). ` +
    'Written by autoloop-ci-gate; do not edit, run the reset command to clear it.*'
  )
}

function ledgerError(text: string, line: number, reason: string): StateFileError {
  return new StateFileError({
    line,
    lineText: text.split('\n')[line - 1]?.replace(/\r$/, ''),
    reason,
    fix: 'delete the whole "## 🚦 CI Gate" section (the CI fix loop of the current iteration starts over) or run the reset command'
  })
}

/** Validates a parsed JSON block; `text` and `line` locate it for the error message. */
export function parseLedger(json: unknown, text: string, line: number): Ledger {
  const version = (json as { version?: unknown } | null)?.version
  if (typeof version === 'number' && version > LEDGER_VERSION) {
    throw ledgerError(
      text,
      line,
      `the CI Gate ledger has version ${version}, written by a newer autoloop-ci-gate than this one (version ${LEDGER_VERSION})`
    )
  }
  const parsed = LedgerSchema.safeParse(json)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const path = issue?.path.join('.') || '(root)'
  throw ledgerError(
    text,
    line,
    `the CI Gate ledger is invalid at ${path}: ${issue?.message ?? 'unknown'}`
  )
}

/** The ledger stored in a state file, or null when it has no CI Gate section. */
export function readLedger(text: string): Ledger | null {
  const block = readLedgerBlock(text)
  return block ? parseLedger(block.json, text, block.line) : null
}

/** Writes the ledger into the state file's CI Gate section (created after Machine State). */
export function writeLedger(text: string, ledger: Ledger): string {
  // Never write a ledger that would not read back (a caller's bug, e.g. a negative run id).
  const compacted = LedgerSchema.parse(compactLedger(ledger))
  return writeLedgerBlock(text, { note: ledgerNote(compacted), json: serializeLedger(compacted) })
}

/** Removes the ledger (the `reset` command). */
export function clearLedger(text: string): string {
  return removeLedgerBlock(text)
}
