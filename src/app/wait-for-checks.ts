/**
 * Polls the checks of one SHA until the reduction gives a verdict or the deadline passes.
 * Read errors never turn into a verdict: the poll's read-failure policy (`poll.ts`) retries
 * them with a backoff, then throws a PollReadError.
 */
import type { Clock, Logger } from '../ports.js'
import type { ProgramConfig } from '../core/inputs.js'
import type { PullInfo } from '../core/github.js'
import type { GateObservation } from '../core/checks/observation.js'
import type { CommandDeps } from './command-deps.js'
import { poll } from './poll.js'
import {
  isCounted,
  pendingByCheckRuns,
  reduceChecks,
  type CheckView,
  type ChecksSnapshot,
  type ReducePolicy,
  type Verdict
} from '../core/checks/reduce.js'

export interface WaitOptions {
  sha: string
  readChecks: (sha: string) => Promise<ChecksSnapshot>
  policy: ReducePolicy
  clock: Clock
  log: Logger
  pollIntervalMs: number
  /** When the grace period starts: the push, or the gate's start. */
  graceFrom: number
  /** Wall-clock cap (ms epoch): still running then is `ci-timeout`. */
  deadline: number
  /** Consecutive failed reads tolerated before the PollReadError (5 by default). */
  maxReadFailures?: number
  /** How often a progress line is logged while nothing changes. */
  progressEveryMs?: number
}

export type WaitResult =
  | {
      kind: 'verdict'
      verdict: Exclude<Verdict, { kind: 'pending' }>
      polls: number
      finishedAt: number
    }
  | {
      kind: 'ci-timeout'
      checks: CheckView[]
      waitingFor: string[]
      polls: number
      finishedAt: number
    }

function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000)
  const minutes = Math.floor(seconds / 60)
  return minutes > 0 ? `${minutes}m${String(seconds % 60).padStart(2, '0')}s` : `${seconds}s`
}

function describe(checks: CheckView[]): string {
  const counted = checks.filter(isCounted)
  const count = (state: CheckView['state']) =>
    counted.filter((check) => check.state === state).length
  return `${counted.length} counted: ${count('passed')} passed, ${count('failed')} failed, ${count('running') + count('unknown')} running`
}

export async function waitForVerdict(options: WaitOptions): Promise<WaitResult> {
  const { clock, log, policy } = options
  const progressEveryMs = options.progressEveryMs ?? 60_000
  const started = clock.now()
  let lastLine = ''
  let lastLogAt = -Infinity
  const warned = new Set<string>()
  const result = await poll<Verdict>({
    what: `the checks of ${options.sha.slice(0, 12)}`,
    read: async () => {
      const snapshot = await options.readChecks(options.sha)
      return reduceChecks(snapshot, policy, clock.now() - options.graceFrom)
    },
    done: (verdict) => verdict.kind !== 'pending',
    pending(verdict, now) {
      if (verdict.kind !== 'pending') return
      for (const check of verdict.checks) {
        const key = `${check.name}:${check.status}:${check.conclusion}`
        if (check.state === 'unknown' && !warned.has(key)) {
          warned.add(key)
          log.warning(
            `Check "${check.name}" reports an unknown state (status ${check.status}, conclusion ${check.conclusion}); it is treated as still running, never as passed.`
          )
        }
      }
      const line = `${describe(verdict.checks)}; waiting for ${verdict.waitingFor.slice(0, 8).join(', ')}${verdict.waitingFor.length > 8 ? ` +${verdict.waitingFor.length - 8} more` : ''}`
      if (line !== lastLine || now - lastLogAt >= progressEveryMs) {
        log.info(`[${formatDuration(now - started)}] ${line}`)
        lastLine = line
        lastLogAt = now
      }
    },
    clock,
    log,
    intervalMs: options.pollIntervalMs,
    deadline: options.deadline,
    ...(options.maxReadFailures !== undefined ? { maxReadFailures: options.maxReadFailures } : {})
  })
  const { polls, at: finishedAt } = result
  if (result.kind === 'done' && result.value.kind !== 'pending')
    return { kind: 'verdict', verdict: result.value, polls, finishedAt }
  const pending = result.value?.kind === 'pending' ? result.value : { checks: [], waitingFor: [] }
  return {
    kind: 'ci-timeout',
    checks: pending.checks,
    waitingFor: pending.waitingFor,
    polls,
    finishedAt
  }
}

export interface WaitWindow {
  /** When the grace period for check registration starts (the push, or an earlier gate of the same SHA). */
  graceFrom: number
  /** The iteration's wall-clock cap. */
  deadline: number
}

/** Waits for every check on `sha` and reduces them to one observation. */
export async function waitForChecks(
  config: ProgramConfig,
  deps: Pick<CommandDeps, 'github' | 'clock' | 'log'>,
  sha: string,
  pull: PullInfo | null,
  policy: ReducePolicy,
  window: WaitWindow
): Promise<GateObservation> {
  const { github, clock, log } = deps
  const startedAt = clock.now()
  log.info(
    `Waiting for every check on ${sha} (poll ${config.pollIntervalSeconds} s, grace ${config.checksGraceSeconds} s, deadline ${new Date(window.deadline).toISOString()})`
  )
  const result = await waitForVerdict({
    sha,
    readChecks: (ref) => github.readChecks(ref),
    policy,
    clock,
    log,
    pollIntervalMs: config.pollIntervalSeconds * 1000,
    graceFrom: window.graceFrom,
    deadline: window.deadline
  })
  const base = { sha, pull, startedAt, finishedAt: result.finishedAt, polls: result.polls }
  return observationOf(base, result.kind === 'ci-timeout' ? result : result.verdict)
}

type ObservationBase = Pick<GateObservation, 'sha' | 'pull' | 'startedAt' | 'finishedAt' | 'polls'>

/**
 * One observation from what the checks came to: a verdict, or `ci-timeout` with what was still
 * running at the wall-clock cap (the polling gate and `settle` alike).
 */
function observationOf(
  base: ObservationBase,
  outcome:
    | Exclude<Verdict, { kind: 'pending' }>
    | { kind: 'ci-timeout'; checks: CheckView[]; waitingFor: string[] }
): GateObservation {
  if (outcome.kind === 'ci-timeout')
    return {
      ...base,
      verdict: 'ci-timeout',
      checks: outcome.checks,
      missingRequired: [],
      reasons: [
        `ci-timeout: still waiting for ${outcome.waitingFor.join(', ') || 'checks'} at the wall-clock cap`
      ]
    }
  return {
    ...base,
    verdict: outcome.kind,
    checks: outcome.checks,
    missingRequired: outcome.kind === 'red' ? outcome.missingRequired : [],
    reasons: outcome.reasons
  }
}

/** CI on the commit has not finished: what is still running (`settle` writes no verdict then). */
export interface StillRunning {
  kind: 'still-running'
  checks: CheckView[]
  waitingFor: string[]
}

/**
 * Reads the checks of `sha` once and reduces them as `waitForChecks` would (`settle`, README:
 * "Settling on events"): a verdict, `ci-timeout` once the wall clock has passed with checks
 * still running, else what is still running.
 */
export async function readChecksOnce(
  deps: Pick<CommandDeps, 'github' | 'clock'>,
  sha: string,
  pull: PullInfo | null,
  policy: ReducePolicy,
  window: WaitWindow
): Promise<GateObservation | StillRunning> {
  const startedAt = deps.clock.now()
  const elapsed = startedAt - window.graceFrom
  // A check run still running decides "still running" alone: the statuses are not read then.
  const snapshot = await deps.github.readChecks(sha, {
    skipStatuses: (checkRuns) => pendingByCheckRuns(checkRuns, policy, elapsed)
  })
  const verdict = reduceChecks(snapshot, policy, elapsed)
  const finishedAt = deps.clock.now()
  const base = { sha, pull, startedAt, finishedAt, polls: 1 }
  if (verdict.kind !== 'pending') return observationOf(base, verdict)
  if (finishedAt < window.deadline)
    return { kind: 'still-running', checks: verdict.checks, waitingFor: verdict.waitingFor }
  return observationOf(base, { ...verdict, kind: 'ci-timeout' })
}
