/**
 * Ledgers for unit tests, built through the ledger's own operations (never written by hand),
 * with real failure signatures (`signatureOf`).
 */
import { createHash } from 'node:crypto'
import {
  beginAttempt,
  completeAttempt,
  emptyLedger,
  type AttemptVerdict,
  type BeganAttempt,
  type BeginAttemptInput,
  type Ledger
} from '../../src/core/ledger.js'
import { blockedCause, type Blocked } from '../../src/core/rules/classify.js'
import { signatureOf, type Signature } from '../../src/core/signature/signature.js'

export const MINUTE = 60_000
export const START = Date.parse('2026-03-01T12:00:00Z')
export const PROGRAM = 'perf'

/** A distinct 40-digit commit SHA for each number or word (distinct in its first 12 digits too). */
export function sha(seed: number | string): string {
  return createHash('sha1').update(String(seed)).digest('hex')
}

/** The signature of one failing test (or the given keys). */
export function sig(
  name: string,
  keys: readonly string[] = [`jest:tests/${name}.test.ts>fails`]
): Signature {
  return signatureOf(keys)
}

export interface Limits {
  maxFixAttempts: number
  timeoutMinutes: number
}

/** The inputs' defaults. */
export const LIMITS: Limits = { maxFixAttempts: 5, timeoutMinutes: 60 }

/** `beginAttempt` with this file's defaults: run 1, attempt 1, the default budget and clock. */
export function begin(
  ledger: Ledger,
  input: Partial<BeginAttemptInput> & Pick<BeginAttemptInput, 'sha' | 'now'>
): BeganAttempt {
  return beginAttempt(ledger, { runId: 1, runAttempt: 1, ...LIMITS, ...input })
}

/** An empty ledger for PROGRAM. */
export function fresh(now = START): Ledger {
  return emptyLedger(PROGRAM, now)
}

/** A red verdict with one failing check and one error line per key. */
export function redVerdict(
  signature: Signature,
  now: number,
  extra: Partial<AttemptVerdict> = {}
): AttemptVerdict {
  return {
    state: 'red',
    now,
    signature,
    failingChecks: [
      {
        name: 'test (20.x)',
        conclusion: 'failure',
        url: 'https://github.com/acme/widgets/actions/runs/13512345678/job/37900000001'
      }
    ],
    errorLines: signature.keys.map((key) => `FAIL ${key}`),
    ...extra
  }
}

/**
 * An iteration whose attempts on `signatures` each came back red, `spacing` apart, on SHAs
 * 0, 1, 2…, by run ids 100, 101, … (one workflow run per attempt, as in gh-aw).
 */
export function redAttempts(
  signatures: readonly Signature[],
  options: {
    start?: number
    spacing?: number
    ledger?: Ledger
    limits?: Partial<Limits>
    /** Failure details of every attempt. */
    details?: AttemptVerdict['details']
  } = {}
): Ledger {
  const start = options.start ?? START
  const spacing = options.spacing ?? 5 * MINUTE
  let ledger = options.ledger ?? fresh(start)
  signatures.forEach((signature, i) => {
    const at = start + i * spacing
    const began = begin(ledger, { sha: sha(i), runId: 100 + i, now: at, ...options.limits })
    ledger = completeAttempt(began.ledger, began.attempt.index, {
      ...redVerdict(signature, at + spacing / 2),
      ...(options.details ? { details: options.details } : {})
    })
  })
  return ledger
}

/** What the classification says of commit `at`, whose workflow `ci` awaits a maintainer's approval. */
export function awaitingApproval(at: string = sha(0), checksGraceSeconds = 120): Blocked {
  const blocked = blockedCause({
    sha: at,
    awaitingApproval: ['ci'],
    noChecks: false,
    pushed: false,
    pushToken: false,
    ciTriggerCommit: false,
    checksGraceSeconds
  })
  if (!blocked) throw new Error('an approval gate is a blocked cause')
  return blocked
}
