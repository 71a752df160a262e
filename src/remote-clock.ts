/**
 * A Clock that shares virtual time with the in-repo fake GitHub API (tests and the demo):
 * sleeping asks the fake to move its time forward instead of waiting, so an hour-long wait
 * runs in milliseconds with the same timeline on both sides. Selected by the
 * AUTOLOOP_CLOCK_URL variable; never used against GitHub.
 */
import type { Clock } from './clock.js'
import { ActionError } from './errors.js'

async function readNow(response: Response, url: string): Promise<number> {
  const body = (await response.json()) as { now?: unknown }
  if (!response.ok || typeof body.now !== 'number')
    throw new ActionError(`The clock at ${url} answered ${response.status} without a time`, {
      fix: 'unset AUTOLOOP_CLOCK_URL unless the action runs against the fake GitHub API'
    })
  return body.now
}

export async function remoteClock(url: string): Promise<Clock> {
  let now = await readNow(await fetch(url), url)
  return {
    now: () => now,
    async sleep(ms) {
      const response = await fetch(`${url}/sleep`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ until: now + Math.max(0, ms) })
      })
      now = await readNow(response, url)
    }
  }
}
