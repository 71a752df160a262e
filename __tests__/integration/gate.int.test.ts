import { describe, expect, it } from '@jest/globals'
import type { CheckRunPlan, StatusPlan } from '../../__fixtures__/fake-github/index.js'
import { BRANCH, OWN_RUN_ID, SHA, gateOnce } from '../helpers/fake-run.js'

const at = (
  seconds: number,
  conclusion: CheckRunPlan['timeline'][number]['conclusion'] = 'success'
) => [
  { at: 0, status: 'queued' as const },
  { at: 10, status: 'in_progress' as const },
  { at: seconds, status: 'completed' as const, conclusion }
]
const check = (
  name: string,
  seconds: number,
  conclusion?: CheckRunPlan['timeline'][number]['conclusion'],
  extra: Partial<CheckRunPlan> = {}
): CheckRunPlan => ({
  sha: SHA,
  name,
  timeline: at(seconds, conclusion),
  ...extra
})
const status = (
  context: string,
  seconds: number,
  state: 'success' | 'failure' | 'error'
): StatusPlan => ({
  sha: SHA,
  context,
  timeline: [
    { at: 0, state: 'pending' },
    { at: seconds, state }
  ]
})

function checksOutput(
  outputs: Record<string, string>
): Array<{ name: string; conclusion: string | null }> {
  return JSON.parse(outputs.checks ?? '[]') as Array<{ name: string; conclusion: string | null }>
}

describe('gate, in-process against the fake API', () => {
  it('all green: success with every check in the outputs and the job summary', async () => {
    const { run, fake } = await gateOnce({
      checkRuns: [check('build', 240), check('test', 600)],
      statuses: [status('ci/legacy', 120, 'success')]
    })
    expect(run.exitCode).toBe(0)
    expect(run.outputs).toMatchObject({
      status: 'success',
      verdict: 'green',
      sha: SHA,
      attempt: '0'
    })
    expect(checksOutput(run.outputs).map((c) => [c.name, c.conclusion])).toEqual([
      ['build', 'success'],
      ['ci/legacy', 'success'],
      ['test', 'success']
    ])
    expect(run.summary).toContain('| ✅')
    expect(run.summary).toMatch(
      /\[details\]\(http:\/\/127\.0\.0\.1:\d+\/octo-org\/demo\/actions\/runs\/\d+\/job\/\d+\)/
    )
    // It waited for the slowest check (600 s) rather than judging the first answer.
    const polls = fake.requests.filter((r) => r.route?.endsWith('/check-runs'))
    expect(polls.length).toBeGreaterThan(1)
    expect(polls.at(-1)!.at - fake.requests[0]!.at).toBeGreaterThanOrEqual(600_000)
  })

  it('one red check: failure, named in the outputs and the summary', async () => {
    const { run } = await gateOnce({
      checkRuns: [check('build', 240), check('test', 300, 'failure')]
    })
    expect(run.exitCode).toBe(0)
    expect(run.outputs).toMatchObject({ status: 'failure', verdict: 'red' })
    expect(run.summary).toContain('test: failure')
  })

  it('fail-on-red fails the step on red', async () => {
    const { run } = await gateOnce(
      { checkRuns: [check('test', 300, 'failure')] },
      { 'fail-on-red': 'true' }
    )
    expect(run.exitCode).toBe(1)
    expect(run.outputs.status).toBe('failure')
  })

  it('a red legacy commit status beside green checks is red', async () => {
    const { run } = await gateOnce({
      checkRuns: [check('build', 240), check('test', 300)],
      statuses: [status('ci/jenkins', 200, 'error')]
    })
    expect(run.outputs).toMatchObject({ status: 'failure', verdict: 'red' })
    expect(run.summary).toContain('ci/jenkins: error')
  })

  it('no checks at all (no push): never green; blocked, since no fix can help', async () => {
    const { run, fake } = await gateOnce({}, { 'checks-grace-seconds': '120' })
    expect(run.outputs).toMatchObject({ status: 'paused', verdict: 'no-checks' })
    expect(run.outputs['pause-reason']).toMatch(
      /^ci-blocked: no CI ran on c0ffee000000 within 120 s$/
    )
    expect(run.summary).toContain('silence is never read as green')
    expect(run.summary).toContain('GH_AW_CI_TRIGGER_TOKEN')
    // It waited the whole grace period of virtual time, and no longer than one poll past it.
    const polls = fake.requests.filter((r) => r.route?.endsWith('/check-runs'))
    expect(polls.length).toBeGreaterThanOrEqual(120 / 15)
    expect(polls.length).toBeLessThanOrEqual(120 / 15 + 2)
  })

  it('only skipped checks: no-checks, and allow-no-checks turns it into success', async () => {
    const skipped = { checkRuns: [check('deploy', 30, 'skipped'), check('docs', 30, 'neutral')] }
    const strict = await gateOnce(skipped)
    expect(strict.run.outputs).toMatchObject({ status: 'paused', verdict: 'no-checks' })
    expect(strict.run.summary).toContain('every check was skipped or neutral')
    const allowed = await gateOnce(skipped, { 'allow-no-checks': 'true' })
    expect(allowed.run.outputs).toMatchObject({ status: 'success', verdict: 'green' })
  })

  it("the action's own job in progress on the same SHA is never waited on", async () => {
    const own: CheckRunPlan = {
      sha: SHA,
      name: 'autoloop',
      runId: OWN_RUN_ID,
      timeline: [{ at: 0, status: 'in_progress' }]
    }
    const { run } = await gateOnce(
      { checkRuns: [check('test', 300), own] },
      { 'timeout-minutes': '30' }
    )
    expect(run.outputs).toMatchObject({ status: 'success', verdict: 'green' })
    expect(checksOutput(run.outputs).map((c) => c.name)).toEqual(['test'])
    expect(run.summary).toContain('this workflow run (never waited on)')
  })

  it('a re-run whose latest attempt passed after an earlier failure is green', async () => {
    // The gate starts after the first attempt failed and its re-run was queued.
    const first: CheckRunPlan = {
      sha: SHA,
      name: 'test',
      timeline: [{ at: 0, status: 'completed', conclusion: 'failure' }]
    }
    const rerun: CheckRunPlan = {
      sha: SHA,
      name: 'test',
      runAttempt: 2,
      timeline: [
        { at: 1, status: 'queued' },
        { at: 20, status: 'in_progress' },
        { at: 500, status: 'completed', conclusion: 'success' }
      ]
    }
    const { run } = await gateOnce({ checkRuns: [first, rerun, check('build', 100)] })
    expect(run.outputs).toMatchObject({ status: 'success', verdict: 'green' })
    expect(run.summary).toContain('an earlier run of a re-run check')
  })

  it('a required check that never reports is red with its name', async () => {
    const { run } = await gateOnce(
      { checkRuns: [check('build', 60)] },
      { 'required-checks': 'build\ne2e / chrome' }
    )
    expect(run.outputs).toMatchObject({ status: 'failure', verdict: 'red' })
    expect(run.summary).toContain('required check never reported: e2e / chrome')
    // The failure summary the fixer reads names it too, never "0 failing checks".
    const summary = run.outputs['failure-summary'] ?? ''
    expect(summary).toContain('required check never reported: e2e / chrome')
    expect(summary).not.toContain('0 failing checks')
    expect(summary).not.toContain('No failing check details were found')
  })

  it('checks still running at the timeout end with ci-timeout', async () => {
    const { run, fake } = await gateOnce(
      { checkRuns: [check('build', 60), check('soak', 99_999)] },
      { 'timeout-minutes': '20' }
    )
    expect(run.outputs).toMatchObject({
      status: 'paused',
      verdict: 'ci-timeout',
      'pause-reason': 'ci-timeout'
    })
    expect(run.summary).toContain('soak')
    // Within the wall clock, give or take the seconds GitHub asks between two writes (the
    // state's GraphQL read is spaced like one).
    expect(fake.now() - fake.requests[0]!.at).toBeLessThanOrEqual(20 * 60_000 + 2000)
  })

  it('a 5xx burst and a secondary rate limit in the middle of polling change nothing', async () => {
    const route = 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs'
    const { run, fake } = await gateOnce({
      checkRuns: [check('test', 900, 'failure')],
      faults: [
        { kind: 'status', status: 502, route, afterRequests: 5, count: 4 },
        { kind: 'secondary-rate-limit', route, afterRequests: 20, retryAfterSeconds: 60 },
        { kind: 'too-many-requests', route, afterRequests: 30, retryAfterSeconds: 30 },
        { kind: 'drop-connection', route, afterRequests: 40 }
      ]
    })
    expect(run.outputs).toMatchObject({ status: 'failure', verdict: 'red' })
    expect(fake.requests.filter((r) => r.fault).map((r) => r.fault).length).toBeGreaterThanOrEqual(
      7
    )
    // The secondary rate limit's Retry-After (60 s) was waited before the route was asked again.
    const polls = fake.requests.filter((r) => r.route === route)
    const limited = polls.findIndex((r) => r.fault === 'secondary-rate-limit')
    expect(limited).toBeGreaterThanOrEqual(0)
    expect(polls[limited + 1]!.at - polls[limited]!.at).toBeGreaterThanOrEqual(60_000)
  })

  it('works unchanged under a GitHub Enterprise Server path prefix', async () => {
    const { run, fake } = await gateOnce(
      { checkRuns: [check('test', 100)] },
      {},
      { prefix: '/api/v3' }
    )
    expect(fake.apiUrl).toMatch(/\/api\/v3$/)
    expect(run.outputs).toMatchObject({ status: 'success', verdict: 'green' })
  })

  it('polling an hour-long check costs O(1) rate-limit points thanks to conditional requests', async () => {
    const { run, fake } = await gateOnce(
      { checkRuns: [check('slow', 3600)] },
      { 'timeout-minutes': '90' }
    )
    expect(run.outputs.verdict).toBe('green')
    expect(fake.rateLimit.notModified).toBeGreaterThan(200)
    // Points spent on the wait itself: check runs and statuses, pages that changed only.
    const polling = fake.requests.filter((r) => /\/(check-runs|status)$/.test(r.route ?? ''))
    expect(polling.length).toBeGreaterThan(400)
    expect(polling.filter((r) => r.charged).length).toBeLessThanOrEqual(10)
  })

  it('finds the open PR of the branch, or opens a draft one', async () => {
    const existing = await gateOnce({
      checkRuns: [check('test', 60)],
      pulls: [{ number: 7, head: BRANCH }]
    })
    expect(existing.run.outputs['pr-number']).toBe('7')
    const created = await gateOnce({ checkRuns: [check('test', 60)] })
    const pull = created.fake.state.pulls.find((p) => p.head === BRANCH)
    expect(created.run.outputs['pr-number']).toBe(String(pull?.number))
    expect(pull).toMatchObject({ title: '[Autoloop: perf]', draft: true })
    const none = await gateOnce({ checkRuns: [check('test', 60)] }, { 'create-pr': 'false' })
    expect(none.run.outputs['pr-number']).toBe('')
  })

  it('refuses a bad program before any request', async () => {
    const { run, fake } = await gateOnce({}, { program: '../x' })
    expect(run.exitCode).toBe(1)
    expect(run.outputs.status).toBe('error')
    expect(run.errors.join('\n')).toContain('input `program`')
    expect(fake.requests).toEqual([])
  })
})
