import { afterEach, describe, expect, it } from '@jest/globals'
import { throttling } from '@octokit/plugin-throttling'
import { Octokit } from '@octokit/rest'
import { startFakeGitHub } from '../../__fixtures__/fake-github/index.js'
import type { FakeGitHub, Scenario } from '../../__fixtures__/fake-github/index.js'
import { quiet, repo, statusOf } from './support.js'

const SHA = 'a'.repeat(40)
const CHECK_RUNS = 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs'

let fake: FakeGitHub | undefined

async function start(scenario: Scenario = {}): Promise<{ fake: FakeGitHub; octokit: Octokit }> {
  fake = await startFakeGitHub({ scenario })
  return { fake, octokit: new Octokit({ baseUrl: fake.apiUrl, log: quiet }) }
}

afterEach(async () => {
  await fake?.close()
  fake = undefined
})

describe('faults', () => {
  it('answers a burst of 502s on a matching route, then recovers; other routes are untouched', async () => {
    const { fake, octokit } = await start({
      faults: [{ kind: 'status', status: 502, route: CHECK_RUNS, count: 3 }]
    })
    const list = () => statusOf(octokit.rest.checks.listForRef({ ...repo, ref: SHA }))
    expect(await list()).toBe(502)
    expect(await statusOf(octokit.rest.repos.get(repo))).toBe(200)
    expect(await list()).toBe(502)
    expect(await list()).toBe(502)
    expect(await list()).toBe(200)
    expect(fake.requests.map((r) => r.fault ?? '-')).toEqual([
      'status',
      '-',
      'status',
      'status',
      '-'
    ])
    expect(fake.state.faults).toEqual([])
  })

  it('fires after N matching requests, by method and path regex', async () => {
    const { octokit } = await start({
      faults: [
        {
          kind: 'status',
          status: 500,
          method: 'GET',
          path: '^/repos/[^/]+/[^/]+$',
          afterRequests: 2
        }
      ]
    })
    const results = []
    for (let i = 0; i < 4; i++) results.push(await statusOf(octokit.rest.repos.get(repo)))
    expect(results).toEqual([200, 200, 500, 200])
  })

  it('signals a secondary rate limit the way @octokit/plugin-throttling recognises it', async () => {
    const { fake } = await start({
      faults: [{ kind: 'secondary-rate-limit', retryAfterSeconds: 2 }]
    })
    const seen: Array<[string, number]> = []
    const octokit = new (Octokit.plugin(throttling))({
      baseUrl: fake.apiUrl,
      log: quiet,
      throttle: {
        retryAfterBaseValue: 1,
        onSecondaryRateLimit: (
          retryAfter: number,
          _o: unknown,
          _k: unknown,
          retryCount: number
        ) => {
          seen.push(['secondary', retryAfter])
          return retryCount < 1
        },
        onRateLimit: (retryAfter: number) => {
          seen.push(['primary', retryAfter])
          return false
        }
      }
    })
    const answer = await octokit.rest.repos.get(repo)
    expect(answer.status).toBe(200)
    expect(seen).toEqual([['secondary', 2]])
    expect(fake.requests.map((r) => r.status)).toEqual([403, 200])
  })

  it('exhausts the primary limit until the reset, as @octokit/plugin-throttling reads it', async () => {
    const { fake } = await start({ faults: [{ kind: 'primary-rate-limit', resetInSeconds: 120 }] })
    const seen: number[] = []
    const octokit = new (Octokit.plugin(throttling))({
      baseUrl: fake.apiUrl,
      log: quiet,
      throttle: {
        onSecondaryRateLimit: () => false,
        onRateLimit: (retryAfter: number) => {
          seen.push(retryAfter)
          return false
        }
      }
    })
    const failed = await octokit.rest.repos
      .get(repo)
      .catch((e: { status: number; response: { headers: Record<string, string> } }) => e)
    expect(failed).toMatchObject({
      status: 403,
      response: { headers: { 'x-ratelimit-remaining': '0' } }
    })
    // the plugin measures the reset against the real clock; the fake starts at real time
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBeGreaterThanOrEqual(119)
    expect(seen[0]).toBeLessThanOrEqual(123)
    expect(await statusOf(octokit.rest.repos.get(repo))).toBe(403)
    fake.advance(120_000)
    expect(await statusOf(octokit.rest.repos.get(repo))).toBe(200)
  })

  it('answers 429 with retry-after', async () => {
    const { octokit } = await start({
      faults: [{ kind: 'too-many-requests', retryAfterSeconds: 7 }]
    })
    const error = await octokit.rest.repos
      .get(repo)
      .catch((e: { status: number; response: { headers: Record<string, string> } }) => e)
    expect(error).toMatchObject({ status: 429, response: { headers: { 'retry-after': '7' } } })
  })

  it('drops the connection without an answer', async () => {
    const { fake, octokit } = await start({
      faults: [{ kind: 'drop-connection', route: 'GET /repos/{owner}/{repo}' }]
    })
    await expect(octokit.rest.repos.get(repo)).rejects.toThrow()
    expect(fake.requests[0]).toMatchObject({
      status: null,
      fault: 'drop-connection',
      charged: false
    })
    expect(await statusOf(octokit.rest.repos.get(repo))).toBe(200)
  })

  it('answers slowly but normally', async () => {
    const { fake, octokit } = await start({ faults: [{ kind: 'slow', delayMs: 20 }] })
    expect((await octokit.rest.repos.get(repo)).data.name).toBe('demo')
    expect(fake.requests[0]).toMatchObject({ status: 200, fault: 'slow' })
  })

  it('sends a body that is not JSON', async () => {
    const { octokit } = await start({ faults: [{ kind: 'malformed-json' }] })
    const answer = await octokit.rest.repos.get(repo)
    expect(typeof answer.data).toBe('string')
    expect(() => JSON.parse(answer.data as unknown as string)).toThrow()
  })

  it('answers 409 to the next contents PUT even with the right sha, then lets the retry through', async () => {
    const { fake, octokit } = await start({
      contents: { 'memory/autoloop': { 'p.md': 'v1\n' } },
      faults: [{ kind: 'contents-conflict' }]
    })
    const file = await octokit.rest.repos.getContent({
      ...repo,
      path: 'p.md',
      ref: 'memory/autoloop'
    })
    const sha = (file.data as { sha: string }).sha
    const put = () =>
      octokit.rest.repos.createOrUpdateFileContents({
        ...repo,
        path: 'p.md',
        branch: 'memory/autoloop',
        message: 'update',
        content: Buffer.from('v2\n').toString('base64'),
        sha
      })
    expect(await statusOf(put())).toBe(409)
    expect(await statusOf(put())).toBe(200)
    expect(fake.requests.map((r) => r.fault ?? '-')).toEqual(['-', 'contents-conflict', '-'])
  })

  it('expires a job log on demand (410 by default)', async () => {
    const { fake, octokit } = await start({
      checkRuns: [
        {
          sha: SHA,
          name: 'test',
          timeline: [{ at: 0, status: 'completed', conclusion: 'failure' }],
          log: 'boom'
        }
      ],
      faults: [{ kind: 'expired-log' }]
    })
    await octokit.rest.checks.listForRef({ ...repo, ref: SHA })
    const jobId = fake.checkRunsFor(SHA)[0]?.id ?? 0
    expect(
      await statusOf(octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...repo, job_id: jobId }))
    ).toBe(410)
    expect(
      await statusOf(octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...repo, job_id: jobId }))
    ).toBe(200)
  })

  it('can let the write happen before hiding the answer (applyFirst)', async () => {
    const { fake, octokit } = await start({
      issues: [{ number: 7 }],
      faults: [{ kind: 'status', status: 502, method: 'POST', applyFirst: true }]
    })
    expect(
      await statusOf(octokit.rest.issues.createComment({ ...repo, issue_number: 7, body: 'hello' }))
    ).toBe(502)
    expect(fake.state.comments.map((c) => c.body)).toEqual(['hello'])
  })

  it('accepts faults at runtime (JS and /_fake/faults), `always` until cleared', async () => {
    const { fake, octokit } = await start()
    fake.addFault({
      kind: 'status',
      status: 503,
      route: 'GET /repos/{owner}/{repo}',
      count: 'always'
    })
    expect(await statusOf(octokit.rest.repos.get(repo))).toBe(503)
    expect(await statusOf(octokit.rest.repos.get(repo))).toBe(503)
    fake.clearFaults()
    expect(await statusOf(octokit.rest.repos.get(repo))).toBe(200)

    const added = await fetch(`${fake.serverUrl}/_fake/faults`, {
      method: 'POST',
      body: JSON.stringify({ kind: 'too-many-requests' })
    })
    expect(added.status).toBe(201)
    expect(await statusOf(octokit.rest.repos.get(repo))).toBe(429)
  })
})
