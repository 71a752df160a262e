import { afterEach, describe, expect, it } from '@jest/globals'
import { Octokit } from '@octokit/rest'
import { startFakeGitHub } from '../../__fixtures__/fake-github/index.js'
import type {
  CheckRunPlan,
  FakeGitHub,
  FakeGitHubOptions,
  Scenario
} from '../../__fixtures__/fake-github/index.js'
import { closeCheckingRequests, quiet, repo, statusOf } from './support.js'

const SHA = 'a'.repeat(40)
const START = Date.parse('2026-03-01T12:00:00Z')
const DISPATCH = 'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches'

let fake: FakeGitHub | undefined

async function start(
  scenario: Scenario = {},
  options: Omit<FakeGitHubOptions, 'scenario'> = {}
): Promise<{ fake: FakeGitHub; octokit: Octokit }> {
  fake = await startFakeGitHub({ scenario: { startTime: START, ...scenario }, ...options })
  return { fake, octokit: new Octokit({ baseUrl: fake.apiUrl, log: quiet }) }
}

afterEach(async () => {
  const current = fake
  fake = undefined
  await closeCheckingRequests(current)
})

function job(name: string, seconds: number, conclusion: 'success' | 'failure'): CheckRunPlan {
  return {
    sha: SHA,
    name,
    timeline: [
      { at: 0, status: 'queued' },
      { at: 5, status: 'in_progress' },
      { at: seconds, status: 'completed', conclusion }
    ]
  }
}

describe('workflow dispatch', () => {
  it('records a dispatch (204), starts a run that moves queued → in_progress → completed', async () => {
    const { fake, octokit } = await start({
      workflows: ['autoloop.lock.yml'],
      dispatchedRuns: { queuedSeconds: 5, runSeconds: 60, conclusion: 'success' }
    })
    const main = fake.state.branches.main
    const sent = await octokit.rest.actions.createWorkflowDispatch({
      ...repo,
      workflow_id: 'autoloop.lock.yml',
      ref: 'main',
      inputs: { program: 'perf' }
    })
    expect(sent.status).toBe(204)
    const runId = fake.state.dispatches[0]?.runId ?? 0
    expect(fake.state.dispatches).toEqual([
      { workflow: 'autoloop.lock.yml', ref: 'main', inputs: { program: 'perf' }, at: START, runId }
    ])

    const run = async () =>
      (await octokit.rest.actions.getWorkflowRun({ ...repo, run_id: runId })).data
    expect(await run()).toMatchObject({
      event: 'workflow_dispatch',
      status: 'queued',
      conclusion: null,
      head_branch: 'main',
      head_sha: main,
      path: '.github/workflows/autoloop.lock.yml',
      created_at: '2026-03-01T12:00:00Z'
    })
    fake.advance(5_000)
    expect((await run()).status).toBe('in_progress')
    fake.advance(59_000)
    expect((await run()).status).toBe('in_progress')
    fake.advance(1_000)
    expect(await run()).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      updated_at: '2026-03-01T12:01:05Z'
    })
    const jobs = await octokit.rest.actions.listJobsForWorkflowRun({ ...repo, run_id: runId })
    expect(jobs.data.total_count).toBe(0)

    // the same workflow by its numeric id, with run details
    const workflowId = (await run()).workflow_id
    const details = await octokit.request(DISPATCH, {
      ...repo,
      workflow_id: workflowId,
      ref: 'refs/heads/main',
      return_run_details: true
    })
    expect(details.status).toBe(200)
    const second = fake.state.dispatches[1]?.runId
    expect(details.data).toEqual({
      workflow_run_id: second,
      run_url: `${fake.apiUrl}/repos/octo-org/demo/actions/runs/${second}`,
      html_url: `${fake.serverUrl}/octo-org/demo/actions/runs/${second}`
    })
  })

  it("plays gh-aw's jobs of a dispatched run (skipped ones completed at once, steps served once done); runDetails false answers 204", async () => {
    const { fake, octokit } = await start({
      dispatchedRuns: {
        queuedSeconds: 5,
        runSeconds: 30,
        runDetails: false,
        jobs: [
          {
            name: 'pre_activation',
            conclusion: 'success',
            steps: [{ name: 'Check team membership for workflow', conclusion: 'success' }]
          },
          { name: 'agent', conclusion: 'skipped' }
        ]
      }
    })
    const sent = await octokit.request(DISPATCH, {
      ...repo,
      workflow_id: 'autoloop.lock.yml',
      ref: 'main',
      return_run_details: true
    })
    expect(sent.status).toBe(204)
    const runId = fake.state.dispatches[0]?.runId ?? 0
    const jobs = async () =>
      (await octokit.rest.actions.listJobsForWorkflowRun({ ...repo, run_id: runId })).data.jobs
    expect((await jobs()).map((j) => [j.name, j.status, j.conclusion, j.steps?.length])).toEqual([
      ['pre_activation', 'queued', null, 1],
      ['agent', 'completed', 'skipped', 0]
    ])
    expect((await jobs())[0]?.steps?.[0]).toMatchObject({ status: 'queued', conclusion: null })
    fake.advance(35_000)
    expect((await jobs())[0]?.steps?.[0]).toMatchObject({
      name: 'Check team membership for workflow',
      number: 1,
      status: 'completed',
      conclusion: 'success'
    })
    // Skipped jobs do not fail a run: GitHub concludes it success.
    const run = await octokit.rest.actions.getWorkflowRun({ ...repo, run_id: runId })
    expect(run.data).toMatchObject({ status: 'completed', conclusion: 'success' })
  })

  it('answers 422 for an unknown ref, 404 for a workflow the scenario does not list, and 403 when scripted', async () => {
    const { fake, octokit } = await start({ workflows: ['autoloop.lock.yml'] })
    const dispatch = (workflow_id: string, ref: string) =>
      octokit.rest.actions.createWorkflowDispatch({ ...repo, workflow_id, ref })
    const unknownRef = await dispatch('autoloop.lock.yml', 'nope').catch((e: unknown) => e)
    expect(unknownRef).toMatchObject({
      status: 422,
      message: expect.stringContaining('No ref found for: nope')
    })
    expect(await statusOf(dispatch('other.yml', 'main'))).toBe(404)

    // a token without `actions: write`
    fake.addFault({
      kind: 'status',
      status: 403,
      route: DISPATCH,
      message: 'Resource not accessible by integration',
      count: 'always'
    })
    const forbidden = await dispatch('autoloop.lock.yml', 'main').catch((e: unknown) => e)
    expect(forbidden).toMatchObject({
      status: 403,
      message: expect.stringContaining('Resource not accessible by integration')
    })
    expect(fake.state.dispatches).toEqual([])
  })

  it('lets a test play the dispatched run: onDispatch pushes a commit and picks the outcome', async () => {
    const { fake, octokit } = await start(
      { contents: { 'autoloop/perf': { 'a.ts': 'broken' } } },
      {
        onDispatch: (dispatch, f) => {
          expect(dispatch.inputs).toEqual({ program: 'perf' })
          f.commit('autoloop/perf', { 'a.ts': 'fixed' }, 'Fix the build')
          return { queuedSeconds: 1, runSeconds: 9, conclusion: 'failure' }
        }
      }
    )
    await octokit.rest.actions.createWorkflowDispatch({
      ...repo,
      workflow_id: 'autoloop.lock.yml',
      ref: 'main',
      inputs: { program: 'perf' }
    })
    expect(fake.readFile('autoloop/perf', 'a.ts')).toBe('fixed')
    expect(fake.headsOf('autoloop/perf')).toHaveLength(2)
    fake.advance(10_000)
    const runId = fake.state.dispatches[0]?.runId ?? 0
    const run = await octokit.rest.actions.getWorkflowRun({ ...repo, run_id: runId })
    expect(run.data).toMatchObject({ status: 'completed', conclusion: 'failure' })
  })
})

describe('listing workflow runs', () => {
  it('filters by event, branch, status or conclusion, head SHA and creation time, per repository and per workflow', async () => {
    const { fake, octokit } = await start({
      branches: { 'autoloop/x': SHA },
      checkRuns: [job('build', 60, 'failure')]
    })
    await octokit.rest.checks.listForRef({ ...repo, ref: SHA }) // the push's run appears now
    fake.advance(120_000)
    await octokit.rest.actions.createWorkflowDispatch({
      ...repo,
      workflow_id: 'autoloop.lock.yml',
      ref: 'main'
    })
    const list = async (query: Record<string, string>) =>
      (
        await octokit.rest.actions.listWorkflowRunsForRepo({ ...repo, ...query })
      ).data.workflow_runs.map((r) => `${r.event}:${r.head_branch}:${r.status}:${r.conclusion}`)

    expect(await list({})).toEqual([
      'workflow_dispatch:main:queued:null',
      'push:autoloop/x:completed:failure'
    ])
    expect(await list({ event: 'push' })).toEqual(['push:autoloop/x:completed:failure'])
    expect(await list({ branch: 'main' })).toEqual(['workflow_dispatch:main:queued:null'])
    expect(await list({ status: 'completed' })).toEqual(['push:autoloop/x:completed:failure'])
    expect(await list({ status: 'failure' })).toEqual(['push:autoloop/x:completed:failure'])
    expect(await list({ status: 'queued' })).toEqual(['workflow_dispatch:main:queued:null'])
    expect(await list({ head_sha: SHA })).toEqual(['push:autoloop/x:completed:failure'])
    expect(await list({ created: '>=2026-03-01T12:01:00Z' })).toEqual([
      'workflow_dispatch:main:queued:null'
    ])
    expect(await list({ created: '2026-03-01' })).toHaveLength(2)
    expect(await list({ created: '2026-02-01..2026-02-28' })).toEqual([])

    const perWorkflow = await octokit.rest.actions.listWorkflowRuns({
      ...repo,
      workflow_id: 'autoloop.lock.yml'
    })
    expect(perWorkflow.data.workflow_runs.map((r) => r.event)).toEqual(['workflow_dispatch'])
    const ci = perWorkflow.data.workflow_runs[0]
    const byId = await octokit.rest.actions.listWorkflowRuns({
      ...repo,
      workflow_id: ci?.workflow_id ?? 0
    })
    expect(byId.data.total_count).toBe(1)
    // a workflow known only from its runs, by numeric id, before any run was asked for
    const fresh = await startFakeGitHub({
      scenario: { startTime: START, checkRuns: [job('b', 1, 'success')] }
    })
    await new Octokit({ baseUrl: fresh.apiUrl, log: quiet }).rest.checks.listForRef({
      ...repo,
      ref: SHA
    })
    const freshRuns = await new Octokit({
      baseUrl: fresh.apiUrl,
      log: quiet
    }).rest.actions.listWorkflowRuns({
      ...repo,
      workflow_id: 1_000_001
    })
    expect(freshRuns.data.total_count).toBe(1)
    await closeCheckingRequests(fresh)
    const pushRun = await octokit.rest.actions.listWorkflowRuns({ ...repo, workflow_id: 'ci.yml' })
    expect(pushRun.data.workflow_runs.map((r) => r.path)).toEqual(['.github/workflows/ci.yml'])
  })
})

describe('re-running failed jobs', () => {
  it('starts a new attempt of each failed job at the request, following its scripted re-runs', async () => {
    const flaky: CheckRunPlan = {
      ...job('test', 60, 'failure'),
      log: 'first failure\n',
      rerun: [{ conclusion: 'failure', log: 'failed again\n' }, { conclusion: 'success' }]
    }
    const { fake, octokit } = await start({ checkRuns: [flaky, job('lint', 30, 'success')] })
    await octokit.rest.checks.listForRef({ ...repo, ref: SHA })
    const runId = fake.checkRunsFor(SHA)[0]?.runId ?? 0
    const rerun = () => octokit.rest.actions.reRunWorkflowFailedJobs({ ...repo, run_id: runId })
    const latest = async () =>
      (await octokit.rest.checks.listForRef({ ...repo, ref: SHA })).data.check_runs
        .map((r) => `${r.name}:${r.status}:${r.conclusion}`)
        .sort()
    const run = async () =>
      (await octokit.rest.actions.getWorkflowRun({ ...repo, run_id: runId })).data
    const logOf = async (name: string) => {
      const jobs = await octokit.rest.actions.listJobsForWorkflowRun({ ...repo, run_id: runId })
      const id = jobs.data.jobs.find((j) => j.name === name)?.id ?? 0
      return (await octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...repo, job_id: id }))
        .data
    }

    fake.advance(30_000)
    expect(await statusOf(rerun())).toBe(403) // still running
    fake.advance(30_000)
    expect(await run()).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      run_attempt: 1
    })
    expect(await logOf('test')).toBe('first failure\n')

    fake.advance(100_000)
    const first = await rerun()
    expect(first.status).toBe(201)
    expect(await run()).toMatchObject({
      status: 'queued',
      run_attempt: 2,
      run_started_at: '2026-03-01T12:02:40Z'
    })
    expect(await latest()).toEqual(['lint:completed:success', 'test:queued:null'])
    const jobs = await octokit.rest.actions.listJobsForWorkflowRun({ ...repo, run_id: runId })
    expect(jobs.data.jobs.map((j) => `${j.name}#${j.run_attempt}`).sort()).toEqual([
      'lint#1',
      'test#2'
    ])
    fake.advance(60_000)
    expect(await run()).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      run_attempt: 2
    })
    expect(await logOf('test')).toBe('failed again\n')

    expect((await rerun()).status).toBe(201)
    fake.advance(60_000)
    expect(await run()).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      run_attempt: 3
    })
    expect(await latest()).toEqual(['lint:completed:success', 'test:completed:success'])
    const all = await octokit.rest.checks.listForRef({ ...repo, ref: SHA, filter: 'all' })
    expect(all.data.total_count).toBe(4)
    expect(await statusOf(rerun())).toBe(403) // nothing failed any more
  })

  it('repeats the original outcome without a scripted re-run, and re-runs a single job', async () => {
    const { fake, octokit } = await start({
      checkRuns: [{ ...job('test', 60, 'failure'), log: 'boom\n' }, job('lint', 30, 'success')]
    })
    await octokit.rest.checks.listForRef({ ...repo, ref: SHA })
    fake.advance(60_000)
    const runId = fake.checkRunsFor(SHA)[0]?.runId ?? 0
    await octokit.rest.actions.reRunWorkflowFailedJobs({ ...repo, run_id: runId })
    fake.advance(60_000)
    const test = fake.checkRunsFor(SHA).filter((r) => r.name === 'test')
    expect(test.map((r) => [r.runAttempt, r.conclusion, r.plan.log])).toEqual([
      [1, 'failure', 'boom\n'],
      [2, 'failure', 'boom\n']
    ])

    const lint = fake.checkRunsFor(SHA).find((r) => r.name === 'lint')
    const single = await octokit.rest.actions.reRunJobForWorkflowRun({
      ...repo,
      job_id: lint?.id ?? 0
    })
    expect(single.status).toBe(201)
    const attempts = fake.checkRunsFor(SHA).map((r) => `${r.name}#${r.runAttempt}`)
    expect(attempts).toEqual(['test#1', 'lint#1', 'test#2', 'lint#3'])
    expect(
      await statusOf(
        octokit.rest.actions.reRunJobForWorkflowRun({ ...repo, job_id: lint?.id ?? 0 })
      )
    ).toBe(403) // its run is running again
  })
})

describe('base branch and approval gates', () => {
  it('serves check runs planned on the head of the default branch', async () => {
    const { fake, octokit } = await start({
      checkRuns: [
        {
          branch: 'main',
          head: 0,
          name: 'test',
          timeline: [{ at: 0, status: 'completed', conclusion: 'failure' }]
        }
      ]
    })
    const base = fake.state.branches.main ?? ''
    const runs = await octokit.rest.checks.listForRef({ ...repo, ref: 'main' })
    expect(runs.data.check_runs.map((r) => [r.head_sha, r.conclusion])).toEqual([[base, 'failure']])
    fake.setBranch('main', 'b'.repeat(40))
    expect((await octokit.rest.checks.listForRef({ ...repo, ref: 'main' })).data.total_count).toBe(
      0
    )
    expect((await octokit.rest.checks.listForRef({ ...repo, ref: base })).data.total_count).toBe(1)
  })

  it('serves a run waiting for approval as GitHub does: completed, action_required, no jobs, no check runs', async () => {
    const { fake, octokit } = await start({
      branches: { 'autoloop/x': SHA },
      workflowRuns: [
        {
          branch: 'autoloop/x',
          head: 1,
          workflow: 'CI',
          timeline: [{ at: 0, status: 'completed', conclusion: 'action_required' }]
        }
      ]
    })
    const head = 'c'.repeat(40)
    fake.setBranch('autoloop/x', head)
    expect((await octokit.rest.checks.listForRef({ ...repo, ref: head })).data.total_count).toBe(0)
    const runs = await octokit.rest.actions.listWorkflowRunsForRepo({ ...repo, head_sha: head })
    expect(runs.data.workflow_runs).toHaveLength(1)
    const run = runs.data.workflow_runs[0]
    expect(run).toMatchObject({
      event: 'push',
      status: 'completed',
      conclusion: 'action_required',
      head_branch: 'autoloop/x'
    })
    expect(run?.created_at).toBe(run?.updated_at)
    const jobs = await octokit.rest.actions.listJobsForWorkflowRun({
      ...repo,
      run_id: run?.id ?? 0
    })
    expect(jobs.data.total_count).toBe(0)
    const filtered = await octokit.rest.actions.listWorkflowRunsForRepo({
      ...repo,
      status: 'action_required'
    })
    expect(filtered.data.total_count).toBe(0)
    expect(
      await statusOf(
        octokit.rest.actions.reRunWorkflowFailedJobs({ ...repo, run_id: run?.id ?? 0 })
      )
    ).toBe(403)
    // the initial head has no such run
    const initial = await octokit.rest.actions.listWorkflowRunsForRepo({ ...repo, head_sha: SHA })
    expect(initial.data.total_count).toBe(0)
  })

  it('serves a run that failed to start: startup_failure, named by its path, no jobs', async () => {
    const { octokit } = await start({
      workflowRuns: [
        {
          sha: SHA,
          workflow: '.github/workflows/ci.yml',
          event: 'pull_request',
          timeline: [{ at: 0, status: 'completed', conclusion: 'startup_failure' }]
        }
      ]
    })
    expect((await octokit.rest.checks.listForRef({ ...repo, ref: SHA })).data.total_count).toBe(0)
    const runs = await octokit.rest.actions.listWorkflowRunsForRepo({ ...repo, head_sha: SHA })
    expect(runs.data.workflow_runs.map((r) => [r.name, r.path, r.event, r.conclusion])).toEqual([
      ['.github/workflows/ci.yml', '.github/workflows/ci.yml', 'pull_request', 'startup_failure']
    ])
  })

  it('gives a workflow-run plan the jobs of check-run plans of the same workflow and SHA', async () => {
    const { fake, octokit } = await start({
      checkRuns: [job('build', 60, 'success')],
      workflowRuns: [
        { sha: SHA, workflow: 'CI', event: 'pull_request', timeline: [{ at: 0, status: 'queued' }] }
      ]
    })
    await octokit.rest.checks.listForRef({ ...repo, ref: SHA })
    fake.advance(60_000)
    const runs = await octokit.rest.actions.listWorkflowRunsForRepo({ ...repo, head_sha: SHA })
    expect(runs.data.workflow_runs.map((r) => [r.event, r.status, r.conclusion])).toEqual([
      ['pull_request', 'completed', 'success']
    ])
  })
})
