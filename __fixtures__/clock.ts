/**
 * Clocks for tests: time that moves only when told to, so guards, timeouts and backoff are
 * tested without sleeping.
 */
import type { Clock } from '../src/ports.js'

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
