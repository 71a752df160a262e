/**
 * Settling on events (issue 26): a gate with `wait: false` begins the attempt and exits;
 * `settle`, started by the events GitHub sends (their payloads are GitHub's documented
 * examples, `@octokit/webhooks-examples`, with the commit and branch of the scenario), reads
 * the checks itself and settles exactly as the polling gate would; `reconcile` settles what no
 * event reached. In-process against the fake GitHub API.
 */
import { describe, expect, it } from '@jest/globals'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import type { FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { isWriteRequest } from '../../__fixtures__/fake-github/index.js'
import { withFake } from '../helpers/fake-run.js'
import { runInProcess, type InProcessRun } from '../helpers/in-process.js'
import { tempDir } from '../helpers/temp-dir.js'
import {
  BRANCH,
  MINUTE,
  PROGRAM,
  agentPush,
  ciGateJob,
  corpusLog,
  failingCheck,
  ghAwScenario,
  passingCheck,
  planChecks,
  reconcileJob
} from '../helpers/gh-aw.js'
import { STATE_BRANCH, commentsOn, ledgerOf } from '../app/commands/lifecycle-helpers.js'
import { ledgerPath } from '../../src/core/ledger.js'

/** GitHub's documented webhook example payloads, every event. */
const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as unknown
const JEST_LOG = corpusLog('jest/assertion/job-log.log')
const CI_SECONDS = 20 * 60

/** GitHub's documented example payload of `event` (the first with `action`, when given). */
function example(event: string, action?: string): Record<string, unknown> {
  const found = (examples as { name: string; examples: Record<string, unknown>[] }[]).find(
    (entry) => entry.name === event
  )
  const payload = found?.examples.find((e) => action === undefined || e.action === action)
  if (!payload) throw new Error(`no example ${event} ${action ?? ''}`)
  return structuredClone(payload)
}

/** A `workflow_run` completed payload for the scenario's commit (GitHub's example otherwise). */
function workflowRunCompleted(sha: string, branch = BRANCH, fork?: string) {
  const payload = example('workflow_run', 'completed') as {
    workflow_run: Record<string, unknown> & { head_repository: { full_name: string } }
    repository: { full_name: string }
  }
  payload.workflow_run.head_sha = sha
  payload.workflow_run.head_branch = branch
  payload.repository.full_name = 'octo-org/demo'
  payload.workflow_run.head_repository.full_name = fork ?? 'octo-org/demo'
  return payload
}

function settleJob(
  fake: FakeGitHub,
  runId: number,
  event: string,
  payload: unknown
): Promise<InProcessRun> {
  const path = join(tempDir('autoloop-event-'), 'event.json')
  writeFileSync(path, typeof payload === 'string' ? payload : JSON.stringify(payload))
  return runInProcess(fake, {
    inputs: { command: 'settle', 'state-branch': 'memory/autoloop' },
    env: { GITHUB_RUN_ID: String(runId), GITHUB_EVENT_NAME: event, GITHUB_EVENT_PATH: path }
  })
}

/** A red attempt 0 whose CI takes 20 minutes, gated with `wait: false`. */
async function waitingRed(fake: FakeGitHub, inputs: Record<string, string> = {}) {
  const push = agentPush(fake, { 'src/ranges.js': 'module.exports = 1\n' }, 'perf: ranges')
  planChecks(
    fake,
    failingCheck(push.head, 'test', JEST_LOG, {
      timeline: [
        { at: 0, status: 'queued' },
        { at: 10, status: 'in_progress' },
        { at: CI_SECONDS, status: 'completed', conclusion: 'failure' }
      ]
    }),
    passingCheck(push.head, 'lint')
  )
  const gate = await ciGateJob(fake, {
    runId: 19_100_000_001,
    iteration: { metric: 0.86, improved: true, change: 'cache parsed ranges' },
    inputs: { wait: 'false', ...inputs }
  })
  expect(gate.errors).toEqual([])
  return { push, gate }
}

const writes = (fake: FakeGitHub) => fake.requests.filter(isWriteRequest).length

describe('wait: false, then settle on events', () => {
  it('the gate exits at once; settle writes nothing while CI runs, then settles as the polling gate would', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const started = fake.now()
      const { push, gate } = await waitingRed(fake)
      expect(gate.outputs).toMatchObject({
        status: 'waiting',
        verdict: '',
        sha: push.head,
        attempt: '0',
        'attempts-remaining': '5',
        dispatched: 'false'
      })
      // It held the runner for seconds, not for the 20 minutes of CI.
      expect(fake.now() - started).toBeLessThan(60_000)
      const waiting = ledgerOf(fake, PROGRAM)!.attempts[0]!
      expect(waiting).toMatchObject({ state: 'in-flight', sha: push.head })
      expect(waiting.waits).toMatchObject({ gateRunId: 19_100_000_001, branch: BRANCH })

      // lint's run completed after 4 minutes: its event comes, CI is still running.
      fake.advance(5 * MINUTE)
      const before = writes(fake)
      const early = await settleJob(
        fake,
        19_300_000_001,
        'workflow_run',
        workflowRunCompleted(push.head)
      )
      expect(early.errors).toEqual([])
      expect(early.outputs.status).toBe('waiting')
      expect(writes(fake)).toBe(before)
      expect(early.summary).toContain('test')

      // CI completes, red; its event starts settle, which re-runs the failed test once (to
      // tell a flaky one) and waits for nothing: the re-run's completion settles.
      fake.advance(16 * MINUTE)
      const rerun = await settleJob(
        fake,
        19_300_000_002,
        'workflow_run',
        workflowRunCompleted(push.head)
      )
      expect(rerun.errors).toEqual([])
      expect(rerun.outputs.status).toBe('waiting')
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]).toMatchObject({
        state: 'in-flight',
        reruns: [{ checks: ['test'], outcome: 'pending', round: 1 }]
      })
      expect(fake.state.dispatches).toHaveLength(0)

      // The re-run fails again: red, budget left, the fixer run started.
      fake.advance(21 * MINUTE)
      const settled = await settleJob(
        fake,
        19_300_000_005,
        'workflow_run',
        workflowRunCompleted(push.head)
      )
      expect(settled.errors).toEqual([])
      expect(settled.outputs).toMatchObject({
        status: 'failure',
        verdict: 'red',
        sha: push.head,
        attempt: '0',
        'attempts-remaining': '5',
        dispatched: 'true'
      })
      expect(settled.outputs.signature).toMatch(/^jest:/)
      expect(fake.state.dispatches).toHaveLength(1)
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]).toMatchObject({
        state: 'red',
        reruns: [{ checks: ['test'], outcome: 'failed' }]
      })

      // The same event again, a check_suite event for it, and a re-run of the workflow: one
      // verdict, one dispatch, nothing written.
      const after = writes(fake)
      const again = await settleJob(
        fake,
        19_300_000_003,
        'workflow_run',
        workflowRunCompleted(push.head)
      )
      const suite = example('check_suite', 'completed') as { check_suite: Record<string, unknown> }
      suite.check_suite.head_sha = push.head
      suite.check_suite.head_branch = BRANCH
      const bySuite = await settleJob(fake, 19_300_000_004, 'check_suite', suite)
      for (const run of [again, bySuite]) {
        expect(run.errors).toEqual([])
        expect(run.outputs.status).toBe('ignored')
      }
      expect(fake.state.dispatches).toHaveLength(1)
      expect(writes(fake)).toBe(after)
    })
  })

  it("a PR into another branch: settle reads pre-existing failures on the PR's base, as the polling gate", async () => {
    const scenario = ghAwScenario({
      extra: {
        contents: { release: { 'src/ranges.js': 'module.exports = {}\n' } },
        pulls: [{ number: 7, head: BRANCH, base: 'release' }]
      }
    })
    await withFake(scenario, async (fake) => {
      const { push } = await waitingRed(fake, { pr: '7', 'rerun-failed': '0' })
      fake.advance(21 * MINUTE)
      const settled = await settleJob(
        fake,
        19_300_000_041,
        'workflow_run',
        workflowRunCompleted(push.head)
      )
      expect(settled.errors).toEqual([])
      expect(settled.outputs.verdict).toBe('red')
      expect(ledgerOf(fake, PROGRAM)!.baseFailures).toMatchObject({
        branch: 'release',
        sha: fake.state.branches.release
      })
    })
  })

  it('two settle runs at once: exactly one settles (one dispatch, one verdict)', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      // No re-run of the failed test: both runs read the finished checks and race to write.
      const { push } = await waitingRed(fake, { 'rerun-failed': '0' })
      fake.advance(21 * MINUTE)
      const runs = await Promise.all([
        settleJob(fake, 19_300_000_011, 'workflow_run', workflowRunCompleted(push.head)),
        settleJob(fake, 19_300_000_012, 'workflow_run', workflowRunCompleted(push.head))
      ])
      for (const run of runs) expect(run.errors).toEqual([])
      expect(runs.map((r) => r.outputs.status).sort()).toEqual(['failure', 'skipped'])
      expect(fake.state.dispatches).toHaveLength(1)
      const ledger = ledgerOf(fake, PROGRAM)!
      expect(ledger.attempts.map((a) => [a.index, a.state, a.dispatch?.state])).toEqual([
        [0, 'red', 'sent']
      ])
    })
  })

  it('an event for another commit, a fork, or an event settle does not know: exit 0, nothing written', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const { push } = await waitingRed(fake)
      fake.advance(21 * MINUTE)
      const before = writes(fake)
      const other = await settleJob(
        fake,
        19_300_000_021,
        'workflow_run',
        workflowRunCompleted('e'.repeat(40))
      )
      const fork = await settleJob(
        fake,
        19_300_000_022,
        'workflow_run',
        workflowRunCompleted(push.head, BRANCH, 'someone/demo')
      )
      const unknown = await settleJob(fake, 19_300_000_023, 'issues', example('issues'))
      const requested = await settleJob(
        fake,
        19_300_000_024,
        'workflow_run',
        example('workflow_run', 'requested')
      )
      for (const run of [other, fork, unknown, requested]) {
        expect(run.errors).toEqual([])
        expect(run.exitCode).toBe(0)
        expect(run.outputs.status).toBe('ignored')
      }
      expect(writes(fake)).toBe(before)
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]?.state).toBe('in-flight')
    })
  })

  it('an event that never comes: the scheduled reconcile settles it (and never calls it abandoned)', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const { push } = await waitingRed(fake)
      fake.advance(5 * MINUTE)
      const early = await reconcileJob(fake, 19_400_000_001)
      expect(early.errors).toEqual([])
      expect(early.outputs.abandoned).toBe('[]')
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]?.state).toBe('in-flight')
      // Each scheduled reconcile looks once: CI done (the re-run requested), then the re-run done.
      fake.advance(16 * MINUTE)
      const done = await reconcileJob(fake, 19_400_000_002)
      expect(done.errors).toEqual([])
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]?.state).toBe('in-flight')
      fake.advance(21 * MINUTE)
      const late = await reconcileJob(fake, 19_400_000_003)
      expect(late.errors).toEqual([])
      expect(late.outputs.abandoned).toBe('[]')
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]).toMatchObject({ sha: push.head, state: 'red' })
      expect(fake.state.dispatches).toHaveLength(1)
    })
  })

  it('the wall clock passing with no event: ci-timeout, as the polling gate', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const push = agentPush(fake, { 'src/ranges.js': 'module.exports = 1\n' }, 'perf: ranges')
      planChecks(fake, {
        sha: push.head,
        name: 'test',
        timeline: [{ at: 0, status: 'in_progress' }]
      })
      await ciGateJob(fake, {
        runId: 19_100_000_031,
        iteration: { metric: 0.86, improved: true, change: 'c' },
        inputs: { wait: 'false', 'timeout-minutes': '30' }
      })
      fake.advance(31 * MINUTE)
      const late = await reconcileJob(fake, 19_400_000_031)
      expect(late.errors).toEqual([])
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]?.state).toBe('ci-timeout')
      // reconcile's `paused` output names the pause its settling made.
      expect(JSON.parse(late.outputs.paused ?? '[]')).toEqual([
        expect.objectContaining({ program: PROGRAM })
      ])
      expect(commentsOn(fake).some((c) => c.includes('ci-timeout'))).toBe(true)
    })
  })

  it('a failed test that passes on re-run: settled green and reported flaky, never hidden', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const push = agentPush(fake, { 'src/ranges.js': 'module.exports = 1\n' }, 'perf: ranges')
      planChecks(
        fake,
        failingCheck(push.head, 'test', JEST_LOG, { rerun: [{ conclusion: 'success' }] }),
        passingCheck(push.head, 'lint')
      )
      await ciGateJob(fake, {
        runId: 19_100_000_051,
        iteration: { metric: 0.9, improved: true, change: 'cache parsed ranges' },
        inputs: { wait: 'false' }
      })
      fake.advance(6 * MINUTE)
      const first = await settleJob(
        fake,
        19_300_000_051,
        'workflow_run',
        workflowRunCompleted(push.head)
      )
      expect(first.outputs.status).toBe('waiting')
      fake.advance(6 * MINUTE)
      const green = await settleJob(
        fake,
        19_300_000_052,
        'workflow_run',
        workflowRunCompleted(push.head)
      )
      expect(green.errors).toEqual([])
      expect(green.outputs).toMatchObject({ status: 'success', verdict: 'green', sha: push.head })
      const attempt = ledgerOf(fake, PROGRAM)!.attempts[0]!
      expect(attempt.state).toBe('green')
      expect(attempt.classification?.flaky.map((f) => f.check)).toEqual(['test'])
      expect(attempt.reruns?.map((r) => r.outcome)).toEqual(['passed'])
      expect(fake.state.dispatches).toHaveLength(0)
    })
  })

  it('green on events records the iteration the agent handed over, as the polling gate', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const push = agentPush(fake, { 'src/ranges.js': 'module.exports = 1\n' }, 'perf: ranges')
      planChecks(fake, passingCheck(push.head, 'test'), passingCheck(push.head, 'lint'))
      await ciGateJob(fake, {
        runId: 19_100_000_041,
        iteration: { metric: 0.91, improved: true, change: 'cache parsed ranges' },
        inputs: { wait: 'false' }
      })
      fake.advance(5 * MINUTE)
      const green = await settleJob(
        fake,
        19_300_000_041,
        'workflow_run',
        workflowRunCompleted(push.head)
      )
      expect(green.outputs).toMatchObject({ status: 'success', verdict: 'green', sha: push.head })
      expect(ledgerOf(fake, PROGRAM)!.iteration?.outcome).toBe('green')
    })
  })

  it('a payload that is not JSON, or a dispatch naming a program not here: exit 0, nothing written', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      await waitingRed(fake)
      fake.advance(21 * MINUTE)
      const before = writes(fake)
      const garbled = await settleJob(fake, 19_300_000_051, 'workflow_run', '{"action": "compl')
      const dispatch = example('workflow_dispatch')
      const elsewhere = await settleJob(fake, 19_300_000_052, 'workflow_dispatch', {
        ...dispatch,
        inputs: { program: 'not-here' }
      })
      const notAName = await settleJob(fake, 19_300_000_053, 'workflow_dispatch', {
        ...dispatch,
        inputs: { program: '../etc' }
      })
      for (const run of [garbled, elsewhere, notAName]) {
        expect(run.errors).toEqual([])
        expect(run.exitCode).toBe(0)
        expect(run.outputs.status).toBe('ignored')
      }
      expect(writes(fake)).toBe(before)
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]?.state).toBe('in-flight')
    })
  })

  it("a malformed ledger of the program an event names is the gate's error; nothing is written", async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const { push } = await waitingRed(fake)
      fake.advance(21 * MINUTE)
      fake.commit(STATE_BRANCH, { [ledgerPath(PROGRAM)]: '{"version": 1, "attempts": [' }, 'x')
      const before = writes(fake)
      const named = await settleJob(fake, 19_300_000_061, 'workflow_dispatch', {
        ...example('workflow_dispatch'),
        inputs: { program: PROGRAM }
      })
      expect(named.exitCode).toBe(1)
      expect(named.errors.join('\n')).toContain(ledgerPath(PROGRAM))
      // The polling gate on the same files stops on the same error.
      const gate = await ciGateJob(fake, {
        runId: 19_100_000_061,
        iteration: { metric: 0.86, improved: true, change: 'c' }
      })
      expect(gate.exitCode).toBe(1)
      expect(named.errors).toEqual(gate.errors)
      // An event about a commit names no program: the broken ledger is left as it is.
      const byCommit = await settleJob(
        fake,
        19_300_000_062,
        'workflow_run',
        workflowRunCompleted(push.head)
      )
      expect(byCommit.exitCode).toBe(0)
      expect(byCommit.outputs.status).toBe('ignored')
      expect(writes(fake)).toBe(before)
    })
  })
})
