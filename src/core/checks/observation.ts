/**
 * What the gate saw on one SHA, and the verdicts it reports (docs/inputs-outputs.md: "Outputs"). Shared by
 * the gate command, which builds it, and the outputs, which show it.
 */
import type { PullInfo } from '../github.js'
import type { CheckView } from './reduce.js'

/** What waiting on the checks of one SHA ended with. */
export type ObservedVerdict = 'green' | 'red' | 'no-checks' | 'ci-timeout'

/**
 * The gate's verdict: what was observed, or after classifying the failures
 * (docs/decisions.md: "Whose failure it is"): every failure pre-existing, or no fix can help.
 */
export type GateVerdict = ObservedVerdict | 'green-except-pre-existing' | 'blocked'

export interface GateObservation {
  sha: string
  pull: PullInfo | null
  verdict: ObservedVerdict
  /** Why, one line each (failing checks, missing required checks); may quote check names, so untrusted. */
  reasons: string[]
  /** Names in `required-checks` that never reported. */
  missingRequired: string[]
  checks: CheckView[]
  /** When the wait started and ended (ms epoch). */
  startedAt: number
  finishedAt: number
  polls: number
}
