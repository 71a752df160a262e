/**
 * Compare-and-swap updates over a store (README: "The ledger"): read, apply, write with the
 * version read; on a conflict re-read, re-apply and retry after a backoff. Nothing is ever
 * written blind.
 */
import type { Clock, Logger, StateStore, StoredState } from '../ports.js'
import { StateConflictError, StateFileError } from '../core/state-errors.js'

export interface UpdateStateOptions {
  clock: Clock
  /** Jitter source in [0, 1); defaults to Math.random. */
  random?: () => number
  /** Reads (and writes) before giving up; default 5. */
  maxAttempts?: number
  /** Told about each conflict and retry. */
  log?: Pick<Logger, 'info'>
  /**
   * The file as the caller read it a moment ago (null: it did not exist), used instead of a
   * first read; a conflict reads it again.
   */
  current?: StoredState | null
}

export interface UpdatedState {
  text: string
  version: string
  /** How many read-apply-write rounds it took (1 without conflicts). */
  attempts: number
}

const UPDATE_BACKOFF = { baseMs: 250, maxMs: 8000 } as const

/** Exponential backoff with jitter: attempt 1 waits 125–250 ms, then doubling, at most 8 s. */
export function backoffMs(attempt: number, random: () => number): number {
  const ceiling = Math.min(UPDATE_BACKOFF.maxMs, UPDATE_BACKOFF.baseMs * 2 ** (attempt - 1))
  return Math.round(ceiling / 2 + (ceiling / 2) * random())
}

/**
 * Changes one file of a store by compare-and-swap. `apply` gets the current text (null when
 * there is no file) and returns the new text; it runs again on every retry, so it must
 * compute from the text it is given. Text equal to the stored one is not written.
 * A StateFileError thrown by `apply` (a malformed file) stops the update with nothing written.
 */
export async function updateFile(
  store: StateStore,
  path: string,
  apply: (text: string | null) => string,
  options: UpdateStateOptions
): Promise<UpdatedState> {
  const maxAttempts = options.maxAttempts ?? 5
  const random = options.random ?? Math.random
  for (let attempt = 1; ; attempt += 1) {
    const current =
      attempt === 1 && options.current !== undefined ? options.current : await store.read(path)
    let next: string
    try {
      next = apply(current?.text ?? null)
    } catch (error) {
      throw error instanceof StateFileError ? error.inFile(`${path} (${store.description})`) : error
    }
    if (current && next === current.text)
      return { text: next, version: current.version, attempts: attempt }
    try {
      const { version } = await store.write(path, next, current?.version ?? null)
      return { text: next, version, attempts: attempt }
    } catch (error) {
      if (!(error instanceof StateConflictError)) throw error
      await waitBeforeRetry(path, store, attempt, error, { ...options, maxAttempts, random })
    }
  }
}

/** After a conflict: gives up after `maxAttempts` (a clear error), else waits a backoff. */
export async function waitBeforeRetry(
  path: string,
  store: StateStore,
  attempt: number,
  conflict: StateConflictError,
  options: UpdateStateOptions & { maxAttempts: number; random: () => number }
): Promise<void> {
  if (attempt >= options.maxAttempts) {
    throw new StateConflictError(
      `${path} (${store.description}) kept changing while it was written: gave up after ${attempt} attempts. Fix: re-run the job; if it keeps happening, check for another workflow writing the same program's state`,
      { cause: conflict }
    )
  }
  const wait = backoffMs(attempt, options.random)
  options.log?.info(
    `${path} changed while it was written (attempt ${attempt}); retrying in ${wait} ms: ${conflict.message}`
  )
  await options.clock.sleep(wait)
}
