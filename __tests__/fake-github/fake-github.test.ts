import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from '@jest/globals'
import { Octokit } from '@octokit/rest'
import { implementedRoutes, startFakeGitHub } from '../../__fixtures__/fake-github/index.js'
import type { CheckRunPlan, FakeGitHub, Scenario } from '../../__fixtures__/fake-github/index.js'
import { quiet, repo } from './support.js'

const SHA_A = 'a'.repeat(40)
const SHA_B = 'b'.repeat(40)
const START = Date.parse('2026-03-01T12:00:00Z')

let fake: FakeGitHub | undefined

async function start(
  scenario: Scenario = {},
  prefix?: string
): Promise<{ fake: FakeGitHub; octokit: Octokit }> {
  fake = await startFakeGitHub({
    scenario: { startTime: START, ...scenario },
    ...(prefix ? { prefix } : {})
  })
  return { fake, octokit: new Octokit({ baseUrl: fake.apiUrl, log: quiet }) }
}

afterEach(async () => {
  if (fake) {
    // every request the tests send through Octokit must be valid against the OpenAPI description
    expect(
      fake.invalidRequests().map((r) => `${r.method} ${r.path}: ${r.openapi.errors.join('; ')}`)
    ).toEqual([])
    await fake.close()
  }
  fake = undefined
})

const lifecycle = (
  conclusion: CheckRunPlan['timeline'][number]['conclusion'] = 'success'
): CheckRunPlan['timeline'] => [
  { at: 0, status: 'queued' },
  { at: 10, status: 'in_progress' },
  { at: 60, status: 'completed', conclusion }
]

describe('check runs', () => {
  it('paginates 250 check runs like GitHub, with Link headers and total_count', async () => {
    const checkRuns = Array.from({ length: 250 }, (_, i) => ({
      sha: SHA_A,
      name: `job-${String(i).padStart(3, '0')}`,
      timeline: lifecycle()
    }))
    const { fake, octokit } = await start({ checkRuns })

    const first = await octokit.rest.checks.listForRef({ ...repo, ref: SHA_A })
    expect(first.data.total_count).toBe(250)
    expect(first.data.check_runs).toHaveLength(30)
    expect(first.headers.link).toContain('rel="next"')
    expect(first.headers.link).toContain('page=9>; rel="last"')

    const all = await octokit.paginate(octokit.rest.checks.listForRef, {
      ...repo,
      ref: SHA_A,
      per_page: 100
    })
    expect(all).toHaveLength(250)
    expect(new Set(all.map((r) => r.name)).size).toBe(250)
    expect(new Set(all.map((r) => r.id)).size).toBe(250)
    // 1 request above + 3 pages of 100
    expect(fake.requests).toHaveLength(4)
    const last = fake.requests[3]
    expect(last?.query).toEqual({ per_page: '100', page: '3' })
  })

  it('moves a timeline only with virtual time, through advance and the clock port', async () => {
    const { fake, octokit } = await start({
      checkRuns: [{ sha: SHA_A, name: 'test', timeline: lifecycle('failure') }]
    })
    const status = async () =>
      (await octokit.rest.checks.listForRef({ ...repo, ref: SHA_A })).data.check_runs[0]

    const queued = await status()
    expect(queued?.status).toBe('queued')
    expect(queued?.started_at).toBe('2026-03-01T12:00:00Z')

    fake.advance(10_000)
    expect((await status())?.status).toBe('in_progress')

    expect(fake.clock.now()).toBe(START + 10_000)
    await fake.clock.sleep(49_000)
    expect(fake.clock.now()).toBe(START + 59_000)
    expect((await status())?.status).toBe('in_progress')

    // sleeping a negative time never moves the clock back
    await fake.clock.sleep(-30_000)
    expect(fake.now()).toBe(START + 59_000)
    await expect(fake.clock.sleep(Number.NaN)).rejects.toThrow('not a number')

    fake.advance(1_000)
    const done = await status()
    expect(done).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      completed_at: '2026-03-01T12:01:00Z'
    })
    expect(done?.details_url).toBe(
      `${fake.serverUrl}/octo-org/demo/actions/runs/${fake.checkRunsFor(SHA_A)[0]?.runId}/job/${done?.id}`
    )
  })

  it('counts offsets from the moment a SHA is first asked about', async () => {
    const { fake, octokit } = await start({
      checkRuns: [{ sha: SHA_A, name: 'test', timeline: lifecycle() }]
    })
    fake.advance(3_600_000)
    const runs = await octokit.rest.checks.listForRef({ ...repo, ref: SHA_A })
    expect(runs.data.check_runs[0]?.status).toBe('queued')
    expect(fake.state.shaSeenAt[SHA_A]).toBe(START + 3_600_000)
  })

  it('shows a re-run pair: filter=latest keeps the newer attempt, filter=all keeps both', async () => {
    const { fake, octokit } = await start({
      checkRuns: [
        { sha: SHA_A, name: 'test', runAttempt: 1, timeline: lifecycle('failure') },
        {
          sha: SHA_A,
          name: 'test',
          runAttempt: 2,
          timeline: [
            { at: 120, status: 'queued' },
            { at: 180, status: 'completed', conclusion: 'success' }
          ]
        }
      ]
    })
    fake.advance(0)
    await octokit.rest.checks.listForRef({ ...repo, ref: SHA_A })
    fake.advance(200_000)

    const latest = (await octokit.rest.checks.listForRef({ ...repo, ref: SHA_A })).data.check_runs
    expect(latest.map((r) => r.conclusion)).toEqual(['success'])
    const all = (await octokit.rest.checks.listForRef({ ...repo, ref: SHA_A, filter: 'all' })).data
      .check_runs
    expect(all.map((r) => r.conclusion)).toEqual(['failure', 'success'])
    expect(all[0]?.id).not.toBe(all[1]?.id)
    expect(all[0]?.started_at).not.toBe(all[1]?.started_at)
    expect(all[0]?.check_suite?.id).toBe(all[1]?.check_suite?.id)

    const runId = fake.checkRunsFor(SHA_A)[0]?.runId ?? 0
    const run = await octokit.rest.actions.getWorkflowRun({ ...repo, run_id: runId })
    expect(run.data).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      run_attempt: 2,
      head_sha: SHA_A
    })
    expect(run.data.check_suite_id).toBe(all[0]?.check_suite?.id)
    const jobs = await octokit.rest.actions.listJobsForWorkflowRun({ ...repo, run_id: runId })
    expect(jobs.data.jobs.map((j) => [j.id, j.conclusion])).toEqual([[all[1]?.id, 'success']])
    const allJobs = await octokit.rest.actions.listJobsForWorkflowRun({
      ...repo,
      run_id: runId,
      filter: 'all'
    })
    expect(allJobs.data.total_count).toBe(2)
  })

  it('keys plans by the order of new heads on a branch, and applies `each` to the rest', async () => {
    const { fake, octokit } = await start({
      branches: { 'autoloop/x': SHA_A },
      checkRuns: [
        { branch: 'autoloop/x', head: 1, name: 'build', timeline: lifecycle('failure') },
        { branch: 'autoloop/x', head: 2, name: 'build', timeline: lifecycle('success') },
        {
          branch: 'autoloop/x',
          head: 'each',
          name: 'lint',
          timeline: [{ at: 5, status: 'completed' }]
        }
      ]
    })
    const names = async (ref: string) =>
      (await octokit.rest.checks.listForRef({ ...repo, ref })).data.check_runs.map(
        (r) => `${r.name}:${r.conclusion}`
      )

    fake.advance(60_000)
    expect(await names('autoloop/x')).toEqual([]) // the initial head: `each` applies, but from now
    fake.advance(5_000)
    expect(await names('autoloop/x')).toEqual(['lint:success'])

    fake.setBranch('autoloop/x', SHA_B)
    fake.advance(60_000)
    expect(await names('autoloop/x')).toEqual(['build:failure'])

    const third = 'c'.repeat(40)
    fake.state.branches['autoloop/x'] = third // a direct mutation appears with the next request
    expect(await names(third)).toEqual(['build:null'])
    fake.advance(60_000)
    expect(await names(third)).toEqual(['build:success'])
    expect(fake.headsOf('autoloop/x')).toEqual([SHA_A, SHA_B, third])
  })

  it('serves a run, its jobs, annotations (paginated) and a log through a redirect', async () => {
    const annotations = Array.from({ length: 35 }, (_, i) => ({
      path: 'src/a.ts',
      start_line: i + 1,
      end_line: i + 1,
      annotation_level: 'failure' as const,
      message: `error ${i}`
    }))
    const { fake, octokit } = await start({
      checkRuns: [
        {
          sha: SHA_A,
          name: 'test',
          timeline: lifecycle('failure'),
          output: { title: '2 failed', summary: 'sum', text: 'details' },
          annotations,
          log: '2026-03-01T12:00:01.0000000Z ##[error]boom\n'
        },
        {
          sha: SHA_A,
          name: 'big',
          timeline: lifecycle(),
          log: { text: 'x'.repeat(99) + '\n', repeat: 20_000 }
        }
      ]
    })
    await octokit.rest.checks.listForRef({ ...repo, ref: SHA_A })
    const job = fake.checkRunsFor(SHA_A)[0]
    const big = fake.checkRunsFor(SHA_A)[1]
    expect(job).toBeDefined()
    const jobId = job?.id ?? 0

    // before completion: no output, no annotations, no log
    const running = await octokit.rest.checks.get({ ...repo, check_run_id: jobId })
    expect(running.data.output).toMatchObject({ title: null, annotations_count: 0 })
    await expect(
      octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...repo, job_id: jobId })
    ).rejects.toMatchObject({
      status: 404
    })

    fake.advance(60_000)
    const done = await octokit.rest.checks.get({ ...repo, check_run_id: jobId })
    expect(done.data.output).toMatchObject({
      title: '2 failed',
      summary: 'sum',
      text: 'details',
      annotations_count: 35
    })
    const pages = await octokit.paginate(octokit.rest.checks.listAnnotations, {
      ...repo,
      check_run_id: jobId
    })
    expect(pages.map((a) => a.message)).toEqual(annotations.map((a) => a.message))

    const redirect = await fetch(`${fake.apiUrl}/repos/octo-org/demo/actions/jobs/${jobId}/logs`, {
      redirect: 'manual'
    })
    expect(redirect.status).toBe(302)
    const location = redirect.headers.get('location') ?? ''
    expect(location.startsWith(`${fake.serverUrl}/_fake/logs/`)).toBe(true)

    const followed = await octokit.rest.actions.downloadJobLogsForWorkflowRun({
      ...repo,
      job_id: jobId
    })
    expect(followed.data).toBe('2026-03-01T12:00:01.0000000Z ##[error]boom\n')
    const bigLog = await fetch(`${fake.serverUrl}/_fake/logs/${big?.id}`)
    expect((await bigLog.text()).length).toBe(100 * 20_000)

    const job2 = await octokit.rest.actions.getJobForWorkflowRun({ ...repo, job_id: jobId })
    expect(job2.data).toMatchObject({
      id: jobId,
      run_id: job?.runId,
      conclusion: 'failure',
      head_sha: SHA_A
    })
  })

  it('answers 410 or 404 for an expired log as the plan says', async () => {
    const { fake, octokit } = await start({
      checkRuns: [
        { sha: SHA_A, name: 'gone', timeline: lifecycle('failure'), log: 'x', logExpired: 410 },
        { sha: SHA_A, name: 'missing', timeline: lifecycle('failure'), log: 'x', logExpired: 404 }
      ]
    })
    await octokit.rest.checks.listForRef({ ...repo, ref: SHA_A })
    fake.advance(60_000)
    const [gone, missing] = fake.checkRunsFor(SHA_A)
    await expect(
      octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...repo, job_id: gone?.id ?? 0 })
    ).rejects.toMatchObject({ status: 410 })
    await expect(
      octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...repo, job_id: missing?.id ?? 0 })
    ).rejects.toMatchObject({ status: 404 })
  })

  it('gives non-Actions apps their own slug, suite and no workflow run', async () => {
    const { fake, octokit } = await start({
      checkRuns: [
        {
          sha: SHA_A,
          name: 'ci/external',
          app: 'circle-ci',
          timeline: [{ at: 0, status: 'completed', conclusion: 'neutral' }]
        }
      ]
    })
    const run = (await octokit.rest.checks.listForRef({ ...repo, ref: SHA_A })).data.check_runs[0]
    expect(run?.app?.slug).toBe('circle-ci')
    expect(run?.html_url).toBe(`${fake.serverUrl}/octo-org/demo/runs/${run?.id}`)
    expect(fake.checkRunsFor(SHA_A)[0]?.runId).toBeNull()
    const filtered = await octokit.rest.checks.listForRef({
      ...repo,
      ref: SHA_A,
      app_id: run?.app?.id ?? 0
    })
    expect(filtered.data.total_count).toBe(1)
    expect(
      (await octokit.rest.checks.listForRef({ ...repo, ref: SHA_A, app_id: 15368 })).data
        .total_count
    ).toBe(0)
  })
})

describe('commit statuses', () => {
  it('serves a status timeline as a combined state (latest per context) and as a list', async () => {
    const { fake, octokit } = await start({
      statuses: [
        {
          sha: SHA_A,
          context: 'ci/lint',
          timeline: [
            { at: 0, state: 'pending' },
            { at: 30, state: 'success' }
          ]
        },
        {
          sha: SHA_A,
          context: 'ci/deploy',
          timeline: [
            { at: 10, state: 'pending' },
            { at: 40, state: 'error', description: 'boom', targetUrl: 'https://ci.invalid/1' }
          ]
        }
      ]
    })
    const combined = async () =>
      (await octokit.rest.repos.getCombinedStatusForRef({ ...repo, ref: SHA_A })).data
    expect(await combined()).toMatchObject({ state: 'pending', total_count: 1 })
    fake.advance(35_000)
    const mid = await combined()
    expect(mid.state).toBe('pending')
    expect(mid.statuses.map((s) => `${s.context}=${s.state}`)).toEqual([
      'ci/deploy=pending',
      'ci/lint=success'
    ])
    fake.advance(5_000)
    const end = await combined()
    expect(end.state).toBe('failure')
    expect(end.statuses.find((s) => s.context === 'ci/deploy')).toMatchObject({
      description: 'boom',
      target_url: 'https://ci.invalid/1'
    })

    const list = await octokit.rest.repos.listCommitStatusesForRef({ ...repo, ref: SHA_A })
    expect(list.data.map((s) => `${s.context}=${s.state}`)).toEqual([
      'ci/deploy=error',
      'ci/lint=success',
      'ci/deploy=pending',
      'ci/lint=pending'
    ])

    await octokit.rest.repos.createCommitStatus({
      ...repo,
      sha: SHA_A,
      state: 'success',
      context: 'ci/deploy'
    })
    expect((await combined()).state).toBe('success')
  })

  it('reads a commit with no statuses as pending', async () => {
    const { octokit } = await start()
    const combined = await octokit.rest.repos.getCombinedStatusForRef({ ...repo, ref: 'main' })
    expect(combined.data).toMatchObject({ state: 'pending', total_count: 0 })
  })
})

describe('conditional requests and rate limit', () => {
  it('answers 304 to a matching If-None-Match, and charges nothing for it', async () => {
    const { fake, octokit } = await start({
      checkRuns: [{ sha: SHA_A, name: 'test', timeline: lifecycle() }]
    })
    const first = await octokit.rest.checks.listForRef({ ...repo, ref: SHA_A })
    const etag = first.headers.etag ?? ''
    expect(etag).toMatch(/^W\/"[0-9a-f]{40}"$/)
    expect(first.headers['x-ratelimit-used']).toBe('1')

    await expect(
      octokit.rest.checks.listForRef({ ...repo, ref: SHA_A, headers: { 'if-none-match': etag } })
    ).rejects.toMatchObject({ status: 304 })
    expect(fake.rateLimit).toMatchObject({
      requestsSent: 2,
      pointsSpent: 1,
      notModified: 1,
      used: 1
    })
    expect(fake.requests[1]).toMatchObject({
      status: 304,
      charged: false,
      headers: { 'if-none-match': etag }
    })

    fake.advance(10_000) // the run moves to in_progress: the representation (and ETag) changes
    const changed = await octokit.rest.checks.listForRef({
      ...repo,
      ref: SHA_A,
      headers: { 'if-none-match': etag }
    })
    expect(changed.status).toBe(200)
    expect(changed.headers.etag).not.toBe(etag)
    expect(fake.rateLimit).toMatchObject({ pointsSpent: 2, notModified: 1 })
  })

  it('sends rate-limit headers, runs out, serves /rate_limit for free and resets after an hour of virtual time', async () => {
    const { fake, octokit } = await start({ rateLimit: { limit: 3 } })
    const a = await octokit.rest.repos.get(repo)
    expect(a.headers).toMatchObject({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '2',
      'x-ratelimit-resource': 'core'
    })
    expect(Number(a.headers['x-ratelimit-reset'])).toBe(Math.floor((START + 3_600_000) / 1000))
    await octokit.rest.repos.get(repo)
    await octokit.rest.repos.get(repo)
    const limited = await octokit.rest.repos
      .get(repo)
      .catch((e: { status: number; response: { headers: Record<string, string> } }) => e)
    expect(limited).toMatchObject({
      status: 403,
      response: { headers: { 'x-ratelimit-remaining': '0' } }
    })
    const limits = await octokit.rest.rateLimit.get()
    expect(limits.data.resources.core).toMatchObject({ limit: 3, used: 3, remaining: 0 })
    expect(fake.rateLimit).toMatchObject({ requestsSent: 5, pointsSpent: 3 })

    fake.advance(3_600_000)
    expect((await octokit.rest.repos.get(repo)).headers['x-ratelimit-remaining']).toBe('2')
  })
})

describe('prefix', () => {
  it('answers only under the prefix and records requests outside it as invalid', async () => {
    const { fake, octokit } = await start({}, '/api/v3/')
    expect(fake.apiUrl).toBe(`${fake.serverUrl}/api/v3`)
    const repoData = await octokit.rest.repos.get(repo)
    expect(repoData.data.default_branch).toBe('main')
    expect(fake.requests[0]?.path).toBe('/repos/octo-org/demo')

    const outside = await fetch(`${fake.serverUrl}/repos/octo-org/demo`)
    expect(outside.status).toBe(404)
    expect(fake.invalidRequests().map((r) => r.openapi.errors[0])).toEqual([
      '/repos/octo-org/demo is outside the API prefix /api/v3'
    ])
    fake.requests.pop() // the deliberate invalid request: keep the afterEach check for the rest
  })
})

describe('the README', () => {
  const readme = readFileSync(
    fileURLToPath(new URL('../../__fixtures__/fake-github/README.md', import.meta.url)),
    'utf8'
  )
  const section = (title: string) => readme.split(`\n## ${title}\n`)[1]?.split('\n## ')[0] ?? ''
  /** The code spans of each table row's first cell. */
  const firstCells = (text: string) =>
    [...text.matchAll(/^\| (.+?) +\|/gm)].flatMap((row) =>
      [...(row[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '')
    )

  it('lists exactly the routes the fake serves', () => {
    expect(firstCells(section('Routes served')).sort()).toEqual([...implementedRoutes].sort())
  })

  it('describes every member of the handle', async () => {
    const { fake } = await start()
    const documented = firstCells(section('The handle (`FakeGitHub`)')).map((name) =>
      name.replace(/\(.*$/, '')
    )
    expect(documented.sort()).toEqual(Object.keys(fake).sort())
  })
})
