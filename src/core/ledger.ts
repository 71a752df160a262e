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
 */
import { z } from 'zod'
import { cut } from './text/untrusted.js'
import { MachineStatePatchSchema } from './schema.js'
import { PAUSE_KINDS } from './rules/pause-reasons.js'
import { WaitsSchema } from './waits.js'

/** The ledger's version; `statefile/ledger-file.ts` migrates the earlier one. */
export const LEDGER_VERSION = 2

/** Where a program's ledger lives in its store. */
export function ledgerPath(program: string): string {
  return `ci-gate/${program}.json`
}

/**
 * Bounds that keep the ledger small. Per-attempt caps apply when an attempt is completed; the
 * rest is enforced by `compactLedger`.
 */
export const LEDGER_LIMITS = {
  /**
   * The serialised ledger never exceeds this many UTF-8 bytes (README: "The ledger"): room for
   * every attempt record's full key set (a few thousand keys) and the latest details.
   */
  maxBytes: 524_288,
  /**
   * Only the latest attempts keep their details (full signature, checks, error lines, failure
   * details); every record keeps its full key set.
   */
  detailedAttempts: 3,
  /** At most this many attempt records; older ones leave only their signature hash behind. */
  maxAttemptRecords: 24,
  /** Signature hashes of dropped attempts, kept (cut to `hashChars`) for the no-progress guard. */
  maxEarlierHashes: 128,
  hashChars: 16,
  maxErrorLines: 12,
  maxErrorLineChars: 240,
  maxFailingChecks: 20,
  maxCheckNameChars: 100,
  maxCheckConclusionChars: 20,
  maxCheckUrlChars: 300,
  /** Pre-existing keys kept per attempt (an attempt's own signature keeps every key). */
  maxKeys: 40,
  maxKeyChars: 160,
  /** Failure details kept for an attempt: whole failures, in order, up to this many UTF-8 bytes. */
  maxDetailBytes: 32_768,
  maxFullChars: 2000,
  maxShortChars: 160,
  /** Signatures the loop paused on, remembered across resets (oldest dropped first). */
  maxPausedSignatures: 16,
  /** Machine State writes kept for re-projection (oldest dropped first). */
  maxWrites: 8,
  /**
   * Base branch failures are kept only whole: more failing checks than this, or more keys in
   * one check than `maxBaseKeysPerCheck`, and they are not kept at all (a cut list would make
   * the dropped keys look new; without a list the gate reads the base head again).
   */
  maxBaseChecks: 30,
  maxBaseKeysPerCheck: 200,
  maxNoteChars: 300,
  /**
   * An attempt's note may hold what a maintainer must do when no fix can help (every cause
   * of silence, named): the brief shows it whole.
   */
  maxAttemptNoteChars: 1600
} as const

const ATTEMPT_STATES = [
  'in-flight',
  'green',
  'green-except-pre-existing',
  'red',
  'no-checks',
  'blocked',
  'ci-timeout',
  'abandoned',
  'error'
] as const
export type AttemptState = (typeof ATTEMPT_STATES)[number]

/** How an iteration ended. */
const ITERATION_OUTCOMES = [
  'green',
  'green-except-pre-existing',
  'paused',
  'recorded',
  'reset'
] as const

const isoTime = z.iso.datetime({ offset: true })
const commitSha = z.string().regex(/^[0-9a-f]{7,64}$/, 'must be a lower-case hex commit SHA')

const SignatureRecordSchema = z.object({
  /** Hash of the full key set: equal hashes, equal signatures. */
  hash: z.string().min(1).max(128),
  /** The one-line form (≤ 160 characters). */
  short: z.string(),
  keyCount: z.number().int().nonnegative(),
  /** Every key (ledgers before failure details kept the first 40 only, with `cut`). */
  keys: z.array(z.string()).optional(),
  /** Dropped from older attempts; cut to `maxFullChars`. */
  full: z.string().optional(),
  /**
   * Whether `keys` are not the whole set as found (a key over `maxKeyChars`, or a ledger from
   * before every key was kept); the hash always covers the whole set.
   */
  cut: z.boolean().optional()
})

const AttemptCheckSchema = z.object({
  name: z.string(),
  conclusion: z.string(),
  url: z.string().nullable()
})

/** Whose failure it is, per key (docs/decisions.md: "Whose failure it is"). */
const ClassificationSchema = z.object({
  /** Keys that also fail on the base branch head: not this iteration's doing. */
  preExisting: z.array(z.string()),
  /** The base branch head they were read on, and why there is nothing to compare with. */
  baseSha: commitSha.nullable(),
  baseNote: z.string().nullable(),
  /** The evidence: the base head's checks that fail with those keys, with their links. */
  baseChecks: z.array(z.object({ check: z.string(), url: z.string().nullable() })).optional(),
  /** Checks that failed, were re-run and passed. */
  flaky: z.array(z.object({ check: z.string(), url: z.string().nullable() })),
  /** Checks whose log shows a failure outside the project's own build and tests. */
  infrastructure: z.array(
    z.object({ check: z.string(), cause: z.string(), url: z.string().nullable() })
  )
})

const RerunSchema = z.object({
  /** The workflow run whose failed jobs were re-run. */
  workflowRunId: z.number().int().positive(),
  requestedAt: isoTime,
  checks: z.array(z.string()),
  why: z.enum(['infrastructure', 'flaky-test']),
  url: z.string().nullable(),
  outcome: z.enum(['passed', 'failed', 'pending', 'refused']),
  /** Which round of re-runs of the attempt (1 = the first), and the failed check runs it replaces. */
  round: z.number().int().positive().optional(),
  replaces: z.record(z.string(), z.number().int().nonnegative()).optional()
})

const DispatchSchema = z.object({
  workflow: z.string(),
  ref: z.string(),
  /** `requested` before the API call, `sent` once GitHub accepted it, `failed` when it refused. */
  state: z.enum(['requested', 'sent', 'failed']),
  requestedAt: isoTime,
  /** The fixer's workflow run, when GitHub said which. */
  runId: z.number().int().positive().nullable(),
  url: z.string().nullable(),
  error: z.string().optional()
})

const AttemptSchema = z.object({
  /** 0 = the first gate of the iteration, k = the k-th fix. */
  index: z.number().int().nonnegative(),
  /** The SHA gated: the branch head (gh-aw's empty CI-trigger commit when there is one). */
  sha: commitSha,
  /** The agent's own commit, when `sha` is gh-aw's empty CI-trigger commit on top of it. */
  agentSha: commitSha.nullable().optional(),
  runId: z.number().int().nonnegative().nullable(),
  runAttempt: z.number().int().positive().nullable(),
  startedAt: isoTime,
  endedAt: isoTime.nullable(),
  state: z.enum(ATTEMPT_STATES),
  /** The signature of the iteration's own failures (pre-existing keys left out). */
  signature: SignatureRecordSchema.nullable(),
  /** Dropped from older attempts. */
  failingChecks: z.array(AttemptCheckSchema).optional(),
  /** First error lines, already sanitised by the caller. Dropped from older attempts. */
  errorLines: z.array(z.string()).optional(),
  /**
   * Per failure, what its tool printed (docs/failure-details.md: "Failure details"), verbatim but for secrets,
   * already redacted by the caller. Kept for the latest attempts only.
   */
  details: z
    .array(z.object({ check: z.string(), key: z.string(), lines: z.array(z.string()) }))
    .optional(),
  /** Gated again by another run with no new commit: the fixer pushed nothing. */
  noNewCommit: z.boolean().optional(),
  classification: ClassificationSchema.optional(),
  reruns: z.array(RerunSchema).optional(),
  dispatch: DispatchSchema.optional(),
  /** Why the attempt ended as it did, in a line (blocked cause, no-checks advice). */
  note: z.string().optional(),
  /** Begun with `wait: false`: what `settle` settles it with (README: "Settling on events"). */
  waits: WaitsSchema.optional()
})

const IterationSchema = z.object({
  /** `<first gate's ISO start>/<first SHA, 12 digits>`. */
  id: z.string().min(1),
  /** When the iteration's first gate started: the wall clock counts from here. */
  startedAt: isoTime,
  finishedAt: isoTime.nullable(),
  outcome: z.enum(ITERATION_OUTCOMES).nullable(),
  /** The budget and wall clock in force (the latest gate's inputs). */
  maxFixAttempts: z.number().int().nonnegative(),
  timeoutMinutes: z.number().positive()
})

const PausedSignatureSchema = z.object({
  hash: z.string().min(1),
  short: z.string(),
  /** The pause reason written then. */
  reason: z.string(),
  pausedAt: isoTime,
  iterationId: z.string(),
  /** Set by `reset`: the program was unpaused without forgetting this failure. */
  resetAt: isoTime.nullable(),
  resetBy: z.string().nullable()
})

const BaseFailuresSchema = z.object({
  branch: z.string(),
  sha: commitSha,
  readAt: isoTime,
  /** `complete`: CI finished on the base head; `no-ci`: nothing ran there. */
  state: z.enum(['complete', 'no-ci']),
  checks: z.array(AttemptCheckSchema.extend({ keys: z.array(z.string()) }))
})

/** A write of Machine State rows (and a history entry), re-applied when the file lost it. */
const StateWriteSchema = z.object({
  revision: z.number().int().positive(),
  at: isoTime,
  machineState: MachineStatePatchSchema,
  /** The kind of the pause this write makes (with Paused and Pause Reason). */
  pauseKind: z.enum(PAUSE_KINDS).optional(),
  historyEntry: z.object({ runKey: z.string(), lines: z.array(z.string()) }).optional()
})

export const LedgerSchema = z
  .object({
    version: z.literal(LEDGER_VERSION),
    program: z.string().min(1),
    /** Incremented by every write; the CI Gate section names the revision it shows. */
    revision: z.number().int().nonnegative(),
    updatedAt: isoTime,
    /** The current (or last) iteration; null before the first gate. */
    iteration: IterationSchema.nullable(),
    /** Cut signature hashes of attempts whose records were dropped, oldest first. */
    earlierSignatureHashes: z.array(z.string()),
    /** Oldest first; indexes increase by one; empty only without an iteration. */
    attempts: z.array(AttemptSchema),
    pausedSignatures: z.array(PausedSignatureSchema),
    baseFailures: BaseFailuresSchema.nullable(),
    writes: z.array(StateWriteSchema)
  })
  .refine((ledger) => (ledger.iteration === null) === (ledger.attempts.length === 0), {
    message: 'an iteration has at least one attempt, and attempts need an iteration',
    path: ['attempts']
  })

export type Ledger = z.infer<typeof LedgerSchema>
export type Attempt = z.infer<typeof AttemptSchema>
export type AttemptDetail = NonNullable<Attempt['details']>[number]
export type Iteration = z.infer<typeof IterationSchema>
type SignatureRecord = z.infer<typeof SignatureRecordSchema>
export type Classification = z.infer<typeof ClassificationSchema>
export type Rerun = z.infer<typeof RerunSchema>
export type Dispatch = z.infer<typeof DispatchSchema>
export type PausedSignature = z.infer<typeof PausedSignatureSchema>
export type BaseFailures = z.infer<typeof BaseFailuresSchema>
export type StateWrite = z.infer<typeof StateWriteSchema>
type IterationOutcome = (typeof ITERATION_OUTCOMES)[number]

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

/** The part of a signature hash the ledger compares. */
export function hashKey(hash: string): string {
  return hash.slice(0, LEDGER_LIMITS.hashChars)
}

/** A ledger with no iteration yet (what `record` or `reset` start from when there is none). */
export function emptyLedger(program: string, now: number): Ledger {
  return {
    version: LEDGER_VERSION,
    program,
    revision: 0,
    updatedAt: iso(now),
    iteration: null,
    earlierSignatureHashes: [],
    attempts: [],
    pausedSignatures: [],
    baseFailures: null,
    writes: []
  }
}

export function latestAttempt(ledger: Ledger): Attempt | undefined {
  return ledger.attempts[ledger.attempts.length - 1]
}

/** Attempts left `in-flight` (by this run or by one that died). */
export function inFlightAttempts(ledger: Ledger): Attempt[] {
  return ledger.attempts.filter((attempt) => attempt.state === 'in-flight')
}

/** Whether the ledger's iteration is still going (not ended, and there is one). */
export function isIterationOpen(
  ledger: Ledger | null
): ledger is Ledger & { iteration: Iteration } {
  return ledger?.iteration != null && ledger.iteration.finishedAt === null
}

function replaceAttempt(ledger: Ledger, index: number, attempt: Attempt): Ledger {
  return { ...ledger, attempts: ledger.attempts.map((a) => (a.index === index ? attempt : a)) }
}

export function attemptAt(ledger: Ledger, index: number): Attempt {
  const attempt = ledger.attempts.find((a) => a.index === index)
  if (!attempt) throw new RangeError(`the ledger has no attempt ${index}`)
  return attempt
}

/** Changes one attempt (by index) with `change`; the rest of the ledger is kept. */
export function updateAttempt(
  ledger: Ledger,
  index: number,
  change: (attempt: Attempt) => Attempt
): Ledger {
  return replaceAttempt(ledger, index, change(attemptAt(ledger, index)))
}

// ---------------------------------------------------------------------------------------
// Beginning an attempt

export interface BeginAttemptInput {
  sha: string
  /** The agent's commit under gh-aw's empty CI-trigger commit `sha`, when there is one. */
  agentSha?: string | null
  /** `GITHUB_RUN_ID` of the run that waits on this attempt (null when not in Actions). */
  runId: number | null
  /** `GITHUB_RUN_ATTEMPT`. */
  runAttempt?: number | null
  now: number
  maxFixAttempts: number
  timeoutMinutes: number
}

/**
 * - `first`: attempt 0 of a new iteration;
 * - `fix`: a new SHA in the open iteration, the next fix attempt (in place of a blocked one,
 *   which was never judged and spent nothing);
 * - `rerun`: the latest SHA again in the same workflow run (a re-run after a crash): re-used;
 * - `resumed`: the latest SHA, left in flight (or abandoned) by another run: re-used;
 * - `no-new-commit`: the latest SHA, already red, gated by another run: the fixer pushed
 *   nothing; a new attempt carrying the previous signature, for the guards to judge;
 * - `already-gated`: the SHA an ended iteration already gated: nothing new to gate.
 */
type BeginKind = 'first' | 'fix' | 'rerun' | 'resumed' | 'no-new-commit' | 'already-gated'

export interface BeganAttempt {
  kind: BeginKind
  ledger: Ledger
  attempt: Attempt
}

/**
 * Attempt states that await a fix: the fixer is to push one, so gating the same SHA again in
 * another run means it pushed nothing, and `record` leaves the iteration to the gate.
 */
const AWAITING_FIX = ['red', 'no-checks'] as const satisfies readonly AttemptState[]

/** Whether an attempt in `state` awaits a fix (see AWAITING_FIX). */
export function awaitsFix(state: AttemptState): state is (typeof AWAITING_FIX)[number] {
  return (AWAITING_FIX as readonly AttemptState[]).includes(state)
}
/** Iteration endings after which the same SHA has nothing new to gate. */
const ACCEPTED_OUTCOMES: ReadonlySet<IterationOutcome | null> = new Set([
  'green',
  'green-except-pre-existing',
  'recorded'
])

function freshAttempt(index: number, input: BeginAttemptInput, sha: string): Attempt {
  return {
    index,
    sha,
    ...(input.agentSha ? { agentSha: input.agentSha.toLowerCase() } : {}),
    runId: input.runId,
    runAttempt: input.runAttempt ?? null,
    startedAt: iso(input.now),
    endedAt: null,
    state: 'in-flight',
    signature: null
  }
}

function isSameRun(attempt: Attempt, runId: number | null): boolean {
  return runId !== null && attempt.runId === runId
}

/**
 * What gating `sha` in run `runId` would begin (see the module comment and `BeginKind`),
 * without beginning it: the question `beginAttempt` answers first.
 */
export function beginKind(ledger: Ledger, input: { sha: string; runId: number | null }): BeginKind {
  const sha = input.sha.toLowerCase()
  const latest = latestAttempt(ledger)
  if (latest && ledger.iteration && latest.sha === sha) {
    const open = ledger.iteration.finishedAt === null
    const accepted = !open && ACCEPTED_OUTCOMES.has(ledger.iteration.outcome)
    // A paused or reset iteration is over: a re-run of its run starts a new one, fresh budget.
    if (isSameRun(latest, input.runId) && (open || accepted)) return 'rerun'
    if (accepted) return 'already-gated'
    if (open && awaitsFix(latest.state)) return 'no-new-commit'
    if (open) return 'resumed'
  }
  return latest && isIterationOpen(ledger) ? 'fix' : 'first'
}

/** Records the start of a gate on `sha` (see the module comment and `BeginKind`). */
export function beginAttempt(ledger: Ledger, input: BeginAttemptInput): BeganAttempt {
  const sha = input.sha.toLowerCase()
  if (!/^[0-9a-f]{7,64}$/.test(sha))
    throw new RangeError(`not a commit SHA: ${JSON.stringify(input.sha)}`)
  const now = iso(input.now)
  const limits = { maxFixAttempts: input.maxFixAttempts, timeoutMinutes: input.timeoutMinutes }
  const latest = latestAttempt(ledger)
  const run = { runId: input.runId, runAttempt: input.runAttempt ?? null }
  const reuse = (kind: BeginKind, reopen: boolean): BeganAttempt => {
    const attempt: Attempt = { ...(latest as Attempt), ...run, state: 'in-flight', endedAt: null }
    const iteration = ledger.iteration as Iteration
    const next = compactLedger(
      replaceAttempt(
        {
          ...ledger,
          iteration: reopen
            ? { ...iteration, ...limits, finishedAt: null, outcome: null }
            : { ...iteration, ...limits }
        },
        attempt.index,
        attempt
      )
    )
    return { kind, ledger: next, attempt: latestAttempt(next) as Attempt }
  }

  const kind = beginKind(ledger, { sha, runId: input.runId })
  switch (kind) {
    case 'rerun':
      return reuse('rerun', true)
    case 'resumed':
      return reuse('resumed', false)
    case 'already-gated':
      return { kind, ledger, attempt: latest as Attempt }
    case 'no-new-commit':
      return appendNoNewCommit(ledger, input)
    case 'fix': {
      const previous = latest as Attempt
      // A blocked commit was never judged: the next commit takes its place and its budget.
      const replaced = previous.state === 'blocked'
      const abandoned = ledger.attempts
        .filter((a) => !replaced || a.index !== previous.index)
        .map((a) =>
          a.state === 'in-flight' ? { ...a, state: 'abandoned' as const, endedAt: now } : a
        )
      const index = replaced ? previous.index : previous.index + 1
      const next = compactLedger({
        ...ledger,
        iteration: { ...(ledger.iteration as Iteration), ...limits },
        attempts: [...abandoned, freshAttempt(index, input, sha)]
      })
      return { kind, ledger: next, attempt: latestAttempt(next) as Attempt }
    }
    case 'first': {
      const next = compactLedger({
        ...ledger,
        iteration: {
          id: `${now}/${sha.slice(0, 12)}`,
          startedAt: now,
          finishedAt: null,
          outcome: null,
          ...limits
        },
        earlierSignatureHashes: [],
        attempts: [freshAttempt(0, input, sha)]
      })
      return { kind, ledger: next, attempt: latestAttempt(next) as Attempt }
    }
  }
}

/**
 * The fixer pushed nothing: a new attempt on the latest attempt's SHA, marked `noNewCommit`,
 * for the guards to judge with the latest attempt's signature (the same signature: stuck).
 */
export function appendNoNewCommit(ledger: Ledger, input: BeginAttemptInput): BeganAttempt {
  const latest = latestAttempt(ledger)
  if (!latest || !ledger.iteration) throw new RangeError('no attempt to repeat')
  const attempt: Attempt = {
    ...freshAttempt(latest.index + 1, input, latest.sha),
    ...(latest.agentSha ? { agentSha: latest.agentSha } : {}),
    noNewCommit: true
  }
  const next = compactLedger({
    ...ledger,
    iteration: {
      ...ledger.iteration,
      maxFixAttempts: input.maxFixAttempts,
      timeoutMinutes: input.timeoutMinutes
    },
    attempts: [...ledger.attempts, attempt]
  })
  return { kind: 'no-new-commit', ledger: next, attempt: latestAttempt(next) as Attempt }
}

// ---------------------------------------------------------------------------------------
// Completing an attempt

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

// ---------------------------------------------------------------------------------------
// What survives the iteration

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

// ---------------------------------------------------------------------------------------
// Size bound

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

// ---------------------------------------------------------------------------------------
// The file's text

/**
 * The ledger as its file holds it: indented JSON, one field per line, for readable diffs. It
 * stays with the model because the size bound (`LEDGER_LIMITS.maxBytes`, `compactLedger`) is a
 * bound on these bytes; reading the file back (errors with their line, older versions
 * migrated) is `statefile/ledger-file.ts`.
 */
export function serializeLedger(ledger: Ledger): string {
  return `${JSON.stringify(ledger, null, 2)}\n`
}
