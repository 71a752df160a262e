/**
 * Time is a port: production code reads it from here and never from `Date.now()` or
 * `setTimeout` directly, so guards, timeouts and backoff are tested without sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
  /** Waits `ms` milliseconds of this clock's time. */
  sleep(ms: number): Promise<void>
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))
}

/** A clock that only moves when told to (or when something sleeps on it). */
export interface ManualClock extends Clock {
  advance(ms: number): void
}

export function manualClock(start = Date.parse('2026-01-01T00:00:00Z')): ManualClock {
  let now = start
  return {
    now: () => now,
    advance(ms) {
      now += ms
    },
    async sleep(ms) {
      now += Math.max(0, ms)
      await Promise.resolve()
    }
  }
}
