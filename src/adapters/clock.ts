/** The real clock (the `Clock` port in ports.ts). */
import type { Clock } from '../ports.js'

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))
}
