/**
 * Whose failure it is (issue 10), in-process against the fake GitHub API: failures that also
 * fail on the base branch head (pre-existing), CI that cannot run (blocked: approval gates, no
 * CI), and failures outside the project (infrastructure, flaky tests) never spend the agent's
 * fix attempts, and each is said with its evidence wherever the loop speaks.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import type { FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { withFake } from '../helpers/fake-run.js'
import {
  MINUTE,
  PROGRAM,
  START,
  agentPush,
  agentPushWithChecks,
  ciGateJob,
  ciGateSection,
  corpusLog,
  failingCheck,
  ghAwScenario,
  passingCheck,
  planChecks,
  reconcileJob
} from '../helpers/gh-aw.js'
import {
  commentsOn,
  ledgerOf,
  schedulerReads,
  stateFileOf
} from '../app/commands/lifecycle-helpers.js'

const ESLINT_LOG = corpusLog('eslint/unused-var/job-log.log')
const ESLINT_KEY = 'eslint:@typescript-eslint/no-unused-vars:discount:src/orders.ts'
const JEST_LOG = corpusLog('jest/assertion/job-log.log')
const JEST_KEY = 'jest:__tests__/cart.test.js>cart > total > adds the prices of two items'
const TSC_LOG = corpusLog('tsc/missing-property/job-log.log')
const TSC_KEY = 'tsc:TS2339:fromArrays:src/report.ts'
const OTHER_TSC_LOG = corpusLog('tsc/unknown-name/job-log.log')
const OTHER_TSC_KEY = 'tsc:TS2552:formatMean:src/report.ts'

const ITERATION = { metric: 0.86, improved: true, change: 'cache parsed ranges' }
let runs = 19_400_000_000

/** One gate job of a new workflow run on the head the agent just pushed. */
function gate(fake: FakeGitHub, inputs: Record<string, string> = {}) {
  runs += 1
  return ciGateJob(fake, { runId: runs, iteration: ITERATION, inputs })
}

/** The base branch head's CI, started with the fake (the head it had at START). */
const onBase = (name: string, log?: Parameters<typeof failingCheck>[2], at = 300) => ({
  branch: 'main',
  head: 0,
  startsAt: START,
  name,
  timeline: [
    { at: 0, status: 'queued' as const },
    {
      at,
      status: 'completed' as const,
      conclusion: log ? ('failure' as const) : ('success' as const)
    }
  ],
  ...(log ? { log } : {})
})

/** The base branch head: lint failing as the head's will, the build green. */
const lintRedOnBase = () =>
  ghAwScenario({ extra: { checkRuns: [onBase('lint', ESLINT_LOG), onBase('build')] } })

const mainHead = (fake: FakeGitHub) => fake.state.branches.main as string

/** The link of a check on the base branch head (the evidence of a pre-existing failure). */
const baseCheckUrl = (fake: FakeGitHub, name: string) =>
  fake.checkRunsFor(mainHead(fake)).find((check) => check.name === name)?.detailsUrl as string

function rerunRequests(fake: FakeGitHub): string[] {
  return fake.requests.filter((r) => r.path.endsWith('/rerun-failed-jobs')).map((r) => r.path)
}

function pauseComments(fake: FakeGitHub): string[] {
  return commentsOn(fake).filter((c) => c.startsWith('<!-- autoloop-ci-gate:pause'))
}

describe('pre-existing failures: the same key of the same check fails on the base branch head', () => {
  it('allow: every failure pre-existing is accepted loudly (verdict, output, summary, ledger, issue, brief)', async () => {
    const scenario = ghAwScenario({
      extra: { checkRuns: [onBase('lint', ESLINT_LOG), onBase('test')] }
    })
    await withFake(scenario, async (fake) => {
      agentPushWithChecks(fake, { 'src/orders.ts': 'x\n' }, 'cache parsed ranges', (head) => [
        failingCheck(head, 'lint', ESLINT_LOG),
        passingCheck(head, 'test')
      ])
      const run = await gate(fake)
      expect(run.errors).toEqual([])
      expect(run.outputs).toMatchObject({
        status: 'success',
        verdict: 'green-except-pre-existing',
        'pre-existing': JSON.stringify([ESLINT_KEY]),
        dispatched: 'false'
      })
      expect(run.summary).toContain('green except pre-existing failures')
      expect(run.summary).toContain(
        `**Pre-existing** (fail on the base branch head \`${mainHead(fake).slice(0, 12)}\``
      )
      expect(run.summary).toContain(ESLINT_KEY)
      // A lint failure is never re-run: only infrastructure failures and failing tests are.
      expect(rerunRequests(fake)).toEqual([])

      const ledger = ledgerOf(fake, PROGRAM)!
      expect(ledger.attempts[0]).toMatchObject({
        state: 'green-except-pre-existing',
        classification: { preExisting: [ESLINT_KEY], baseSha: mainHead(fake) }
      })
      expect(ledger.baseFailures).toMatchObject({
        branch: 'main',
        sha: mainHead(fake),
        state: 'complete'
      })
      expect(ledger.baseFailures?.checks.map((c) => [c.name, c.keys])).toEqual([
        ['lint', [ESLINT_KEY]]
      ])
      expect(schedulerReads(fake, PROGRAM).fields).toMatchObject({
        best_metric: '0.86',
        recent_statuses: 'accepted, rejected, accepted'
      })
      const iteration = commentsOn(fake).find((c) => c.includes('recorded an iteration'))
      expect(iteration).toContain(
        '⚠️ Accepted with failures that also fail on the base branch head'
      )
      expect(iteration).toContain(ESLINT_KEY)
      expect(ciGateSection(stateFileOf(fake, PROGRAM)!)).toContain(
        `Accepted although \`${ESLINT_KEY}\` fails`
      )
    })
  })

  it('allow, with no iteration file to record: the program issue still says what was accepted', async () => {
    const scenario = ghAwScenario({ extra: { checkRuns: [onBase('lint', ESLINT_LOG)] } })
    await withFake(scenario, async (fake) => {
      agentPushWithChecks(fake, { 'src/orders.ts': 'x\n' }, 'cache parsed ranges', (head) => [
        failingCheck(head, 'lint', ESLINT_LOG),
        passingCheck(head, 'test')
      ])
      const run = await gate(fake, { 'iteration-file': '' })
      expect(run.outputs).toMatchObject({ status: 'success', verdict: 'green-except-pre-existing' })
      const said = commentsOn(fake).filter((c) => !c.includes('<!-- AUTOLOOP:STATUS -->'))
      expect(said).toHaveLength(1)
      expect(said[0]).toContain(ESLINT_KEY)
      expect(said[0]).toContain(mainHead(fake).slice(0, 12))
    })
  })

  it('block: paused ci-base-red, no fix attempt spent, the evidence everywhere', async () => {
    const scenario = ghAwScenario({ extra: { checkRuns: [onBase('lint', ESLINT_LOG)] } })
    await withFake(scenario, async (fake) => {
      agentPushWithChecks(fake, { 'src/orders.ts': 'x\n' }, 'cache parsed ranges', (head) => [
        failingCheck(head, 'lint', ESLINT_LOG),
        passingCheck(head, 'test')
      ])
      const run = await gate(fake, { 'pre-existing-failures': 'block' })
      expect(run.errors).toEqual([])
      expect(run.outputs).toMatchObject({
        status: 'paused',
        verdict: 'red',
        attempt: '0',
        'pause-reason': `ci-base-red: ${ESLINT_KEY}`,
        'pre-existing': JSON.stringify([ESLINT_KEY]),
        dispatched: 'false',
        // No fix attempt spent: the whole budget is left.
        'attempts-remaining': '5'
      })
      const base = mainHead(fake).slice(0, 12)
      const evidence = `[lint](${baseCheckUrl(fake, 'lint')})`
      expect(run.summary).toContain(
        `**Pre-existing** (fail on the base branch head \`${base}\` in ${evidence} too`
      )
      // The failure summary (markdown output and JSON file) names the base head and its check.
      expect(run.outputs['failure-summary']).toContain(`at \`${base}\` in ${evidence} too`)
      const json = JSON.parse(readFileSync(run.outputs['failure-summary-path']!, 'utf8')) as {
        classification: { preExisting: string[]; baseSha: string }
      }
      expect(json.classification).toMatchObject({
        preExisting: [ESLINT_KEY],
        baseSha: mainHead(fake),
        baseChecks: [{ check: 'lint', url: baseCheckUrl(fake, 'lint') }]
      })

      const reading = schedulerReads(fake, PROGRAM)
      expect(reading).toMatchObject({
        skipped: true,
        fields: { pause_reason: `ci-base-red: ${ESLINT_KEY}` }
      })
      // Not a fix-loop pause: no attempt spent, nothing added to Recent Statuses, no fixer.
      expect(reading.fields.recent_statuses).toBe('accepted, rejected')
      expect(fake.state.dispatches).toEqual([])
      const ledger = ledgerOf(fake, PROGRAM)!
      expect(ledger.attempts).toHaveLength(1)
      expect(ledger.pausedSignatures).toEqual([])
      const brief = ciGateSection(stateFileOf(fake, PROGRAM)!)
      expect(brief).toContain(
        `they fail on the base branch head too at \`${base}\` in ${evidence})`
      )
      expect(brief).toContain('The base branch is red with the same failures: fix it there.')
      const pause = pauseComments(fake)
      expect(pause).toHaveLength(1)
      expect(pause[0]).toContain(`ci-base-red: ${ESLINT_KEY}`)
      expect(pause[0]).toContain(
        `🧱 Pre-existing (fail on the base branch head \`${base}\` in ${evidence} too, not counted)`
      )
    })
  })

  it('new failures beside pre-existing ones: red on the new keys alone; the brief says which to leave alone', async () => {
    const scenario = lintRedOnBase()
    await withFake(scenario, async (fake) => {
      agentPushWithChecks(fake, { 'src/report.ts': 'x\n' }, 'cache parsed ranges', (head) => [
        failingCheck(head, 'lint', ESLINT_LOG),
        failingCheck(head, 'build', TSC_LOG)
      ])
      const run = await gate(fake)
      expect(run.errors).toEqual([])
      expect(run.outputs).toMatchObject({
        status: 'failure',
        verdict: 'red',
        signature: TSC_KEY,
        'pre-existing': JSON.stringify([ESLINT_KEY]),
        'attempts-remaining': '5',
        dispatched: 'true'
      })
      const base = mainHead(fake).slice(0, 12)
      expect(run.outputs['failure-summary']).toContain('🧱 **Pre-existing**')
      expect(run.outputs['failure-summary']).toContain(base)
      const json = JSON.parse(readFileSync(run.outputs['failure-summary-path']!, 'utf8')) as {
        signature: { keys: string[] }
        classification: { preExisting: string[]; baseSha: string; baseBranch: string }
      }
      expect(json.signature.keys).toEqual([TSC_KEY])
      expect(json.classification).toMatchObject({
        preExisting: [ESLINT_KEY],
        baseSha: mainHead(fake),
        baseBranch: 'main'
      })
      const brief = ciGateSection(stateFileOf(fake, PROGRAM)!)
      expect(brief).toContain(
        `**Not this iteration's failures** (they fail on the base branch head too at \`${base}\` in [lint](${baseCheckUrl(fake, 'lint')})): \`${ESLINT_KEY}\`. Do not touch them.`
      )
      expect(brief).toContain(`\`${TSC_KEY}\``)
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]?.signature?.keys).toEqual([TSC_KEY])
    })
  })

  it('pre-existing keys never enter the signature the no-progress guard compares (the base moved meanwhile)', async () => {
    const scenario = lintRedOnBase()
    await withFake(scenario, async (fake) => {
      agentPushWithChecks(fake, { 'src/report.ts': 'x\n' }, 'cache parsed ranges', (head) => [
        failingCheck(head, 'lint', ESLINT_LOG),
        failingCheck(head, 'test', JEST_LOG)
      ])
      const one = await gate(fake)
      expect(one.outputs).toMatchObject({
        status: 'failure',
        signature: JEST_KEY,
        'pre-existing': JSON.stringify([ESLINT_KEY])
      })

      // The base branch moves on and breaks the build too; the fixer's commit still fails
      // the same test. Counted with the pre-existing keys the signatures would differ.
      const movedBase = fake.commit(
        'main',
        { 'src/report.ts': 'broken\n' },
        'main: refactor report'
      )
      planChecks(
        fake,
        failingCheck(movedBase, 'lint', ESLINT_LOG),
        failingCheck(movedBase, 'build', TSC_LOG)
      )
      fake.advance(5 * MINUTE)
      agentPushWithChecks(fake, { 'src/report.ts': 'y\n' }, 'fix: cart total', (head) => [
        failingCheck(head, 'lint', ESLINT_LOG),
        failingCheck(head, 'build', TSC_LOG),
        failingCheck(head, 'test', JEST_LOG)
      ])
      const two = await gate(fake)
      expect(two.outputs).toMatchObject({
        status: 'paused',
        attempt: '1',
        signature: JEST_KEY,
        'pause-reason': `stuck in CI fix loop: ${JEST_KEY}`,
        'pre-existing': JSON.stringify([ESLINT_KEY, TSC_KEY].sort())
      })
      const ledger = ledgerOf(fake, PROGRAM)!
      expect(ledger.baseFailures?.sha).toBe(movedBase)
      expect(ledger.attempts[1]?.classification).toMatchObject({
        baseSha: movedBase,
        preExisting: [ESLINT_KEY, TSC_KEY].sort()
      })
      expect(fake.state.dispatches).toHaveLength(1)
    })
  })

  it('reads the base branch head once per base SHA and keeps it in the ledger', async () => {
    const scenario = lintRedOnBase()
    await withFake(scenario, async (fake) => {
      agentPushWithChecks(fake, { 'src/report.ts': 'x\n' }, 'cache parsed ranges', (head) => [
        failingCheck(head, 'lint', ESLINT_LOG),
        failingCheck(head, 'build', TSC_LOG)
      ])
      await gate(fake)
      const baseReads = () =>
        fake.requests.filter((r) => r.path.includes(`/commits/${mainHead(fake)}/check-runs`)).length
      const afterFirst = baseReads()
      expect(afterFirst).toBeGreaterThan(0)
      const readAt = ledgerOf(fake, PROGRAM)!.baseFailures?.readAt

      fake.advance(5 * MINUTE)
      agentPushWithChecks(fake, { 'src/report.ts': 'y\n' }, 'fix: fromArrays', (head) => [
        failingCheck(head, 'lint', ESLINT_LOG),
        failingCheck(head, 'build', OTHER_TSC_LOG)
      ])
      const two = await gate(fake)
      expect(two.outputs).toMatchObject({
        status: 'failure',
        attempt: '1',
        signature: OTHER_TSC_KEY,
        'pre-existing': JSON.stringify([ESLINT_KEY])
      })
      expect(baseReads()).toBe(afterFirst)
      expect(ledgerOf(fake, PROGRAM)!.baseFailures).toMatchObject({ sha: mainHead(fake), readAt })
    })
  })

  it("waits for the base branch head's CI still running, within the wall clock", async () => {
    const scenario = ghAwScenario({ extra: { checkRuns: [onBase('lint', ESLINT_LOG, 40 * 60)] } })
    await withFake(scenario, async (fake) => {
      agentPushWithChecks(fake, { 'src/orders.ts': 'x\n' }, 'cache parsed ranges', (head) => [
        failingCheck(head, 'lint', ESLINT_LOG),
        passingCheck(head, 'test')
      ])
      const started = fake.now()
      const run = await gate(fake)
      expect(run.outputs).toMatchObject({ status: 'success', verdict: 'green-except-pre-existing' })
      // The head was red after 5 minutes; the verdict waited for the base's 40, no longer.
      expect(fake.now() - started).toBeGreaterThanOrEqual(40 * MINUTE)
      expect(fake.now() - START).toBeLessThanOrEqual(40 * MINUTE + 15_000)
    })
    // Still running at the wall-clock cap: every failure is new, and it is said.
    const late = ghAwScenario({ extra: { checkRuns: [onBase('lint', ESLINT_LOG, 90 * 60)] } })
    await withFake(late, async (fake) => {
      agentPushWithChecks(fake, { 'src/orders.ts': 'x\n' }, 'cache parsed ranges', (head) => [
        failingCheck(head, 'lint', ESLINT_LOG),
        passingCheck(head, 'test')
      ])
      const run = await gate(fake, { 'timeout-minutes': '30' })
      expect(run.outputs.signature).toBe(ESLINT_KEY)
      expect(run.outputs['pre-existing']).toBe('[]')
      expect(run.outputs['failure-summary']).toContain(
        'still running at the wall-clock cap: every failure counts as new'
      )
      expect(ciGateSection(stateFileOf(fake, PROGRAM)!)).toContain(
        'still running at the wall-clock cap'
      )
    })
  })

  it('the base branch head never ran CI: said, and every failure is new', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      agentPushWithChecks(fake, { 'src/orders.ts': 'x\n' }, 'cache parsed ranges', (head) => [
        failingCheck(head, 'lint', ESLINT_LOG),
        passingCheck(head, 'test')
      ])
      const run = await gate(fake)
      expect(run.outputs).toMatchObject({
        status: 'failure',
        verdict: 'red',
        signature: ESLINT_KEY,
        'pre-existing': '[]'
      })
      const note = `CI never ran on the base branch head ${mainHead(fake).slice(0, 12)}: every failure counts as new`
      expect(run.outputs['failure-summary']).toContain(note)
      expect(run.summary).toContain(note)
      expect(ciGateSection(stateFileOf(fake, PROGRAM)!)).toContain(note)
      expect(ledgerOf(fake, PROGRAM)!.baseFailures).toMatchObject({
        sha: mainHead(fake),
        state: 'no-ci'
      })
    })
  })
})

describe('blocked: no fix can help', () => {
  it('runs waiting for approval pause ci-blocked at once; reconcile resumes once the head has a verdict', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const push = agentPush(fake, { 'src/orders.ts': 'x\n' }, 'cache parsed ranges')
      // A bot's push: GitHub holds the run for a maintainer's approval, with no jobs at all.
      fake.state.workflowRuns.push({
        sha: push.head,
        workflow: 'CI',
        timeline: [{ at: 0, status: 'completed', conclusion: 'action_required' }]
      })
      const run = await gate(fake)
      expect(run.errors).toEqual([])
      const cause = `workflow runs on ${push.head.slice(0, 12)} wait for approval (CI)`
      expect(run.outputs).toMatchObject({
        status: 'paused',
        verdict: 'no-checks',
        attempt: '0',
        dispatched: 'false',
        'pause-reason': `ci-blocked: ${cause}`
      })
      const advice = 'Approve the runs (the run page, "Approve and run")'
      expect(run.outputs['failure-summary']).toContain(advice)
      expect(readFileSync(run.outputs['failure-summary-path']!, 'utf8')).toContain(
        'Approve the runs'
      )
      expect(run.summary).toContain(advice)
      expect(ciGateSection(stateFileOf(fake, PROGRAM)!)).toContain(advice)
      const pause = pauseComments(fake)
      expect(pause).toHaveLength(1)
      expect(pause[0]).toContain(
        `**No fix can help:** CI on \`${push.head.slice(0, 12)}\` waits for a maintainer's approval`
      )
      // No fix attempt spent: nothing in Recent Statuses, no signature remembered, no fixer.
      const reading = schedulerReads(fake, PROGRAM)
      expect(reading).toMatchObject({
        skipped: true,
        fields: { recent_statuses: 'accepted, rejected' }
      })
      expect(ledgerOf(fake, PROGRAM)!.pausedSignatures).toEqual([])
      expect(fake.state.dispatches).toEqual([])

      // Not yet approved: reconcile leaves it paused.
      fake.advance(30 * MINUTE)
      const waiting = await reconcileJob(fake, 19_500_000_001)
      expect(waiting.outputs.resumed).toBe('[]')
      expect(schedulerReads(fake, PROGRAM).skipped).toBe(true)

      // A maintainer approves: the jobs run and finish (red, even: a verdict is all it takes).
      planChecks(fake, { ...failingCheck(push.head, 'test', JEST_LOG), startsAt: fake.now() })
      fake.advance(10 * MINUTE)
      const approved = await reconcileJob(fake, 19_500_000_002)
      expect(approved.outputs.resumed).toBe(JSON.stringify([PROGRAM]))
      expect(schedulerReads(fake, PROGRAM)).toMatchObject({
        skipped: false,
        fields: { paused: 'false', pause_reason: null }
      })
      expect(
        commentsOn(fake).some((c) => c.includes('resumed') && c.includes('has a verdict now'))
      ).toBe(true)
    })
  })
})

/**
 * Lines the runner and npm print when a job fails for reasons outside the project, each
 * quoted unchanged from the public thread named above it.
 */
const RUNNER_SHUTDOWN_LOG = [
  // https://github.com/actions/runner/issues/2427 (job log output)
  '2023-02-09T20:11:49.9484027Z ##[error]The runner has received a shutdown signal. This can happen when the runner service is stopped, or a manually started runner is canceled.',
  '2023-02-09T20:11:49.9966268Z ##[error]The operation was canceled.',
  ''
].join('\n')
const NPM_NETWORK_LOG = [
  // https://github.com/docker/github-builder/pull/190 (npm 10 and later)
  'npm error code ECONNRESET',
  'npm error network aborted',
  ''
].join('\n')

describe('infrastructure and flaky failures: re-run, never hidden, no fix attempt spent', () => {
  it('a runner shut down: the failed job is re-run, green on re-run, reported as flaky infrastructure', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      agentPushWithChecks(fake, { 'src/orders.ts': 'x\n' }, 'cache parsed ranges', (head) => [
        failingCheck(head, 'test', RUNNER_SHUTDOWN_LOG, {
          rerun: [{ conclusion: 'success' }]
        }),
        passingCheck(head, 'lint')
      ])
      const run = await gate(fake)
      expect(run.errors).toEqual([])
      expect(run.outputs).toMatchObject({ status: 'success', verdict: 'green', attempt: '0' })
      expect(rerunRequests(fake)).toHaveLength(1)
      expect(run.summary).toContain('**Flaky** (failed, passed on re-run): [test](')
      const attempt = ledgerOf(fake, PROGRAM)!.attempts[0]!
      expect(attempt.reruns).toMatchObject([
        { why: 'infrastructure', outcome: 'passed', checks: ['test'] }
      ])
      expect(attempt.reruns?.[0]?.url).toMatch(/\/actions\/runs\/\d+$/)
      expect(attempt.classification?.flaky.map((f) => f.check)).toEqual(['test'])
      const iteration = commentsOn(fake).find((c) => c.includes('recorded an iteration'))
      expect(iteration).toContain('Flaky on the way (passed on re-run): test.')
      expect(ciGateSection(stateFileOf(fake, PROGRAM)!)).toContain(
        'Flaky on the way (passed on re-run): test.'
      )
    })
  })

  it('an npm network error: re-run up to rerun-failed times; still failing, a red attempt with the cause and the re-runs', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const push = agentPushWithChecks(
        fake,
        { 'package-lock.json': '{}\n' },
        'bump a dependency',
        (head) => [failingCheck(head, 'build', NPM_NETWORK_LOG), passingCheck(head, 'lint')]
      )
      // No fix budget, so that the red attempt pauses and the pause comment speaks too.
      const run = await gate(fake, { 'rerun-failed': '2', 'max-fix-attempts': '0' })
      expect(run.errors).toEqual([])
      expect(rerunRequests(fake)).toHaveLength(2)
      expect(run.outputs).toMatchObject({ status: 'paused', verdict: 'red', attempt: '0' })
      expect(run.outputs['pause-reason']).toMatch(/^ci-fix-exhausted: /)
      const cause = 'the network failed while installing dependencies'
      const workflowRun = fake.checkRunsFor(push.head).find((c) => c.name === 'build')!.runId
      const rerunLink = `([run](${fake.serverUrl}/octo-org/demo/actions/runs/${workflowRun}))`
      const markdown = run.outputs['failure-summary'] as string
      expect(markdown).toContain('🏗️ **Infrastructure**')
      expect(markdown).toContain(cause)
      expect(markdown).toContain(`🔁 Re-run of build (infrastructure): failed ${rerunLink}`)
      expect(readFileSync(run.outputs['failure-summary-path']!, 'utf8')).toContain(
        `/actions/runs/${workflowRun}"`
      )
      expect(run.summary).toContain(cause)
      expect(run.summary).toContain(rerunLink)
      const attempt = ledgerOf(fake, PROGRAM)!.attempts[0]!
      expect(attempt.reruns?.map((r) => [r.why, r.outcome])).toEqual([
        ['infrastructure', 'failed'],
        ['infrastructure', 'failed']
      ])
      expect(attempt.classification?.infrastructure).toMatchObject([{ check: 'build', cause }])
      const brief = ciGateSection(stateFileOf(fake, PROGRAM)!)
      expect(brief).toContain(
        `**Infrastructure** (outside the project's build and tests): build (${cause})`
      )
      expect(brief).toContain(`**Re-run** of build (infrastructure): failed ${rerunLink}`)
      const pause = pauseComments(fake)
      expect(pause).toHaveLength(1)
      expect(pause[0]).toContain(`🏗️ Infrastructure: [build](`)
      expect(pause[0]).toContain(
        `🔁 [Re-run](${fake.serverUrl}/octo-org/demo/actions/runs/${workflowRun}) of build (infrastructure): failed`
      )
    })
  })

  it('a failing test is re-run once: passing, it is flaky (summary, ledger, issue); failing again, a normal red attempt', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      agentPushWithChecks(fake, { 'src/orders.ts': 'x\n' }, 'cache parsed ranges', (head) => [
        failingCheck(head, 'test', JEST_LOG, { rerun: [{ conclusion: 'success' }] })
      ])
      const run = await gate(fake, { 'iteration-file': '' })
      expect(run.outputs).toMatchObject({ status: 'success', verdict: 'green' })
      expect(rerunRequests(fake)).toHaveLength(1)
      expect(run.summary).toContain('**Flaky** (failed, passed on re-run)')
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]).toMatchObject({
        state: 'green',
        reruns: [{ why: 'flaky-test', outcome: 'passed' }],
        classification: { flaky: [{ check: 'test' }] }
      })
      const said = commentsOn(fake).filter((c) => !c.includes('<!-- AUTOLOOP:STATUS -->'))
      expect(said).toHaveLength(1)
      expect(said[0]).toContain('🎲 Flaky (failed, then passed on re-run): [test](')
    })
    await withFake(ghAwScenario(), async (fake) => {
      agentPushWithChecks(fake, { 'src/orders.ts': 'x\n' }, 'cache parsed ranges', (head) => [
        failingCheck(head, 'test', JEST_LOG)
      ])
      const run = await gate(fake, { 'rerun-failed': '3' })
      // Once, whatever rerun-failed says: a test that fails twice is the iteration's.
      expect(rerunRequests(fake)).toHaveLength(1)
      expect(run.outputs).toMatchObject({
        status: 'failure',
        verdict: 'red',
        signature: JEST_KEY,
        'attempts-remaining': '5'
      })
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]?.reruns).toMatchObject([
        { why: 'flaky-test', outcome: 'failed' }
      ])
    })
  })

  it('a build failure is never re-run', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      agentPushWithChecks(fake, { 'src/report.ts': 'x\n' }, 'cache parsed ranges', (head) => [
        failingCheck(head, 'build', TSC_LOG, { rerun: [{ conclusion: 'success' }] })
      ])
      const run = await gate(fake, { 'rerun-failed': '3' })
      expect(rerunRequests(fake)).toEqual([])
      expect(run.outputs).toMatchObject({ status: 'failure', verdict: 'red', signature: TSC_KEY })
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]?.reruns).toBeUndefined()
    })
  })

  it('without actions: write (403 on the re-run) it is said once and the gate goes on without re-runs', async () => {
    const scenario = ghAwScenario({
      extra: {
        faults: [
          {
            kind: 'status',
            status: 403,
            route: 'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs',
            message: 'Resource not accessible by integration',
            count: 'always'
          }
        ]
      }
    })
    await withFake(scenario, async (fake) => {
      agentPushWithChecks(fake, { 'src/orders.ts': 'x\n' }, 'cache parsed ranges', (head) => [
        failingCheck(head, 'test', RUNNER_SHUTDOWN_LOG, { rerun: [{ conclusion: 'success' }] })
      ])
      const run = await gate(fake, { 'rerun-failed': '3' })
      expect(run.errors).toEqual([])
      expect(rerunRequests(fake)).toHaveLength(1)
      const refusals = run.warnings.filter((w) => w.includes('actions: write'))
      expect(refusals).toHaveLength(1)
      expect(run.outputs).toMatchObject({ status: 'failure', verdict: 'red', attempt: '0' })
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]?.reruns).toMatchObject([{ outcome: 'refused' }])
      expect(run.outputs['failure-summary']).toContain('refused')
    })
  })
})
