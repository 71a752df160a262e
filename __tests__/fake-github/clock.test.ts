import { afterEach, describe, expect, it, jest } from '@jest/globals'
import { Octokit } from '@octokit/rest'
import { startFakeGitHub } from '../../__fixtures__/fake-github/index.js'
import type { CheckRunPlan, FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { quiet, repo } from './support.js'

const SHA = 'a'.repeat(40)
const START = Date.parse('2026-03-01T12:00:00Z')
const plan: CheckRunPlan = {
  sha: SHA,
  name: 'test',
  timeline: [
    { at: 0, status: 'queued' },
    { at: 10, status: 'in_progress' },
    { at: 60, status: 'completed', conclusion: 'failure' }
  ]
}

let fake: FakeGitHub | undefined

afterEach(async () => {
  jest.restoreAllMocks()
  await fake?.close()
  fake = undefined
})

describe('the clock port', () => {
  it('lets an in-process poller wait on virtual time: each sleep moves the fake forward', async () => {
    fake = await startFakeGitHub({ scenario: { startTime: START, checkRuns: [plan] } })
    const octokit = new Octokit({ baseUrl: fake.apiUrl, log: quiet })
    const { clock } = fake
    const seen: string[] = []
    for (;;) {
      const run = (await octokit.rest.checks.listForRef({ ...repo, ref: SHA })).data.check_runs[0]
      seen.push(`${(clock.now() - START) / 1000}s ${run?.status}`)
      if (run?.status === 'completed') break
      await clock.sleep(15_000)
    }
    expect(seen).toEqual([
      '0s queued',
      '15s in_progress',
      '30s in_progress',
      '45s in_progress',
      '60s completed'
    ])
    expect(fake.now()).toBe(START + 60_000)
  })
})

describe('real-time mode', () => {
  it('takes its time from the system clock, so timelines pass in real seconds', async () => {
    let systemNow = START
    jest.spyOn(Date, 'now').mockImplementation(() => systemNow)
    fake = await startFakeGitHub({ realTime: true, scenario: { checkRuns: [plan] } })
    const octokit = new Octokit({ baseUrl: fake.apiUrl, log: quiet })
    const status = async () =>
      (await octokit.rest.checks.listForRef({ ...repo, ref: SHA })).data.check_runs[0]?.status

    expect(await status()).toBe('queued')
    systemNow += 10_000
    expect(fake.now()).toBe(START + 10_000)
    expect(fake.clock.now()).toBe(START + 10_000)
    expect(await status()).toBe('in_progress')
    systemNow += 50_000
    expect(await status()).toBe('completed')
    expect(fake.requests.map((r) => r.at)).toEqual([START, START + 10_000, START + 60_000])

    expect(() => fake?.advance(1_000)).toThrow('realTime')
    expect(() => fake?.setNow(START)).toThrow('realTime')
  })

  it('refuses a virtual start time', async () => {
    await expect(
      startFakeGitHub({ realTime: true, scenario: { startTime: START } })
    ).rejects.toThrow('scenario.startTime cannot be set with realTime')
  })
})
