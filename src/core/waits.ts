/**
 * What an attempt begun with `wait: false` waits for (README: "Settling on events"): the gate
 * writes it into the ledger with the attempt, exits, and `settle` (started by a GitHub event,
 * or `reconcile` as the safety net) settles the attempt with exactly these settings, as the
 * polling gate would have: which checks count, what a red verdict starts, where the program
 * lives, and what the agent handed over. The wall clock is the iteration's.
 */
import { z } from 'zod'
import type { CheckRules } from './checks/policy.js'

export const WaitsSchema = z.object({
  /** The gate's workflow run: its own jobs are never waited on. */
  gateRunId: z.number().int().nonnegative().nullable(),
  /** Whether the gate pushed the commit (the no-checks diagnosis names the token then). */
  pushed: z.boolean(),
  rules: z.object({
    requiredChecks: z.array(z.string()),
    ignoreChecks: z.array(z.string()),
    failFast: z.boolean(),
    allowNoChecks: z.boolean(),
    checksGraceSeconds: z.number().nonnegative()
  }),
  fix: z.object({
    dispatchWorkflow: z.string().nullable(),
    dispatchRef: z.string().nullable(),
    dispatchInputs: z.record(z.string(), z.string()),
    preExistingFailures: z.enum(['allow', 'block']),
    rerunFailed: z.number().int().nonnegative()
  }),
  branch: z.string().min(1),
  /** Where pre-existing failures are read: the `base` input, else the PR's base branch. */
  base: z.string().nullable(),
  pr: z.number().int().positive().nullable(),
  issue: z.number().int().positive().nullable(),
  pushToken: z.boolean(),
  /** The agent's iteration file, recorded on green (null: the gate was given none). */
  report: z
    .object({
      metric: z.number().nullable(),
      improved: z.boolean(),
      change: z.string(),
      error: z.string().optional()
    })
    .nullable()
})

export type Waits = z.infer<typeof WaitsSchema>

/** The settings `settle` needs from the gate's inputs (see the module comment). */
export interface WaitsInput extends CheckRules {
  dispatchWorkflow?: string | undefined
  dispatchRef?: string | undefined
  dispatchInputs: Record<string, string>
  preExistingFailures: 'allow' | 'block'
  rerunFailed: number
  branch: string
  base?: string | undefined
  pushToken?: string | undefined
  issue?: number | undefined
}

export function waitsOf(
  config: WaitsInput,
  gate: {
    runId: number | null
    pushed: boolean
    pr: number | null
    /** The PR's base branch: pre-existing failures are read there, as the polling gate does. */
    pullBase: string | null
    report: Waits['report']
  }
): Waits {
  return {
    gateRunId: gate.runId,
    pushed: gate.pushed,
    rules: {
      requiredChecks: [...config.requiredChecks],
      ignoreChecks: [...config.ignoreChecks],
      failFast: config.failFast,
      allowNoChecks: config.allowNoChecks,
      checksGraceSeconds: config.checksGraceSeconds
    },
    fix: {
      dispatchWorkflow: config.dispatchWorkflow ?? null,
      dispatchRef: config.dispatchRef ?? null,
      dispatchInputs: { ...config.dispatchInputs },
      preExistingFailures: config.preExistingFailures,
      rerunFailed: config.rerunFailed
    },
    branch: config.branch,
    base: config.base ?? gate.pullBase ?? null,
    pr: gate.pr,
    issue: config.issue ?? null,
    pushToken: Boolean(config.pushToken),
    report: gate.report
  }
}
