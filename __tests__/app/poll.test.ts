import { describe, expect, it } from '@jest/globals'
import { manualClock } from '../../__fixtures__/clock.js'
import { memoryLogger } from '../../__fixtures__/log.js'
import {
  poll,
  PollReadError,
  readBackoffMs,
  READ_FAILURES_TOLERATED,
  type PollOptions
} from '../../src/app/poll.js'

/** Reads that answer from a script: a number is a value, 'fail' a failed read. */
function scripted(script: Array<number | 'fail'>) {
  const clock = manualClock()
  const sleeps: number[] = []
  const sleep = clock.sleep
  clock.sleep = async (ms) => {
    sleeps.push(ms)
    await sleep(ms)
  }
  let reads = 0
  const read = async () => {
    const step = script[Math.min(reads, script.length - 1)]
    reads++
    if (step === 'fail') throw new Error('502 Bad Gateway')
    return step as number
  }
  const options = (overrides: Partial<PollOptions<number>> = {}): PollOptions<number> => ({
    what: 'the checks of 0123456789ab',
    read,
    done: (value) => value >= 10,
    clock,
    log: memoryLogger(),
    intervalMs: 15_000,
    deadline: clock.now() + 3_600_000,
    ...overrides
  })
  return { clock, sleeps, options, reads: () => reads }
}

describe('poll', () => {
  it('reads until a value is final, one interval apart', async () => {
    const { options, sleeps } = scripted([1, 2, 10])
    await expect(poll(options())).resolves.toMatchObject({ kind: 'done', value: 10, polls: 3 })
    expect(sleeps).toEqual([15_000, 15_000])
  })

  it('retries a failed read after a backoff that doubles, and a success resets it', async () => {
    const { options, sleeps } = scripted(['fail', 'fail', 'fail', 1, 'fail', 10])
    const result = await poll(options())
    expect(result).toMatchObject({ kind: 'done', value: 10, polls: 6 })
    expect(sleeps).toEqual([15_000, 30_000, 60_000, 15_000, 15_000])
  })

  it('the fifth failed read in a row ends it with a PollReadError carrying the last error', async () => {
    const { options, reads } = scripted(['fail'])
    const error = await poll(options()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PollReadError)
    expect((error as PollReadError).failures).toBe(READ_FAILURES_TOLERATED)
    expect(((error as PollReadError).cause as Error).message).toBe('502 Bad Gateway')
    expect(reads()).toBe(READ_FAILURES_TOLERATED)
  })

  it('never takes a failed read for an answer, and stops at the deadline with the last value', async () => {
    const { clock, options, sleeps } = scripted([3, 'fail', 'fail', 'fail'])
    const start = clock.now()
    const result = await poll(options({ deadline: start + 40_000 }))
    expect(result).toMatchObject({ kind: 'deadline', value: 3 })
    expect(clock.now()).toBe(start + 40_000)
    expect(sleeps).toEqual([15_000, 15_000, 10_000])
  })

  it('the backoff is capped at five minutes', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => readBackoffMs(60_000, n))).toEqual([
      60_000, 120_000, 240_000, 300_000, 300_000, 300_000
    ])
  })
})
