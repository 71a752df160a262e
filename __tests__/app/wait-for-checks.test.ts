import { describe, expect, it } from '@jest/globals'
import { manualClock } from '../../__fixtures__/clock.js'
import { memoryLogger } from '../../__fixtures__/log.js'
import { waitForVerdict, type WaitOptions } from '../../src/app/wait-for-checks.js'
import type { CheckRunInfo, ChecksSnapshot, ReducePolicy } from '../../src/core/checks/reduce.js'

const policy: ReducePolicy = {
  requiredChecks: [],
  isIgnored: () => false,
  ownWorkflowRunId: undefined,
  failFast: false,
  allowNoChecks: false,
  graceMs: 60_000
}

function check(status: string, conclusion: string | null = null): CheckRunInfo {
  return {
    id: 1,
    name: 'test',
    status,
    conclusion,
    url: 'https://github.example/o/r/runs/1',
    startedAt: null,
    workflowRunId: undefined,
    jobId: undefined,
    checkSuiteId: undefined,
    appSlug: 'github-actions'
  }
}

/** A check that is in progress until `completesAt` (ms after start), then has `conclusion`. */
function timeline(
  clock: { now(): number },
  start: number,
  completesAt: number,
  conclusion: string
) {
  return async (): Promise<ChecksSnapshot> => ({
    checkRuns: [
      clock.now() - start >= completesAt ? check('completed', conclusion) : check('in_progress')
    ],
    statuses: []
  })
}

function options(
  overrides: Partial<WaitOptions> & Pick<WaitOptions, 'clock' | 'readChecks'>
): WaitOptions {
  const start = overrides.clock.now()
  return {
    sha: 'a'.repeat(40),
    policy,
    log: memoryLogger(),
    pollIntervalMs: 15_000,
    graceFrom: start,
    deadline: start + 3_600_000,
    ...overrides
  }
}

describe('waitForVerdict', () => {
  it('gives the verdict within one poll interval of the last check completing', async () => {
    const clock = manualClock()
    const start = clock.now()
    const completesAt = 47 * 60_000 + 3_000
    const result = await waitForVerdict(
      options({ clock, readChecks: timeline(clock, start, completesAt, 'success') })
    )
    expect(result.kind).toBe('verdict')
    if (result.kind !== 'verdict') return
    expect(result.verdict.kind).toBe('green')
    const delay = result.finishedAt - (start + completesAt)
    expect(delay).toBeGreaterThanOrEqual(0)
    expect(delay).toBeLessThanOrEqual(15_000)
  })

  it('stops at the wall-clock cap with ci-timeout, naming what was still running', async () => {
    const clock = manualClock()
    const start = clock.now()
    const result = await waitForVerdict(
      options({
        clock,
        readChecks: timeline(clock, start, Infinity, 'success'),
        deadline: start + 10 * 60_000
      })
    )
    expect(result.kind).toBe('ci-timeout')
    if (result.kind === 'ci-timeout') expect(result.waitingFor).toEqual(['test'])
    expect(clock.now()).toBe(start + 10 * 60_000)
  })

  it('logs progress with elapsed time while waiting', async () => {
    const clock = manualClock()
    const log = memoryLogger()
    await waitForVerdict(
      options({ clock, log, readChecks: timeline(clock, clock.now(), 5 * 60_000, 'failure') })
    )
    const progress = log.lines.filter((line) => line.startsWith('['))
    expect(progress[0]).toMatch(
      /^\[0s\] 1 counted: 0 passed, 0 failed, 1 running; waiting for test$/
    )
    expect(progress.some((line) => line.startsWith('[1m00s]'))).toBe(true)
  })

  it('retries failed reads, and never turns them into a verdict', async () => {
    const clock = manualClock()
    let calls = 0
    const flaky = async (): Promise<ChecksSnapshot> => {
      calls++
      if (calls <= 3) throw new Error('502 Bad Gateway')
      return { checkRuns: [check('completed', 'success')], statuses: [] }
    }
    const result = await waitForVerdict(
      options({ clock, readChecks: flaky, policy: { ...policy, graceMs: 0 } })
    )
    expect(result.kind === 'verdict' && result.verdict.kind).toBe('green')
    expect(calls).toBe(4)

    const broken = async (): Promise<ChecksSnapshot> => {
      throw new Error('503 Service Unavailable')
    }
    await expect(
      waitForVerdict(options({ clock, readChecks: broken, maxReadFailures: 3 }))
    ).rejects.toThrow('503')
  })

  it('warns once about an unknown state and keeps waiting', async () => {
    const clock = manualClock()
    const log = memoryLogger()
    const start = clock.now()
    const readChecks = async (): Promise<ChecksSnapshot> => ({
      checkRuns: [
        clock.now() - start < 60_000
          ? check('completed', 'something_new')
          : check('completed', 'success')
      ],
      statuses: []
    })
    const result = await waitForVerdict(options({ clock, log, readChecks }))
    expect(result.kind === 'verdict' && result.verdict.kind).toBe('green')
    expect(log.lines.filter((l) => l.includes('unknown state'))).toHaveLength(1)
  })
})
