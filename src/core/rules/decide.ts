/**
 * The gate's decision, pure (README: "The fix loop"): what one attempt settles into, from the
 * ledger as read and what the gate observed. The gate command observes (head, checks, the
 * failures and whose they are, whether a fix could have arrived), calls `decide`, and applies
 * the `Settlement` it returns; nothing here reads a clock, the network or a file.
 *
 * A stopped program (paused or completed) is not gated: the gate ends before it observes
 * anything. Otherwise the order of the checks is the order of the contract:
 * 1. no fix could have arrived (this run's push did not land, gh-aw diverted it, the fixer run
 *    never ran its agent): paused `ci-blocked` on the red attempt itself;
 * 2. no new commit since the red attempt: the fixer pushed nothing, the guards judge the same
 *    signature again (stuck, unless the budget or the wall clock ran out first);
 * 3. green; checks still running at the wall clock (`ci-timeout`); no fix can help (no CI,
 *    runs waiting for approval: `ci-blocked`);
 * 4. red: every failure pre-existing on the base branch head is accepted (`allow`) or paused
 *    `ci-base-red` (`block`); the iteration's own failures make the signature the guards judge
 *    in the order no progress → budget → wall clock; otherwise a fix, by the next steps
 *    configured (start the fixer run, run `fix-command`, or neither).
 */
import type { GateVerdict, ObservedVerdict } from '../checks/observation.js'
import type { Blocked } from './classify.js'
import { decideAfterRed, noProgressPause, repeatedVerdict } from './guard.js'
import type {
  Attempt,
  AttemptDetail,
  AttemptVerdict,
  Classification,
  Ledger,
  Rerun,
  SignatureLike
} from '../ledger.js'
import { pauseReason, type PauseKind } from './pause-reasons.js'
import { buildKey } from '../signature/normalise.js'
import { signatureOf, type Signature } from '../signature/signature.js'
import { redactSecrets } from '../text/untrusted.js'

/** One failing check as the gate gathered it (untrusted text already cleaned). */
interface FailingFacts {
  name: string
  conclusion: string
  url: string | null
  keys: readonly string[]
  firstErrorLines: readonly string[]
  details?: readonly { key: string; lines: readonly string[] }[]
}

/** The failures of a red observation and whose they are (README: "Whose failure it is"). */
export interface RedFacts {
  failing: readonly FailingFacts[]
  /** Keys of the iteration's own failures, sorted. */
  newKeys: readonly string[]
  classification: Classification
  reruns: readonly Rerun[]
}

/** What the gate observed, in the order it finds out. */
export type Observed =
  /** The head did not move since the red attempt `latest`, and no fix could have arrived. */
  | { kind: 'no-fix-arrived'; latest: Attempt; blocked: Blocked }
  /** Attempt `index` found the head where the previous attempt left it: the fixer pushed nothing. */
  | { kind: 'no-new-commit'; index: number }
  /** The checks of attempt `index`: their verdict, why no fix can help (if so), the failures. */
  | {
      kind: 'checks'
      index: number
      verdict: ObservedVerdict
      blocked: Blocked | null
      /** The failures, for a red verdict that no cause blocks (see `needsFindings`). */
      findings: RedFacts | null
    }

/** What the gate does after a red attempt, when the guards let the loop go on. */
type NextStep = 'dispatch' | 'fix-command'

export interface Pause {
  kind: PauseKind
  /** The attempt the pause settles. */
  index: number
  reason: string
  /** The gate's verdict output. */
  verdict: GateVerdict
  /** The attempt's verdict as the ledger records it. */
  record: AttemptVerdict
  /** The signature the pause names (shown in the comment and the outputs). */
  signature: Signature | null
  /** Keep the signature across resets (the ledger's paused signatures). */
  remember: boolean
  blocked: Blocked | null
  /** The fix attempts left: none after a pause of the fix loop; the budget left otherwise. */
  attemptsRemaining: number
}

export type Settlement =
  | { kind: 'skipped'; reason: string }
  | { kind: 'green'; index: number; attemptsRemaining: number }
  | {
      kind: 'green-except-pre-existing'
      index: number
      attemptsRemaining: number
      preExisting: string[]
    }
  | { kind: 'paused'; pause: Pause }
  | {
      kind: 'red'
      index: number
      signature: Signature
      record: AttemptVerdict
      attemptsRemaining: number
      /** In order; empty: the loop waits for a fix from outside (gate again). */
      next: NextStep[]
    }

export interface DecideConfig {
  preExistingFailures: 'allow' | 'block'
  dispatchWorkflow: boolean
  fixCommand: boolean
}

interface DecideInput {
  ledger: Ledger
  observed: Observed
  config: DecideConfig
  now: number
  /** Values to redact from error lines kept in the ledger. */
  maskedValues: readonly string[]
}

/** Whether the gate must gather and classify the failures before it can decide. */
export function needsFindings(verdict: ObservedVerdict, blocked: Blocked | null): boolean {
  return verdict !== 'green' && verdict !== 'ci-timeout' && blocked === null
}

export function decide(input: DecideInput): Settlement {
  const { observed } = input
  switch (observed.kind) {
    case 'no-fix-arrived':
      return { kind: 'paused', pause: noFixPause(input, observed.latest, observed.blocked) }
    case 'no-new-commit':
      return { kind: 'paused', pause: noNewCommitPause(input, observed.index) }
    case 'checks':
      return decideChecks(input, observed)
  }
}

/** The fix attempts left once attempt `index` is judged (attempt k is the k-th fix). */
function budgetLeft(ledger: Ledger, index: number): number {
  return Math.max(0, (ledger.iteration?.maxFixAttempts ?? 0) - index)
}

/**
 * The fix attempts left before attempt `index` was gated: a blocked commit is not judged, so
 * it spends none (it is gated again, with this budget, once it can be).
 */
export function budgetBefore(ledger: Ledger, index: number): number {
  return budgetLeft(ledger, Math.max(0, index - 1))
}

function noFixPause(input: DecideInput, latest: Attempt, blocked: Blocked): Pause {
  return {
    kind: 'blocked',
    index: latest.index,
    reason: pauseReason('blocked', blocked.cause),
    verdict: 'blocked',
    record: repeatedVerdict(
      latest,
      latest.state === 'no-checks' ? 'no-checks' : 'red',
      input.now,
      blocked.cause
    ),
    signature: signatureFromRecord(latest.signature),
    remember: false,
    blocked,
    attemptsRemaining: budgetLeft(input.ledger, latest.index)
  }
}

function noNewCommitPause(input: DecideInput, index: number): Pause {
  const previous = [...input.ledger.attempts].reverse().find((a) => a.index < index)
  const note = `no new commit since attempt ${previous?.index ?? 0}: the fixer pushed nothing`
  const judged = noProgressPause(input.ledger, index, input.now, note)
  return {
    kind: judged.kind,
    index,
    reason: judged.reason,
    verdict: 'red',
    record: judged.verdict,
    signature: signatureFromRecord(judged.verdict.signature),
    remember: judged.remember !== null,
    blocked: null,
    attemptsRemaining: 0
  }
}

function decideChecks(
  input: DecideInput,
  observed: Extract<Observed, { kind: 'checks' }>
): Settlement {
  const { ledger, now, config } = input
  const { index, verdict, blocked, findings } = observed
  if (verdict === 'green')
    return { kind: 'green', index, attemptsRemaining: budgetLeft(ledger, index) }
  if (verdict === 'ci-timeout') {
    const signature = signatureOf([buildKey('ci-timeout')])
    return {
      kind: 'paused',
      pause: {
        kind: 'timeout',
        index,
        reason: pauseReason('timeout'),
        verdict: 'ci-timeout',
        record: { state: 'ci-timeout', now, signature },
        signature,
        remember: false,
        blocked: null,
        attemptsRemaining: 0
      }
    }
  }
  if (blocked)
    return {
      kind: 'paused',
      pause: {
        kind: 'blocked',
        index,
        reason: pauseReason('blocked', blocked.cause),
        verdict: verdict === 'no-checks' ? 'no-checks' : 'blocked',
        record: { state: 'blocked', now, note: blocked.advice },
        signature: null,
        remember: false,
        blocked,
        attemptsRemaining: budgetBefore(ledger, index)
      }
    }
  if (!findings) throw new RangeError(`a ${verdict} verdict is decided on its failures`)
  const preExisting = findings.classification.preExisting
  if (findings.newKeys.length === 0 && preExisting.length > 0) {
    if (config.preExistingFailures === 'allow')
      return {
        kind: 'green-except-pre-existing',
        index,
        attemptsRemaining: budgetLeft(ledger, index),
        preExisting: [...preExisting]
      }
    const signature = signatureOf(preExisting)
    return {
      kind: 'paused',
      pause: {
        kind: 'base-red',
        index,
        reason: pauseReason('base-red', signature.short),
        verdict: 'red',
        record: redRecord(findings, signature, now, input.maskedValues),
        signature,
        remember: false,
        blocked: null,
        attemptsRemaining: budgetLeft(ledger, index)
      }
    }
  }
  const signature = signatureOf(findings.newKeys)
  const record = redRecord(findings, signature, now, input.maskedValues)
  const decision = decideAfterRed(ledger, { index, signature, now })
  if (decision.kind === 'pause')
    return {
      kind: 'paused',
      pause: {
        kind: decision.pauseKind,
        index,
        reason: decision.reason,
        verdict: 'red',
        record,
        signature,
        remember: decision.pauseKind !== 'timeout',
        blocked: null,
        attemptsRemaining: 0
      }
    }
  const next: NextStep[] = []
  if (config.dispatchWorkflow) next.push('dispatch')
  if (config.fixCommand) next.push('fix-command')
  return {
    kind: 'red',
    index,
    signature,
    record,
    attemptsRemaining: decision.attemptsRemaining,
    next
  }
}

/** A signature as the ledger stored it, in the form the pause comment shows. */
function signatureFromRecord(stored: SignatureLike | null | undefined): Signature | null {
  return stored
    ? {
        keys: [...(stored.keys ?? [])],
        full: stored.full ?? stored.short,
        short: stored.short,
        hash: stored.hash
      }
    : null
}

/** A red attempt's verdict as the ledger keeps it. */
function redRecord(
  findings: RedFacts,
  signature: Signature,
  now: number,
  masked: readonly string[]
): AttemptVerdict {
  return {
    state: 'red',
    now,
    signature,
    failingChecks: findings.failing.map((f) => ({
      name: f.name,
      conclusion: f.conclusion,
      url: f.url
    })),
    errorLines: errorLinesOf(findings, masked),
    details: detailsOf(findings, signature),
    classification: findings.classification,
    reruns: findings.reruns
  }
}

function errorLinesOf(findings: RedFacts, masked: readonly string[]): string[] {
  return findings.failing
    .flatMap((failure) =>
      failure.firstErrorLines.slice(0, 4).map((line) => `${failure.name}: ${line}`)
    )
    .slice(0, 12)
    .map((line) => redactSecrets(line, masked))
}

/** The failure details of the signature's keys (already redacted by gathering), check by check. */
function detailsOf(findings: RedFacts, signature: Signature): AttemptDetail[] {
  const own = new Set(signature.keys)
  return findings.failing.flatMap((failure) =>
    (failure.details ?? [])
      .filter((detail) => own.has(detail.key))
      .map((detail) => ({ check: failure.name, key: detail.key, lines: [...detail.lines] }))
  )
}
