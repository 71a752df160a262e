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
