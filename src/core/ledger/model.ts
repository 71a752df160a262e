/**
 * The ledger's model (README: "The ledger"): where its file lives, its version, the bounds that
 * keep it small, its schema and types, and an empty ledger to start from.
 */
import { z } from 'zod'
import { MachineStatePatchSchema } from '../schema.js'
import { PAUSE_KINDS } from '../rules/pause-reasons.js'
import { WaitsSchema } from '../waits.js'

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
export type SignatureRecord = z.infer<typeof SignatureRecordSchema>
export type Classification = z.infer<typeof ClassificationSchema>
export type Rerun = z.infer<typeof RerunSchema>
export type Dispatch = z.infer<typeof DispatchSchema>
export type PausedSignature = z.infer<typeof PausedSignatureSchema>
export type BaseFailures = z.infer<typeof BaseFailuresSchema>
export type StateWrite = z.infer<typeof StateWriteSchema>
export type IterationOutcome = (typeof ITERATION_OUTCOMES)[number]

/** What the ledger needs of a failure signature (`signatureOf` from src/signature provides it). */
export interface SignatureLike {
  hash: string
  short: string
  keys?: readonly string[]
  full?: string
}

/** Epoch ms as the ISO time the ledger stores. */
export function iso(ms: number): string {
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
