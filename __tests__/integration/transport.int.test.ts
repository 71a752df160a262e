/**
 * The fake API's two transports: in-process runs send API requests through `fake.fetch` (in
 * memory), the bundle and git through its HTTP server. Both go through one router, so the
 * same run costs the same requests, answers and rate-limit points either way, faults
 * included (README: "Development").
 */
import { describe, expect, it } from '@jest/globals'
import {
  startFakeGitHub,
  type FakeGitHub,
  type Scenario
} from '../../__fixtures__/fake-github/index.js'
import { BRANCH, PROGRAM, SHA, expectValidRequests } from '../helpers/fake-run.js'
import { corpusLog, failingCheck, passingCheck } from '../helpers/gh-aw.js'
import { runInProcess } from '../helpers/in-process.js'

const CHECK_RUNS = 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs'

const scenario: Scenario = {
  branches: { [BRANCH]: SHA },
  checkRuns: [
    passingCheck(SHA, 'build'),
    failingCheck(SHA, 'lint', corpusLog('eslint/unused-var/job-log.log'))
  ],
  faults: [
    { kind: 'status', status: 502, route: CHECK_RUNS, afterRequests: 2, count: 2 },
    { kind: 'drop-connection', route: CHECK_RUNS, afterRequests: 5 },
    { kind: 'malformed-json', route: CHECK_RUNS, afterRequests: 7 },
    { kind: 'secondary-rate-limit', route: CHECK_RUNS, afterRequests: 9, retryAfterSeconds: 30 }
  ]
}

async function gate(overHttp: boolean) {
  const fake = await startFakeGitHub({ scenario })
  fake.setNow(Date.UTC(2026, 0, 5, 9))
  try {
    const run = await runInProcess(fake, {
      inputs: { program: PROGRAM, push: 'false' },
      overHttp
    })
    expectValidRequests(fake)
    // Each run has its own port and temporary folder, and its rate-limit window started
    // when its fake did.
    const rateLimit: Partial<FakeGitHub['rateLimit']> = { ...fake.rateLimit }
    delete rateLimit.resetAt
    const outputs = { ...run.outputs }
    delete outputs['failure-summary-path']
    return {
      outputs: JSON.parse(JSON.stringify(outputs).replaceAll(fake.serverUrl, 'SERVER')) as unknown,
      requests: fake.requests.map((r) => ({
        at: r.at,
        method: r.method,
        path: r.path,
        query: r.query,
        status: r.status,
        charged: r.charged,
        fault: r.fault ?? null,
        conditional: r.headers['if-none-match'] !== undefined
      })),
      rateLimit
    }
  } finally {
    await fake.close()
  }
}

describe('the fake API over HTTP and in memory', () => {
  it('one gate run sends the same requests, gets the same answers and costs the same points', async () => {
    const inMemory = await gate(false)
    const overHttp = await gate(true)
    expect(inMemory).toEqual(overHttp)
    // The run met every fault, read the failing job's log (a redirect followed, a stream read)
    // and polled with conditional requests, so the comparison covers each path.
    expect(inMemory.outputs).toMatchObject({ status: 'failure', verdict: 'red' })
    expect(new Set(inMemory.requests.map((r) => r.fault))).toEqual(
      new Set([null, 'status', 'drop-connection', 'malformed-json', 'secondary-rate-limit'])
    )
    expect(inMemory.requests.some((r) => r.path.endsWith('/logs') && r.status === 302)).toBe(true)
    expect(inMemory.requests.some((r) => r.status === 304 && !r.charged)).toBe(true)
    expect(overHttp.rateLimit.pointsSpent).toBe(inMemory.requests.filter((r) => r.charged).length)
  })

  it('refuses a URL outside the API, so git never reaches it unnoticed', async () => {
    const fake: FakeGitHub = await startFakeGitHub({ scenario: {} })
    try {
      await expect(fake.fetch(`${fake.gitUrl}/info/refs?service=git-upload-pack`)).rejects.toThrow(
        /not an API URL/
      )
      await expect(fake.fetch('http://elsewhere.invalid/repos')).rejects.toThrow(/not an API URL/)
      expect(fake.requests).toEqual([])
    } finally {
      await fake.close()
    }
  })
})
