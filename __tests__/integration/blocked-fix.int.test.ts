/**
 * Whose failure it is, on a fix attempt (issue 25): a fix commit whose CI waits for approval
 * spends no fix attempt, and once the approval comes and CI runs, that same commit is gated as
 * the same attempt with the budget it had; a fixer run skipped before its agent ran is
 * reported (pause reason, comment, job summary, outputs) by the next gate or `reconcile`,
 * whichever comes first, whether GitHub named the dispatched run or it had to be found. Each
 * with GraphQL served and refused, in the gh-aw setup and as the plain step.
 */
import { describe, expect, it } from '@jest/globals'
import type {
  DispatchedRunPlan,
  FakeGitHub,
  FaultSpec
} from '../../__fixtures__/fake-github/index.js'
import { withFake } from '../helpers/fake-run.js'
import { runInProcess, type InProcessRun } from '../helpers/in-process.js'
import {
  MINUTE,
  PROGRAM,
  WORKFLOW,
  agentPush,
  ciGateJob,
  corpusLog,
  failingCheck,
  ghAwScenario,
  passingCheck,
  planChecks,
  reconcileJob
} from '../helpers/gh-aw.js'
import { commentsOn, ledgerOf, schedulerReads } from '../app/commands/lifecycle-helpers.js'

const JEST_LOG = corpusLog('jest/assertion/job-log.log')
const GRAPHQL_REFUSED: FaultSpec[] = [
  {
    kind: 'status',
    status: 403,
    route: 'POST /graphql',
    message: 'Resource not accessible by integration',
    count: 'always'
  }
]
type Setup = 'gh-aw' | 'plain'
const MATRIX: [string, FaultSpec[], Setup][] = [
  ['GraphQL served, gh-aw', [], 'gh-aw'],
  ['GraphQL refused, gh-aw', GRAPHQL_REFUSED, 'gh-aw'],
  ['GraphQL served, plain step', [], 'plain'],
  ['GraphQL refused, plain step', GRAPHQL_REFUSED, 'plain']
]

/** One gate: gh-aw's `ci_gate` job (with the agent's iteration file), or the plain step. */
function gate(
  fake: FakeGitHub,
  setup: Setup,
  runId: number,
  improved = true
): Promise<InProcessRun> {
  if (setup === 'gh-aw')
    return ciGateJob(fake, {
      runId,
      iteration: improved
        ? { metric: 0.87, improved: true, change: 'cache parsed ranges' }
        : { metric: null, improved: false, change: 'nothing to change' }
    })
  return runInProcess(fake, {
    inputs: {
      program: PROGRAM,
      push: 'false',
      'state-branch': 'memory/autoloop',
      'dispatch-workflow': WORKFLOW,
      'create-pr': 'false'
    },
    env: { GITHUB_RUN_ID: String(runId), GITHUB_RUN_ATTEMPT: '1' }
  })
}

async function redAttemptZero(fake: FakeGitHub, setup: Setup): Promise<InProcessRun> {
  const push = agentPush(fake, { 'src/ranges.js': 'module.exports = 1\n' }, 'perf: ranges')
  planChecks(fake, failingCheck(push.head, 'test', JEST_LOG), passingCheck(push.head, 'lint'))
  const run = await gate(fake, setup, 19_100_000_001)
  expect(run.errors).toEqual([])
  expect(run.outputs).toMatchObject({ status: 'failure', attempt: '0', dispatched: 'true' })
  expect(run.outputs['attempts-remaining']).toBe('5')
  return run
}

describe.each(MATRIX)('a fix commit waiting for approval (%s)', (_name, faults, setup) => {
  it('spends no fix attempt, and once CI runs the same commit is gated with the budget it had', async () => {
    await withFake(ghAwScenario({ extra: { faults } }), async (fake) => {
      await redAttemptZero(fake, setup)
      fake.advance(5 * MINUTE)
      const fix = agentPush(fake, { 'src/ranges.js': 'module.exports = 2\n' }, 'fix: ranges')
      planChecks(fake, {
        name: 'test',
        sha: fix.head,
        timeline: [{ at: 0, status: 'completed', conclusion: 'action_required' }]
      })
      const blocked = await gate(fake, setup, 19_100_000_002)
      expect(blocked.errors).toEqual([])
      expect(blocked.outputs).toMatchObject({
        status: 'paused',
        verdict: 'blocked',
        sha: fix.head,
        attempt: '1',
        'attempts-remaining': '5',
        dispatched: 'false'
      })
      expect(blocked.outputs['pause-reason']).toMatch(/^ci-blocked: .*wait for approval/)
      expect(ledgerOf(fake, PROGRAM)!.iteration).toMatchObject({ finishedAt: null })

      // Approved: the job runs and fails. reconcile lifts the pause (the head has a verdict).
      planChecks(fake, { ...failingCheck(fix.head, 'test', JEST_LOG), startsAt: fake.now() })
      fake.advance(10 * MINUTE)
      const reconciled = await reconcileJob(fake, 19_500_000_001)
      expect(reconciled.outputs.resumed).toBe(JSON.stringify([PROGRAM]))

      // The next gate on that same commit is fix attempt 1 of the same iteration, with the
      // budget it had: the red verdict spends it (5 → 4), and the fixer run is started.
      const regated = await gate(fake, setup, 19_100_000_003)
      expect(regated.errors).toEqual([])
      expect(regated.outputs).toMatchObject({
        sha: fix.head,
        attempt: '1',
        verdict: 'red'
      })
      // The same failure as attempt 0: stuck, not a new budget.
      expect(regated.outputs['pause-reason']).toMatch(/^stuck in CI fix loop: jest:/)
      const ledger = ledgerOf(fake, PROGRAM)!
      expect(ledger.attempts.map((a) => [a.index, a.sha, a.state])).toEqual([
        [0, ledger.attempts[0]!.sha, 'red'],
        [1, fix.head, 'red']
      ])
    })
  })

  it('a green verdict after the approval accepts the fix as attempt 1 (4 fix attempts left)', async () => {
    await withFake(ghAwScenario({ extra: { faults } }), async (fake) => {
      await redAttemptZero(fake, setup)
      fake.advance(5 * MINUTE)
      const fix = agentPush(fake, { 'src/ranges.js': 'module.exports = 2\n' }, 'fix: ranges')
      fake.state.workflowRuns.push({
        sha: fix.head,
        workflow: 'CI',
        timeline: [{ at: 0, status: 'completed', conclusion: 'action_required' }]
      })
      const blocked = await gate(fake, setup, 19_100_000_002)
      expect(blocked.outputs).toMatchObject({ status: 'paused', attempt: '1' })
      expect(blocked.outputs['attempts-remaining']).toBe('5')
      planChecks(fake, { ...passingCheck(fix.head, 'test'), startsAt: fake.now() })
      fake.advance(10 * MINUTE)
      await reconcileJob(fake, 19_500_000_002)
      const green = await gate(fake, setup, 19_100_000_003)
      expect(green.outputs).toMatchObject({
        status: 'success',
        verdict: 'green',
        sha: fix.head,
        attempt: '1',
        'attempts-remaining': '4'
      })
      expect(ledgerOf(fake, PROGRAM)!.attempts.map((a) => [a.index, a.state])).toEqual([
        [0, 'red'],
        [1, 'green']
      ])
    })
  })
})

/** gh-aw's jobs of a run that pre_activation did not activate (`activated=false`). */
function skippedByPreActivation(runDetails: boolean): DispatchedRunPlan {
  return {
    queuedSeconds: 5,
    runSeconds: 30,
    runDetails,
    jobs: [
      { name: 'pre_activation', conclusion: 'success' },
      { name: 'activation', conclusion: 'skipped' },
      { name: 'agent', conclusion: 'skipped' },
      { name: 'safe_outputs', conclusion: 'skipped' },
      { name: 'push_repo_memory', conclusion: 'skipped' },
      { name: 'ci_gate', conclusion: 'skipped' }
    ]
  }
}

const SKIPPED_MATRIX = MATRIX.flatMap(([name, faults, setup]) =>
  [true, false].flatMap((runDetails) =>
    (['gate', 'reconcile'] as const).map(
      (first) =>
        [
          `${name}, ${runDetails ? 'run named by the dispatch' : 'run found by workflow, ref, event and time'}, found by ${first === 'gate' ? 'the next gate' : 'reconcile'}`,
          faults,
          setup,
          runDetails,
          first
        ] as const
    )
  )
)

describe.each(SKIPPED_MATRIX)(
  'a fixer run skipped before its agent ran (%s)',
  (_name, faults, setup, runDetails, first) => {
    it('pauses ci-blocked with the cause and the fix, says so everywhere, spends no attempt', async () => {
      const scenario = ghAwScenario({
        extra: { faults, dispatchedRuns: skippedByPreActivation(runDetails) }
      })
      await withFake(scenario, async (fake) => {
        await redAttemptZero(fake, setup)
        const fixerRun = fake.state.dispatches[0]!.runId
        fake.advance(5 * MINUTE)
        const found =
          first === 'gate'
            ? await gate(fake, setup, 19_100_000_002, false)
            : await reconcileJob(fake, 19_200_000_002)
        expect(found.errors).toEqual([])
        const cause = `ci-blocked: fixer run ${fixerRun} did not run the agent: pre_activation did not activate it`
        const fix = '`bots: ["github-actions[bot]"]`'
        expect(schedulerReads(fake, PROGRAM).fields.pause_reason).toMatch(new RegExp(`^${cause}`))
        expect(found.summary).toContain(fix)
        const pause = commentsOn(fake).filter((c) => c.startsWith('<!-- autoloop-ci-gate:pause'))
        expect(pause).toHaveLength(1)
        expect(pause[0]).toContain(cause)
        expect(pause[0]).toContain(fix)
        if (first === 'gate')
          expect(found.outputs).toMatchObject({
            status: 'paused',
            verdict: 'blocked',
            attempt: '0',
            'attempts-remaining': '5'
          })
        else
          expect(JSON.parse(found.outputs.paused ?? '[]')).toEqual([
            { program: PROGRAM, reason: expect.stringMatching(new RegExp(`^${cause}`)) }
          ])
        expect(found.outputs['pause-reason'] ?? '').toMatch(
          first === 'gate' ? new RegExp(`^${cause}`) : /^$/
        )
        const ledger = ledgerOf(fake, PROGRAM)!
        expect(ledger.attempts.map((a) => [a.index, a.state])).toEqual([[0, 'red']])
        expect(ledger.pausedSignatures).toEqual([])
        expect(fake.state.dispatches).toHaveLength(1)
      })
    })
  }
)
