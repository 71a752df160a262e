/**
 * What the gate found out about a red commit (docs/decisions.md: "Whose failure it is"): each
 * failing check with the keys its source gave, and the findings of the red path (re-runs, the
 * base branch, the classification). Built by the gate's red path, rendered into the failure
 * summary, recorded in the ledger.
 */
import type { BaseFailures, Classification, Rerun } from '../ledger.js'
import type { GateObservation } from './observation.js'
import type { CheckView } from './reduce.js'

/** Where a failing check's keys came from, cheapest first (README: "Failure signatures"). */
export const FAILURE_SOURCES = ['annotations', 'output', 'log', 'status', 'none'] as const
export type FailureSource = (typeof FAILURE_SOURCES)[number]

/** One failing check and what its source said about it. */
export interface GatheredFailure {
  name: string
  kind: CheckView['kind']
  conclusion: string
  url: string | null
  source: FailureSource
  keys: string[]
  /** The lines that showed the failure, as printed (untrusted, not yet sanitised). */
  firstErrorLines: string[]
  /** Per failure, what its tool printed about it (untrusted, not yet sanitised), in key order found. */
  details?: { key: string; lines: string[] }[]
  logTruncated?: boolean
  note?: string
}

export interface FailingCheck extends GatheredFailure {
  /** Why it looks like a failure outside the project, when it does. */
  infrastructure: string | null
  workflowRunId: number | undefined
}

export interface RedFindings {
  /** The observation after any re-runs (its checks are the latest attempts). */
  observation: GateObservation
  /** Whether the checks were read again after re-runs (the observation may say something else). */
  rechecked: boolean
  /** Checks still failing, with their keys (untrusted text cleaned). */
  failing: FailingCheck[]
  /** Keys of the iteration's own failures (missing required checks included), sorted. */
  newKeys: string[]
  classification: Classification
  reruns: Rerun[]
  baseFailures: BaseFailures | null
}
