/**
 * The failure summary the fixer reads, built from what the gate found (pure; README: "The
 * failure summary"): a red attempt's failing checks and whose they are, or a blocked commit and
 * what a maintainer must do.
 */
import type { GateObservation } from '../core/checks/observation.js'
import type { Blocked } from '../core/rules/classify.js'
import type { Attempt, Ledger } from '../core/ledger.js'
import type { Signature } from '../core/signature/signature.js'
import { diffKeys, FAILURE_SUMMARY_VERSION, type FailureSummary } from './failure-summary.js'
import type { RedFindings } from '../core/checks/findings.js'
import { isCounted } from '../core/checks/reduce.js'

/** What every failure summary starts with: its version, the program, the commit, the signature. */
function header(
  program: string,
  sha: string,
  attempt: number,
  signature: Signature,
  now: number
): Pick<FailureSummary, 'version' | 'program' | 'sha' | 'attempt' | 'generatedAt' | 'signature'> {
  return {
    version: FAILURE_SUMMARY_VERSION,
    program,
    sha,
    attempt,
    generatedAt: new Date(now).toISOString(),
    signature: { keys: signature.keys, full: signature.full, short: signature.short }
  }
}

export function summaryOf(
  program: string,
  attempt: Attempt,
  findings: RedFindings,
  signature: Signature,
  ledger: Ledger,
  now: number
): FailureSummary {
  const previous = [...ledger.attempts]
    .reverse()
    .find((a) => a.index < attempt.index && a.signature)
  return {
    ...header(program, attempt.sha, attempt.index, signature, now),
    checks: findings.failing.map((failure) => ({
      name: failure.name,
      conclusion: failure.conclusion,
      url: failure.url ?? '',
      source: failure.source,
      keys: failure.keys,
      firstErrorLines: failure.firstErrorLines,
      ...(failure.details && failure.details.length > 0 ? { details: failure.details } : {}),
      ...(failure.logTruncated ? { logTruncated: true } : {}),
      ...(failure.note ? { note: failure.note } : {})
    })),
    classification: {
      preExisting: findings.classification.preExisting,
      baseBranch: findings.baseFailures?.branch ?? null,
      baseSha: findings.classification.baseSha,
      baseNote: findings.classification.baseNote,
      ...(findings.classification.baseChecks
        ? {
            baseChecks: findings.classification.baseChecks.map((c) => ({
              check: c.check,
              url: c.url ?? ''
            }))
          }
        : {}),
      flaky: findings.classification.flaky.map((f) => ({ check: f.check, url: f.url ?? '' })),
      infrastructure: findings.classification.infrastructure.map((f) => ({
        check: f.check,
        cause: f.cause,
        url: f.url ?? ''
      })),
      reruns: findings.reruns.map((r) => ({
        checks: r.checks,
        why: r.why,
        outcome: r.outcome,
        url: r.url ?? ''
      })),
      blocked: null
    },
    ...(previous?.signature
      ? {
          changes: diffKeys(previous.signature.keys ?? [], signature.keys),
          previous: {
            sha: previous.sha,
            attempt: previous.index,
            signature: previous.signature.full ?? previous.signature.short
          }
        }
      : {})
  }
}

/** The failure summary of a blocked commit: no fix can help, and it says what a maintainer must do. */
export function blockedSummary(
  program: string,
  index: number,
  observation: GateObservation,
  blocked: Blocked,
  signature: Signature,
  now: number
): FailureSummary {
  const waiting = observation.checks.filter(
    (check) => isCounted(check) && check.conclusion === 'action_required'
  )
  return {
    ...header(program, observation.sha, index, signature, now),
    checks: waiting.map((check) => ({
      name: check.name,
      conclusion: check.conclusion ?? check.status,
      url: check.url ?? '',
      source: 'none' as const,
      keys: [],
      firstErrorLines: []
    })),
    classification: {
      preExisting: [],
      baseBranch: null,
      baseSha: null,
      baseNote: null,
      flaky: [],
      infrastructure: [],
      reruns: [],
      blocked: { cause: blocked.cause, advice: blocked.advice }
    }
  }
}
