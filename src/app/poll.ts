/**
 * The one polling loop (docs/decisions.md: "How checks become a verdict"), used by every poll: the
 * gate's checks, the re-runs starting, the base branch head's CI. It reads until a read is
 * final or the deadline passes, and has one read-failure policy: a failed read is retried
 * after a backoff that doubles from the poll interval (at most 5 minutes); the
 * `maxReadFailures`-th failure in a row ends the poll with a `PollReadError`. A failed read
 * is never taken for an answer. Each caller decides what an unreadable poll means for it.
 */
import type { Clock } from '../ports.js'
import type { Logger } from '../ports.js'
import { ActionError, errorMessage } from '../core/errors.js'

/** Failed reads in a row a poll tolerates. */
export const READ_FAILURES_TOLERATED = 5
const MAX_BACKOFF_MS = 5 * 60_000

/** Reads kept failing: what was read, how often, and the last error as the cause. */
export class PollReadError extends ActionError {
  readonly failures: number

  constructor(what: string, failures: number, cause: unknown) {
    super(`Reading ${what} failed ${failures} times in a row: ${errorMessage(cause)}`, {
      fix: "GitHub's API kept failing; re-run the job. If it says 403 or 404, check the job's `permissions:` (README: Security).",
      cause
    })
    this.name = 'PollReadError'
    this.failures = failures
  }
}

export interface PollOptions<T> {
  /** What is read, for messages: "the checks of 0123456789ab". */
  what: string
  read(): Promise<T>
  /** Whether a value read is final. */
  done(value: T): boolean
  /** Called with each value read that is not final (progress lines). */
  pending?(value: T, now: number): void
  clock: Clock
  log: Logger
  intervalMs: number
  /** Ms epoch: a poll still not final then ends with the last value read. */
  deadline: number
  /** Failed reads in a row tolerated before the PollReadError; 5 by default. */
  maxReadFailures?: number
}

export type PollResult<T> =
  | { kind: 'done'; value: T; polls: number; at: number }
  /** The deadline passed; `value` is the last one read, undefined when none was. */
  | { kind: 'deadline'; value: T | undefined; polls: number; at: number }

/** The wait after the `failures`-th failed read in a row. */
export function readBackoffMs(intervalMs: number, failures: number): number {
  return Math.min(MAX_BACKOFF_MS, intervalMs * 2 ** Math.max(0, failures - 1))
}

export async function poll<T>(options: PollOptions<T>): Promise<PollResult<T>> {
  const { clock } = options
  const maxReadFailures = options.maxReadFailures ?? READ_FAILURES_TOLERATED
  let polls = 0
  let failures = 0
  let last: T | undefined
  for (;;) {
    let wait = options.intervalMs
    polls++
    try {
      const value = await options.read()
      failures = 0
      last = value
      const now = clock.now()
      if (options.done(value)) return { kind: 'done', value, polls, at: now }
      options.pending?.(value, now)
    } catch (error) {
      failures++
      if (failures >= maxReadFailures) throw new PollReadError(options.what, failures, error)
      wait = readBackoffMs(options.intervalMs, failures)
      options.log.warning(
        `Reading ${options.what} failed (${failures}/${maxReadFailures}), retrying in ${Math.round(wait / 1000)} s: ${errorMessage(error)}`
      )
    }
    const now = clock.now()
    if (now >= options.deadline) return { kind: 'deadline', value: last, polls, at: now }
    await clock.sleep(Math.min(wait, options.deadline - now))
  }
}
