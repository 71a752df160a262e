/**
 * Which checks count, and how a commit's checks are reduced to a verdict, from the inputs that
 * say so (docs/decisions.md: "How checks become a verdict"): the same rules for the polling
 * gate, `settle` (which reads them from the attempt the gate began) and `reconcile`.
 */
import picomatch from 'picomatch'
import type { ReducePolicy } from './reduce.js'

/** The inputs that decide which checks count and when a commit has a verdict. */
export interface CheckRules {
  requiredChecks: readonly string[]
  ignoreChecks: readonly string[]
  failFast: boolean
  allowNoChecks: boolean
  checksGraceSeconds: number
}

/** `ignore-checks` as a matcher. */
export function ignoreMatcher(rules: Pick<CheckRules, 'ignoreChecks'>): (name: string) => boolean {
  return rules.ignoreChecks.length > 0 ? picomatch([...rules.ignoreChecks]) : () => false
}

/** The reduction policy of a gate: the jobs of its own workflow run are never waited on. */
export function checkPolicy(rules: CheckRules, ownWorkflowRunId: number | undefined): ReducePolicy {
  return {
    requiredChecks: [...rules.requiredChecks],
    isIgnored: ignoreMatcher(rules),
    ownWorkflowRunId,
    failFast: rules.failFast,
    allowNoChecks: rules.allowNoChecks,
    graceMs: rules.checksGraceSeconds * 1000
  }
}
