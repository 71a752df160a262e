/**
 * Polls the checks of one SHA until the reduction gives a verdict or the deadline passes.
 * Read errors never turn into a verdict: they are retried a bounded number of times and
 * then thrown.
 */
import type { Clock } from '../clock.js'
import type { Logger } from '../log.js'
import { errorMessage } from '../errors.js'
import {
  reduceChecks,
  type CheckView,
  type ChecksSnapshot,
  type ReducePolicy,
  type Verdict
} from './reduce.js'

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
  /** Consecutive failed reads tolerated before giving up. */
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
  const counted = checks.filter((check) => check.excluded === undefined)
  const count = (state: CheckView['state']) =>
    counted.filter((check) => check.state === state).length
  return `${counted.length} counted: ${count('passed')} passed, ${count('failed')} failed, ${count('running') + count('unknown')} running`
}

export async function waitForVerdict(options: WaitOptions): Promise<WaitResult> {
  const { clock, log, policy } = options
  const maxReadFailures = options.maxReadFailures ?? 5
  const progressEveryMs = options.progressEveryMs ?? 60_000
  const started = clock.now()
  let polls = 0
  let readFailures = 0
  let lastLine = ''
  let lastLogAt = -Infinity
  let lastPending: { checks: CheckView[]; waitingFor: string[] } = { checks: [], waitingFor: [] }
  const warned = new Set<string>()

  for (;;) {
    let snapshot: ChecksSnapshot | undefined
    try {
      snapshot = await options.readChecks(options.sha)
      readFailures = 0
    } catch (error) {
      readFailures++
      if (readFailures >= maxReadFailures) throw error
      log.warning(
        `Reading the checks of ${options.sha.slice(0, 12)} failed (${readFailures}/${maxReadFailures}), retrying: ${errorMessage(error)}`
      )
    }
    polls++
    const now = clock.now()
    if (snapshot) {
      const verdict = reduceChecks(snapshot, policy, now - options.graceFrom)
      if (verdict.kind !== 'pending') return { kind: 'verdict', verdict, polls, finishedAt: now }
      lastPending = verdict
      for (const check of verdict.checks) {
        if (
          check.state === 'unknown' &&
          !warned.has(`${check.name}:${check.status}:${check.conclusion}`)
        ) {
          warned.add(`${check.name}:${check.status}:${check.conclusion}`)
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
    }
    if (now >= options.deadline) {
      return {
        kind: 'ci-timeout',
        checks: lastPending.checks,
        waitingFor: lastPending.waitingFor,
        polls,
        finishedAt: now
      }
    }
    await clock.sleep(Math.min(options.pollIntervalMs, options.deadline - now))
  }
}
