/**
 * When no fix arrives (issue 16): the fixer run the gate dispatched never ran its agent
 * (gh-aw's pre_activation skipped it), its push did not land (`safe-outputs-result`, a
 * fallback PR), or GitHub did not say which run the dispatch started. In-process against the
 * fake GitHub API, whose dispatched runs have gh-aw's jobs.
 */
import { describe, expect, it } from '@jest/globals'
import type { FakeGitHub, DispatchedRunPlan } from '../../__fixtures__/fake-github/index.js'
import { withFake } from '../helpers/fake-run.js'
import {
  BRANCH,
  MINUTE,
  PROGRAM,
  WORKFLOW,
  agentPush,
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

const SCHEDULED_RUN = 19_100_000_001
const NEXT_SCHEDULED_RUN = 19_100_000_777
const JEST_LOG = corpusLog('jest/assertion/job-log.log')

/** A dispatched run that queues 5 s and runs 30 s, with these jobs. */
function fixerRun(jobs: DispatchedRunPlan['jobs']): DispatchedRunPlan {
  return { queuedSeconds: 5, runSeconds: 30, jobs }
}

/** gh-aw's jobs of a run that pre_activation did not activate (`activated=false`). */
const SKIPPED_BY_PRE_ACTIVATION = fixerRun([
  { name: 'pre_activation', conclusion: 'success' },
  { name: 'activation', conclusion: 'skipped' },
  { name: 'agent', conclusion: 'skipped' },
  { name: 'detection', conclusion: 'skipped' },
  { name: 'safe_outputs', conclusion: 'skipped' },
  { name: 'push_repo_memory', conclusion: 'skipped' },
  { name: 'ci_gate', conclusion: 'skipped' },
  { name: 'conclusion', conclusion: 'skipped' }
])

async function redFirstRun(fake: FakeGitHub) {
  const push = agentPush(
    fake,
    { 'src/ranges.js': 'module.exports = { broken: true }\n' },
    'perf: cache parsed ranges'
  )
  planChecks(fake, failingCheck(push.head, 'test', JEST_LOG), passingCheck(push.head, 'lint'))
  const run = await ciGateJob(fake, {
    runId: SCHEDULED_RUN,
    iteration: { metric: 0.86, improved: true, change: 'cache parsed ranges' }
  })
  expect(run.errors).toEqual([])
  expect(run.outputs).toMatchObject({ status: 'failure', dispatched: 'true' })
  return { push, run }
}

function pauseComments(fake: FakeGitHub): string[] {
  return commentsOn(fake).filter((c) => c.startsWith('<!-- autoloop-ci-gate:pause'))
}

describe('a fixer run that never ran its agent', () => {
  it('the next gate on the same head pauses ci-blocked with the cause and the on.bots fix; no attempt spent', async () => {
    const scenario = ghAwScenario({ extra: { dispatchedRuns: SKIPPED_BY_PRE_ACTIVATION } })
    await withFake(scenario, async (fake) => {
      const { push } = await redFirstRun(fake)
      const fixerRun = fake.state.dispatches[0]!.runId
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]?.dispatch).toMatchObject({
        state: 'sent',
        runId: fixerRun
      })

      // The fixer run was skipped at pre_activation; the next scheduled run's agent pushed nothing.
      fake.advance(20 * MINUTE)
      const next = await ciGateJob(fake, {
        runId: NEXT_SCHEDULED_RUN,
        iteration: { metric: null, improved: false, change: 'nothing to change' }
      })
      expect(next.errors).toEqual([])
      const cause = `fixer run ${fixerRun} did not run the agent: pre_activation did not activate it`
      expect(next.outputs).toMatchObject({
        status: 'paused',
        verdict: 'blocked',
        sha: push.head,
        attempt: '0',
        'attempts-remaining': '5',
        dispatched: 'false'
      })
      expect(next.outputs['pause-reason']).toMatch(new RegExp(`^ci-blocked: ${cause}`))
      // The fix, in the job summary and the pause comment.
      expect(next.summary).toContain('`bots: ["github-actions[bot]"]`')
      const pause = pauseComments(fake)
      expect(pause).toHaveLength(1)
      expect(pause[0]).toContain(`ci-blocked: ${cause}`)
      expect(pause[0]).toContain('`bots: ["github-actions[bot]"]`')

      // No attempt was spent: the red attempt is the only one, and keeps its failures.
      const ledger = ledgerOf(fake, PROGRAM)!
      expect(ledger.attempts.map((a) => [a.index, a.state, a.noNewCommit ?? false])).toEqual([
        [0, 'red', false]
      ])
      expect(ledger.attempts[0]?.signature?.short).toMatch(/^jest:/)
      expect(ledger.attempts[0]?.note).toContain(cause)
      expect(ledger.iteration?.outcome).toBe('paused')
      expect(ledger.pausedSignatures).toEqual([])
      expect(schedulerReads(fake, PROGRAM)).toMatchObject({
        skipped: true,
        fields: { paused: 'true' }
      })
      // Its jobs were read, and nothing was dispatched again.
      expect(fake.requests.some((r) => r.path.endsWith(`/actions/runs/${fixerRun}/jobs`))).toBe(
        true
      )
      expect(fake.state.dispatches).toHaveLength(1)

      // reconcile lifts a blocked pause once the head has a verdict; a later run's fix is
      // gated normally.
      fake.advance(5 * MINUTE)
      const reconciled = await reconcileJob(fake, 19_200_000_001)
      expect(reconciled.outputs.resumed).toBe(JSON.stringify([PROGRAM]))
      fake.advance(5 * MINUTE)
      const fix = agentPush(fake, { 'src/ranges.js': 'module.exports = {}\n' }, 'fix: ranges')
      planChecks(fake, passingCheck(fix.head, 'test'), passingCheck(fix.head, 'lint'))
      const green = await ciGateJob(fake, {
        runId: NEXT_SCHEDULED_RUN + 1,
        iteration: { metric: 0.87, improved: true, change: 'cache parsed ranges, fixed' }
      })
      expect(green.errors).toEqual([])
      expect(green.outputs).toMatchObject({ status: 'success', verdict: 'green', sha: fix.head })
    })
  })

  it('reconcile finds it once the fixer run ended: ci-blocked, no attempt spent, not stuck', async () => {
    const scenario = ghAwScenario({ extra: { dispatchedRuns: SKIPPED_BY_PRE_ACTIVATION } })
    await withFake(scenario, async (fake) => {
      const { run } = await redFirstRun(fake)
      const fixerRun = fake.state.dispatches[0]!.runId
      fake.advance(5 * MINUTE)
      const reconciled = await reconcileJob(fake, 19_200_000_002)
      expect(reconciled.errors).toEqual([])
      const reason = schedulerReads(fake, PROGRAM).fields.pause_reason
      expect(reason).toMatch(
        new RegExp(`^ci-blocked: fixer run ${fixerRun} did not run the agent: pre_activation`)
      )
      expect(reason).not.toContain(run.outputs.signature!)
      // The fix, in reconcile's job summary too.
      expect(reconciled.summary).toContain('`bots: ["github-actions[bot]"]`')
      const ledger = ledgerOf(fake, PROGRAM)!
      expect(ledger.attempts.map((a) => [a.index, a.state])).toEqual([[0, 'red']])
      expect(ledger.pausedSignatures).toEqual([])
      expect(pauseComments(fake)[0]).toContain('`bots: ["github-actions[bot]"]`')
      expect(ciGateSection(stateFileOf(fake, PROGRAM)!)).toContain('ci-blocked: fixer run')
    })
  })

  it('a fixer run whose agent ran and pushed nothing is still stuck', async () => {
    const scenario = ghAwScenario({
      extra: {
        dispatchedRuns: fixerRun([
          { name: 'pre_activation', conclusion: 'success' },
          { name: 'activation', conclusion: 'success' },
          { name: 'agent', conclusion: 'success' },
          { name: 'detection', conclusion: 'skipped' },
          { name: 'safe_outputs', conclusion: 'skipped' },
          { name: 'ci_gate', conclusion: 'success' }
        ])
      }
    })
    await withFake(scenario, async (fake) => {
      const { run } = await redFirstRun(fake)
      fake.advance(5 * MINUTE)
      await reconcileJob(fake, 19_200_000_003)
      expect(schedulerReads(fake, PROGRAM).fields.pause_reason).toBe(
        `stuck in CI fix loop: ${run.outputs.signature}`
      )
      expect(ledgerOf(fake, PROGRAM)!.attempts).toHaveLength(2)
    })
  })
})

describe('a push that did not land', () => {
  it('safe-outputs-result failure: ci-blocked with that cause, never stuck, no attempt spent', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      await redFirstRun(fake)
      const fixerRun = fake.state.dispatches[0]!.runId
      fake.advance(15 * MINUTE)
      const second = await ciGateJob(fake, {
        runId: fixerRun,
        iteration: { metric: 0.87, improved: true, change: 'fixed the range parser' },
        inputs: { 'safe-outputs-result': 'failure' }
      })
      expect(second.errors).toEqual([])
      expect(second.outputs).toMatchObject({
        status: 'paused',
        verdict: 'blocked',
        attempt: '0',
        'attempts-remaining': '5',
        'pause-reason': `ci-blocked: the push of run ${fixerRun} did not land: safe_outputs ended failure`
      })
      expect(ledgerOf(fake, PROGRAM)!.attempts).toHaveLength(1)
      expect(ledgerOf(fake, PROGRAM)!.pausedSignatures).toEqual([])
      expect(second.summary).toContain('`safe_outputs`')
    })
  })

  it('a fallback PR into the program branch since the attempt: ci-blocked naming it', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const { push } = await redFirstRun(fake)
      const fixerRun = fake.state.dispatches[0]!.runId
      fake.advance(15 * MINUTE)
      // gh-aw's fallback-as-pull-request: the fix went to a new branch and a PR into ours.
      const fallback = `${BRANCH}-fallback-1759320600`
      fake.setBranch(fallback, push.head)
      const fallbackSha = fake.commit(fallback, { 'src/ranges.js': 'fixed\n' }, 'fix: ranges')
      expect(fallbackSha).toMatch(/^[0-9a-f]{40}$/)
      const opened = await fetch(`${fake.apiUrl}/repos/octo-org/demo/pulls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: '[Autoloop: perf] fix', head: fallback, base: BRANCH })
      })
      const pr = (await opened.json()) as { number: number }
      const second = await ciGateJob(fake, {
        runId: fixerRun,
        iteration: { metric: 0.87, improved: true, change: 'fixed the range parser' },
        inputs: { 'safe-outputs-result': 'success' }
      })
      expect(second.errors).toEqual([])
      expect(second.outputs).toMatchObject({
        status: 'paused',
        verdict: 'blocked',
        'attempts-remaining': '5',
        'pause-reason': `ci-blocked: the fix was pushed to ${fallback} (PR #${pr.number}), not to ${BRANCH}`
      })
      expect(second.summary).toContain('`fallback-as-pull-request: false`')
      expect(ledgerOf(fake, PROGRAM)!.attempts).toHaveLength(1)
    })
  })
})

describe('a fallback branch without a PR', () => {
  it('reconcile finds the branch committed since the attempt: ci-blocked naming it', async () => {
    const scenario = ghAwScenario({
      extra: {
        dispatchedRuns: fixerRun([
          { name: 'pre_activation', conclusion: 'success' },
          { name: 'activation', conclusion: 'success' },
          { name: 'agent', conclusion: 'success' },
          { name: 'detection', conclusion: 'success' },
          { name: 'safe_outputs', conclusion: 'success' }
        ])
      }
    })
    await withFake(scenario, async (fake) => {
      const { push } = await redFirstRun(fake)
      fake.advance(MINUTE)
      const fallback = `${BRANCH}-fallback-1759320600`
      fake.setBranch(fallback, push.head)
      fake.commit(fallback, { 'src/ranges.js': 'fixed\n' }, 'fix: ranges')
      fake.advance(5 * MINUTE)
      const reconciled = await reconcileJob(fake, 19_200_000_006)
      expect(reconciled.errors).toEqual([])
      expect(schedulerReads(fake, PROGRAM).fields.pause_reason).toBe(
        `ci-blocked: the fix was pushed to ${fallback}, not to ${BRANCH}`
      )
      expect(ledgerOf(fake, PROGRAM)!.attempts).toHaveLength(1)
    })
  })
})

describe('a dispatch GitHub did not name the run of (204)', () => {
  it('finds the run by workflow, ref, event and creation time, and records it', async () => {
    const scenario = ghAwScenario({
      extra: { dispatchedRuns: { ...SKIPPED_BY_PRE_ACTIVATION, runDetails: false } }
    })
    await withFake(scenario, async (fake) => {
      await redFirstRun(fake)
      const dispatched = fake.state.dispatches[0]!
      const dispatch = ledgerOf(fake, PROGRAM)!.attempts[0]?.dispatch
      expect(dispatch).toMatchObject({ state: 'sent', runId: dispatched.runId })
      expect(dispatch?.url).toMatch(new RegExp(`/actions/runs/${dispatched.runId}$`))
      const lookup = fake.requests.find((r) =>
        r.route?.endsWith('/actions/workflows/{workflow_id}/runs')
      )
      expect(lookup?.path).toContain(`/actions/workflows/${WORKFLOW}/runs`)
      expect(lookup?.query).toMatchObject({ event: 'workflow_dispatch', branch: 'main' })
      expect(lookup?.query.created).toMatch(/^>=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)

      // And the check of its jobs works from there.
      fake.advance(5 * MINUTE)
      await reconcileJob(fake, 19_200_000_004)
      expect(schedulerReads(fake, PROGRAM).fields.pause_reason).toMatch(
        new RegExp(`^ci-blocked: fixer run ${dispatched.runId} did not run the agent`)
      )
    })
  })
})

describe('what cannot be read never blocks the loop on its own', () => {
  it('runs that cannot be listed or jobs that cannot be read: the fixer stays unknown, nothing is paused for it', async () => {
    const scenario = ghAwScenario({
      extra: {
        dispatchedRuns: { ...SKIPPED_BY_PRE_ACTIVATION, runDetails: false },
        faults: [
          {
            kind: 'status',
            status: 403,
            route: 'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs',
            count: 'always'
          }
        ]
      }
    })
    await withFake(scenario, async (fake) => {
      const { run } = await redFirstRun(fake)
      expect(run.outputs.dispatched).toBe('true')
      // Sent, but GitHub did not say which run, and the runs could not be listed.
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]?.dispatch).toMatchObject({
        state: 'sent',
        runId: null
      })
      fake.advance(5 * MINUTE)
      const reconciled = await reconcileJob(fake, 19_200_000_005)
      expect(reconciled.errors).toEqual([])
      expect(reconciled.outputs.errors).toBe('[]')
      expect(schedulerReads(fake, PROGRAM).skipped).toBe(false)
      expect(ledgerOf(fake, PROGRAM)!.attempts).toHaveLength(1)
    })
  })

  it("a fixer run whose jobs cannot be read is judged by the branch head, as before (the gate's own view)", async () => {
    const scenario = ghAwScenario({ extra: { dispatchedRuns: SKIPPED_BY_PRE_ACTIVATION } })
    await withFake(scenario, async (fake) => {
      const { run } = await redFirstRun(fake)
      fake.addFault({
        kind: 'status',
        status: 403,
        route: 'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs',
        count: 'always'
      })
      fake.advance(20 * MINUTE)
      const next = await ciGateJob(fake, {
        runId: NEXT_SCHEDULED_RUN,
        iteration: { metric: null, improved: false, change: 'nothing to change' }
      })
      expect(next.errors).toEqual([])
      expect(next.outputs['pause-reason']).toBe(`stuck in CI fix loop: ${run.outputs.signature}`)
    })
  })
})
