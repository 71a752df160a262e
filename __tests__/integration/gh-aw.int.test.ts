/**
 * The gate where autoloop runs it (issue 9): the `ci_gate` job of the gh-aw autoloop workflow,
 * one fix attempt per workflow run, in-process against the fake GitHub API. Each test plays
 * workflow runs in a row as gh-aw runs them: the agent's commit and gh-aw's empty CI-trigger
 * commit pushed before the job, the hand-over files, the state on `memory/autoloop`, the fixer
 * run started with `workflow_dispatch`, other runs' memory pushes, and `reconcile`.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Clock } from '../../src/ports.js'
import { isWriteRequest, type FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { runInProcess } from '../helpers/in-process.js'
import {
  beginAttempt,
  completeAttempt,
  emptyLedger,
  finishIteration,
  ledgerPath,
  type Ledger
} from '../../src/core/ledger.js'
import { parseLedgerFile } from '../../src/statefile/ledger-file.js'
import { withFake } from '../helpers/fake-run.js'
import {
  BRANCH,
  DISPATCH_INPUTS,
  INITIAL_ROWS,
  MANY_FAILURES_LOG,
  MINUTE,
  PROGRAM,
  START,
  WORKFLOW,
  agentPush,
  agentPushWithChecks,
  ciGateJob,
  ciGateSection,
  corpusLog,
  failingCheck,
  ghAwScenario,
  passingCheck,
  planChecks,
  reconcileJob,
  selectionFixture,
  stateFileWithHistory,
  writeRequests
} from '../helpers/gh-aw.js'
import {
  ISSUE,
  STATE_BRANCH,
  STATE_MAX_BYTES,
  commentsOn,
  ledgerOf,
  programFiles,
  schedulerReads,
  stateFileOf
} from '../app/commands/lifecycle-helpers.js'

const SCHEDULED_RUN = 19_100_000_001
const JEST_LOG = corpusLog('jest/assertion/job-log.log')

/** What an agent reads of the program's memory when its run starts. */
function agentsSnapshot(fake: FakeGitHub): string {
  return fake.readFile(STATE_BRANCH, `${PROGRAM}.md`)!
}

/** The agent's own edits to its snapshot: a Machine State row it owns and a lesson. */
function agentEdits(snapshot: string, edits: { targetMetric: string; lesson: string }): string {
  return snapshot
    .replace(/^\| Target Metric \| [^|]+ \|$/m, `| Target Metric | ${edits.targetMetric} |`)
    .replace('## 📚 Lessons Learned\n', `## 📚 Lessons Learned\n\n- ${edits.lesson}\n`)
}

/** A program whose last iteration ended green, both files as the action leaves them. */
function idleProgram(name: string, seed: number): Record<string, string> {
  const at = START - (seed + 10) * 60 * MINUTE
  const sha = (seed + 1).toString(16).padStart(40, 'a')
  let ledger = emptyLedger(name, at)
  ledger = beginAttempt(ledger, {
    sha,
    runId: 18_000_000_000 + seed,
    now: at,
    maxFixAttempts: 5,
    timeoutMinutes: 60
  }).ledger
  ledger = completeAttempt(ledger, 0, { state: 'green', now: at + 5 * MINUTE })
  return programFiles(name, { iterationCount: seed, recentStatuses: ['accepted'] }, ledger)
}

/** A ledger whose iteration paused as stuck on a red attempt. */
function stuckLedger(name: string): Ledger {
  const at = START - 3 * 60 * MINUTE
  const sha = 'bad'.padEnd(40, '0')
  let ledger = emptyLedger(name, at)
  ledger = beginAttempt(ledger, {
    sha,
    runId: 18_100_000_000,
    now: at,
    maxFixAttempts: 5,
    timeoutMinutes: 60
  }).ledger
  ledger = completeAttempt(ledger, 0, { state: 'red', now: at + 5 * MINUTE })
  return finishIteration(ledger, 'paused', at + 5 * MINUTE)
}

/** The scheduler's selection with fields changed (a file that is not what it should be). */
function selectionWith(changes: Record<string, unknown>): string {
  return JSON.stringify({ ...(JSON.parse(selectionFixture('selected')) as object), ...changes })
}

/** Run 1 of the loop: the agent pushed a change whose tests fail; the gate job finds CI red. */
async function redFirstRun(fake: FakeGitHub, log = JEST_LOG) {
  const push = agentPush(
    fake,
    { 'src/ranges.js': 'module.exports = { broken: true }\n' },
    'perf: cache parsed ranges'
  )
  planChecks(fake, failingCheck(push.head, 'test', log), passingCheck(push.head, 'lint'))
  const run = await ciGateJob(fake, {
    runId: SCHEDULED_RUN,
    iteration: { metric: 0.86, improved: true, change: 'cache parsed ranges' }
  })
  return { push, run }
}

describe('the gh-aw autoloop loop, two workflow runs in a row', () => {
  it('run 1 red: brief, one dispatch, both SHAs; run 2 (the fixer) green: accepted with the metric', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const { push, run } = await redFirstRun(fake)
      expect(run.errors).toEqual([])
      expect(run.outputs).toMatchObject({
        status: 'failure',
        verdict: 'red',
        sha: push.head,
        attempt: '0',
        'attempts-remaining': '5',
        dispatched: 'true'
      })
      expect(run.outputs.signature).toMatch(/^jest:/)

      // One dispatch of the fixer: program merged with dispatch-inputs, on the default branch.
      expect(fake.state.dispatches).toHaveLength(1)
      const dispatch = fake.state.dispatches[0]!
      expect(dispatch).toMatchObject({
        workflow: WORKFLOW,
        ref: 'main',
        inputs: { program: PROGRAM, ...DISPATCH_INPUTS }
      })

      // The ledger: both SHAs, the red verdict, the dispatch with the fixer's run id.
      const ledger = ledgerOf(fake, PROGRAM)!
      expect(ledger.attempts).toHaveLength(1)
      expect(ledger.attempts[0]).toMatchObject({
        index: 0,
        sha: push.head,
        agentSha: push.agentSha,
        runId: SCHEDULED_RUN,
        state: 'red',
        dispatch: { workflow: WORKFLOW, state: 'sent', runId: dispatch.runId }
      })
      // A failing test is re-run once to tell a flaky one; it failed again: a normal red attempt.
      expect(ledger.attempts[0]?.reruns).toMatchObject([{ why: 'flaky-test', outcome: 'failed' }])

      // The scheduler still selects the program (it is not paused) and the brief says what to do.
      const reading = schedulerReads(fake, PROGRAM)
      expect(reading.skipped).toBe(false)
      const state = stateFileOf(fake, PROGRAM)!
      const brief = ciGateSection(state)
      expect(brief).toContain('This is fix attempt 1 of 5 of the current iteration')
      // Minutes left as of the write: the first gate plus one re-run of the failing test.
      const left = Math.floor((START + 60 * MINUTE - Date.parse(ledger.updatedAt)) / MINUTE)
      expect(left).toBeLessThan(60)
      expect(brief).toContain(`${left} minutes of its 60-minute wall clock were left`)
      expect(brief).toMatch(
        /\[test\]\(http:\/\/127\.0\.0\.1:\d+\/octo-org\/demo\/actions\/runs\/\d+\/job\/\d+\): failure/
      )
      // What the failing test printed, fenced (docs/failure-details.md: "Failure details").
      expect(brief).toMatch(/\*\*Failure details\*\*[\s\S]* \(`test`\)\n\n```\n[\s\S]+```/)
      expect(brief).toContain(`**Signature** (`)
      expect(brief).toContain(push.head.slice(0, 12))
      expect(brief).toContain(push.agentSha.slice(0, 12))
      expect(brief).toContain('**What to do**')
      expect(brief).toContain('Start no new iteration until CI is green')
      expect(commentsOn(fake).filter((c) => c.includes('recorded an iteration'))).toEqual([])

      // Run 2, the dispatched run: its agent reads the brief, commits a fix (and gh-aw its
      // empty commit); CI is green and the gate job records the iteration with the metric.
      fake.advance(10 * MINUTE)
      expect(fake.readFile('memory/autoloop', `${PROGRAM}.md`)).toContain('fix attempt 1 of 5')
      const fix = agentPush(
        fake,
        { 'src/ranges.js': 'module.exports = { fixed: true }\n' },
        'fix: ranges'
      )
      planChecks(fake, passingCheck(fix.head, 'test'), passingCheck(fix.head, 'lint'))
      const second = await ciGateJob(fake, {
        runId: dispatch.runId,
        iteration: { metric: 0.87, improved: true, change: 'cache parsed ranges, fixed' }
      })
      expect(second.errors).toEqual([])
      expect(second.outputs).toMatchObject({
        status: 'success',
        verdict: 'green',
        sha: fix.head,
        attempt: '1',
        dispatched: 'false'
      })
      expect(fake.state.dispatches).toHaveLength(1)

      const after = schedulerReads(fake, PROGRAM)
      expect(after.skipped).toBe(false)
      expect(after.fields).toMatchObject({
        best_metric: '0.87',
        iteration_count: '5',
        recent_statuses: 'accepted, rejected, accepted',
        paused: 'false'
      })
      const text = stateFileOf(fake, PROGRAM)!
      expect(text).toMatch(/### Iteration 5 — .*\[Run\]\(.*\/actions\/runs\/\d+\)/)
      expect(text).toContain('cache parsed ranges, fixed')
      expect(ciGateSection(text)).toContain('CI is green on')
      const iterationComments = commentsOn(fake).filter((c) => c.includes('recorded an iteration'))
      expect(iterationComments).toHaveLength(1)
      expect(iterationComments[0]).toContain('0.87')

      const final = ledgerOf(fake, PROGRAM)!
      expect(final.iteration).toMatchObject({ outcome: 'green' })
      expect(final.attempts.map((a) => [a.index, a.state, a.agentSha])).toEqual([
        [0, 'red', push.agentSha],
        [1, 'green', fix.agentSha]
      ])
    })
  })

  it('keeps the file within state-max-bytes with hundreds of failing tests and a long history', async () => {
    const nearlyFull = stateFileWithHistory(STATE_MAX_BYTES - 400)
    await withFake(ghAwScenario({ stateFile: nearlyFull }), async (fake) => {
      const { run } = await redFirstRun(fake, MANY_FAILURES_LOG)
      expect(run.outputs.status).toBe('failure')
      expect(run.outputs.signature!.split('; ')).toHaveLength(200)
      const summary = JSON.parse(readFileSync(run.outputs['failure-summary-path']!, 'utf8')) as {
        signature: { keys: string[] }
      }
      expect(summary.signature.keys).toHaveLength(200)

      const text = stateFileOf(fake, PROGRAM)!
      expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(STATE_MAX_BYTES)
      // The room came from the oldest history entries, never from the brief's essentials.
      expect(text).toMatch(/Iterations? \d+/)
      expect(text.match(/^### Iteration \d+/gm)!.length).toBeLessThan(
        nearlyFull.match(/^### Iteration \d+/gm)!.length
      )
      const brief = ciGateSection(text)
      expect(brief).toContain('This is fix attempt 1 of 5')
      expect(brief).toMatch(/\*\*Signature\*\* \(200 keys; .*\+198 more \(hash [0-9a-f]{8}\)/)
      // With the file this full, the brief keeps its essentials (the error lines go first).
      expect(brief).toMatch(
        /\[test\]\(http:\/\/127\.0\.0\.1:\d+\/octo-org\/demo\/actions\/runs\/\d+\/job\/\d+\): failure/
      )
      expect(brief).toContain('**What to do**')
      expect(schedulerReads(fake, PROGRAM)).toMatchObject({
        skipped: false,
        fields: { iteration_count: '4', best_metric: '0.81' }
      })
      // The ledger keeps its own bound, with the signature's hash over all 200 keys.
      const ledger = ledgerOf(fake, PROGRAM)!
      // Every key is kept (never a first N), within the ledger's own bound.
      expect(ledger.attempts[0]?.signature).toMatchObject({ keyCount: 200 })
      expect(ledger.attempts[0]?.signature?.keys).toHaveLength(200)
      expect(Buffer.byteLength(JSON.stringify(ledger), 'utf8')).toBeLessThan(524_288)
    })
  })

  it('the fixer that pushes nothing pauses as stuck at once; the paused program is never dispatched again', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const { push, run } = await redFirstRun(fake)
      expect(run.outputs.dispatched).toBe('true')
      const fixerRun = fake.state.dispatches[0]!.runId

      // The fixer's agent gives up without a commit: the branch head is still run 1's.
      fake.advance(15 * MINUTE)
      const runOneRequests = fake.requests.length
      const second = await ciGateJob(fake, {
        runId: fixerRun,
        iteration: { metric: null, improved: false, change: 'could not find the cause' }
      })
      expect(second.errors).toEqual([])
      expect(second.outputs).toMatchObject({
        status: 'paused',
        verdict: 'red',
        sha: push.head,
        attempt: '1',
        dispatched: 'false',
        'pause-reason': `stuck in CI fix loop: ${run.outputs.signature}`
      })
      expect(fake.state.dispatches).toHaveLength(1)
      // Nothing was waited on: the red SHA was judged from the ledger.
      expect(
        fake.requests.slice(runOneRequests).filter((r) => r.route?.endsWith('/check-runs'))
      ).toEqual([])
      const ledger = ledgerOf(fake, PROGRAM)!
      expect(ledger.attempts.map((a) => [a.index, a.sha, a.state, a.noNewCommit ?? false])).toEqual(
        [
          [0, push.head, 'red', false],
          [1, push.head, 'red', true]
        ]
      )
      expect(ledger.iteration?.outcome).toBe('paused')
      const reading = schedulerReads(fake, PROGRAM)
      expect(reading).toMatchObject({ skipped: true, fields: { paused: 'true' } })
      expect(reading.fields.recent_statuses).toBe('accepted, rejected, ci-fix-exhausted')
      const brief = ciGateSection(stateFileOf(fake, PROGRAM)!)
      expect(brief).toContain('⏸️ **Paused by the CI gate:** `stuck in CI fix loop: ')
      expect(brief).toContain('no new commit since attempt 0: the fixer pushed nothing')
      const pause = commentsOn(fake).filter((c) => c.startsWith('<!-- autoloop-ci-gate:pause'))
      expect(pause).toHaveLength(1)
      expect(pause[0]).toContain('**Reason:** `stuck in CI fix loop: ')
      expect(pause[0]).toContain(`**Attempt 1** — \`${push.head.slice(0, 12)}\` — red`)

      // The scheduler lets a dispatched program through even when paused (its own selection
      // file says so): the gate is the brake. Nothing is gated, nothing dispatched.
      fake.advance(30 * MINUTE)
      const requestsBefore = fake.requests.length
      const forced = await ciGateJob(fake, {
        runId: fixerRun + 1000,
        selection: selectionFixture('forced-paused'),
        iteration: { metric: 0.9, improved: true, change: 'tried again' }
      })
      expect(forced.errors).toEqual([])
      expect(forced.outputs).toMatchObject({ status: 'skipped', dispatched: 'false' })
      expect(forced.outputs['pause-reason']).toMatch(/^stuck in CI fix loop: /)
      expect(fake.state.dispatches).toHaveLength(1)
      const later = fake.requests.slice(requestsBefore)
      expect(later.filter(isWriteRequest)).toEqual([])
      expect(later.filter((r) => r.route?.endsWith('/check-runs'))).toEqual([])
    })
  })

  it('a completed program selected by a dispatch is skipped: nothing gated, nothing dispatched', async () => {
    const scenario = ghAwScenario({
      patch: { completed: true, completedReason: 'target metric reached: 0.95 ≥ 0.95' }
    })
    await withFake(scenario, async (fake) => {
      const before = stateFileOf(fake, PROGRAM)
      agentPushWithChecks(fake, { 'src/ranges.js': 'x\n' }, 'one more', (head) => [
        failingCheck(head, 'test', JEST_LOG)
      ])
      const run = await ciGateJob(fake, {
        runId: SCHEDULED_RUN,
        selection: selectionFixture('forced-paused'),
        iteration: { metric: 0.96, improved: true, change: 'one more' }
      })
      expect(run.errors).toEqual([])
      expect(run.outputs).toMatchObject({ status: 'skipped', dispatched: 'false' })
      expect(run.summary).toContain('is completed (target metric reached')
      expect(writeRequests(fake)).toEqual([])
      expect(fake.requests.filter((r) => r.route?.endsWith('/check-runs'))).toEqual([])
      expect(stateFileOf(fake, PROGRAM)).toBe(before)
    })
  })

  it('a re-run of the gate job (same run, next attempt) re-uses the attempt and never dispatches twice', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const { push, run } = await redFirstRun(fake)
      expect(run.outputs.dispatched).toBe('true')
      fake.advance(2 * MINUTE)
      const again = await ciGateJob(fake, {
        runId: SCHEDULED_RUN,
        runAttempt: 2,
        iteration: { metric: 0.86, improved: true, change: 'cache parsed ranges' }
      })
      expect(again.errors).toEqual([])
      expect(again.outputs).toMatchObject({
        status: 'failure',
        sha: push.head,
        attempt: '0',
        'attempts-remaining': '5',
        dispatched: 'false',
        signature: run.outputs.signature
      })
      expect(fake.state.dispatches).toHaveLength(1)
      const ledger = ledgerOf(fake, PROGRAM)!
      expect(ledger.attempts).toHaveLength(1)
      expect(ledger.attempts[0]).toMatchObject({
        runId: SCHEDULED_RUN,
        runAttempt: 2,
        state: 'red',
        dispatch: { state: 'sent', runId: fake.state.dispatches[0]!.runId }
      })
      expect(schedulerReads(fake, PROGRAM).skipped).toBe(false)
      expect(ciGateSection(stateFileOf(fake, PROGRAM)!)).toContain('This is fix attempt 1 of 5')
    })
  })

  it("an overlapping run's memory push reverts <program>.md; reconcile projects the ledger again", async () => {
    await withFake(ghAwScenario(), async (fake) => {
      // A scheduled run's agent starts and reads the program's memory before run 1's gate.
      const overlapping = agentsSnapshot(fake)
      const { push, run } = await redFirstRun(fake)
      expect(run.outputs.status).toBe('failure')
      const fixerRun = fake.state.dispatches[0]!.runId

      // Its push_repo_memory copies its whole snapshot back, with the agent's own edits.
      fake.memoryPush(STATE_BRANCH, {
        [`${PROGRAM}.md`]: agentEdits(overlapping, { targetMetric: '0.97', lesson: 'parse once' })
      })
      expect(ciGateSection(stateFileOf(fake, PROGRAM)!)).not.toContain('fix attempt 1 of 5')
      expect(ledgerOf(fake, PROGRAM)?.attempts[0]?.state).toBe('red')

      // The fixer run's ci_reconcile job, before its agent: the brief comes back.
      const repaired = await reconcileJob(fake, fixerRun)
      expect(repaired.errors).toEqual([])
      expect(repaired.outputs).toMatchObject({
        status: 'reconciled',
        resumed: '[]',
        abandoned: '[]',
        errors: '[]'
      })
      expect(repaired.summary).toContain('projected the ledger into coverage.md again')
      const afterRepair = stateFileOf(fake, PROGRAM)!
      expect(ciGateSection(afterRepair)).toContain('This is fix attempt 1 of 5')
      expect(ciGateSection(afterRepair)).toContain(push.head.slice(0, 12))
      expect(afterRepair).toContain('- parse once')
      expect(schedulerReads(fake, PROGRAM)).toMatchObject({
        skipped: false,
        fields: { target_metric: '0.97', iteration_count: '4' }
      })

      // The fixer pushes nothing: paused as stuck. Another run that read the memory before
      // the pause pushes it back unpaused: the scheduler would run the program again...
      const beforePause = agentsSnapshot(fake)
      fake.advance(20 * MINUTE)
      const stuck = await ciGateJob(fake, {
        runId: fixerRun,
        iteration: { metric: null, improved: false, change: 'no fix found' }
      })
      expect(stuck.outputs.status).toBe('paused')
      const pauseReason = stuck.outputs['pause-reason']
      fake.memoryPush(STATE_BRANCH, {
        [`${PROGRAM}.md`]: agentEdits(beforePause, { targetMetric: '0.98', lesson: 'cache misses' })
      })
      expect(schedulerReads(fake, PROGRAM)).toMatchObject({
        skipped: false,
        fields: { paused: 'false' }
      })

      // ... until reconcile re-applies the pause from the ledger; the agent's rows stay.
      const again = await reconcileJob(fake, fixerRun + 1)
      expect(again.outputs).toMatchObject({ status: 'reconciled', resumed: '[]', errors: '[]' })
      const reading = schedulerReads(fake, PROGRAM)
      expect(reading).toMatchObject({
        skipped: true,
        fields: { paused: 'true', pause_reason: pauseReason, target_metric: '0.98' }
      })
      expect(reading.fields.recent_statuses).toBe('accepted, rejected, ci-fix-exhausted')
      const text = stateFileOf(fake, PROGRAM)!
      expect(text).toContain('- cache misses')
      expect(ciGateSection(text)).toContain('⏸️ **Paused by the CI gate:**')
      // Projecting again is idempotent: a third reconcile finds nothing to repair.
      const third = await reconcileJob(fake, fixerRun + 2)
      expect(third.summary).not.toContain('projected the ledger')
      expect(stateFileOf(fake, PROGRAM)).toBe(text)
    })
  })
})

void BRANCH

describe('the fixer run, recorded before it is started', () => {
  /** The ledger a state commit sent, as the mutation carried it (null: the commit left it alone). */
  function ledgerCommitted(request: FakeGitHub['requests'][number]): string | null {
    const body = request.body as {
      variables?: { input?: { fileChanges?: { additions?: { path: string; contents: string }[] } } }
    }
    const added = body.variables?.input?.fileChanges?.additions?.find(
      (file) => file.path === ledgerPath(PROGRAM)
    )
    return added ? Buffer.from(added.contents, 'base64').toString('utf8') : null
  }

  it('the settlement commits the dispatch as requested before sending it; a crash after that commit never sends it twice', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const { run } = await redFirstRun(fake)
      expect(run.outputs.dispatched).toBe('true')
      const sent = fake.requests.find((r) => r.route?.endsWith('/dispatches'))!
      const before = fake
        .writeRequests()
        .filter((r) => r.seq < sent.seq && r.path === '/graphql')
        .map(ledgerCommitted)
        .filter((text): text is string => text !== null)
        .at(-1)!
      expect(parseLedgerFile(before, ledgerPath(PROGRAM)).attempts[0]?.dispatch).toMatchObject({
        workflow: WORKFLOW,
        state: 'requested'
      })
      // The job crashed right after that commit: its outcome was never written. Re-run it.
      fake.commit(
        STATE_BRANCH,
        { [ledgerPath(PROGRAM)]: before },
        'the ledger as the crash left it'
      )
      const again = await ciGateJob(fake, {
        runId: SCHEDULED_RUN,
        runAttempt: 2,
        iteration: { metric: 0.86, improved: true, change: 'cache parsed ranges' }
      })
      expect(again.errors).toEqual([])
      expect(again.outputs).toMatchObject({ verdict: 'red', dispatched: 'false' })
      expect(fake.state.dispatches).toHaveLength(1)
      expect(ledgerOf(fake, PROGRAM)?.attempts[0]?.dispatch).toMatchObject({ state: 'requested' })
    })
  })
})

describe('reconcile in the gh-aw loop', () => {
  it('a reconcile whose write met a change reads the branch again and decides from it: paused by hand meanwhile, no stuck pause claimed', async () => {
    const scenario = ghAwScenario({
      extra: { dispatchedRuns: { queuedSeconds: 5, runSeconds: 8 * 60, conclusion: 'failure' } }
    })
    await withFake(scenario, async (fake) => {
      await redFirstRun(fake)
      fake.advance(12 * MINUTE)
      // The ledger write of the stuck pause meets a conflict; while reconcile backs off, a
      // maintainer pauses the program by hand.
      fake.addFault({ kind: 'status', status: 409, method: 'PUT', path: 'contents/ci-gate' })
      const conflicted = () => fake.requests.some((r) => r.method === 'PUT' && r.status === 409)
      let pausedByHand = false
      const clock: Clock = {
        now: () => fake.clock.now(),
        async sleep(ms) {
          if (!pausedByHand && conflicted()) {
            pausedByHand = true
            const text = stateFileOf(fake, PROGRAM)!
              .replace(/^\| Paused \| false \|$/m, '| Paused | true |')
              .replace(/^\| Pause Reason \| — \|$/m, '| Pause Reason | paused by hand |')
            fake.commit(STATE_BRANCH, { [`${PROGRAM}.md`]: text }, 'pause by hand')
          }
          await fake.clock.sleep(ms)
        }
      }
      const run = await runInProcess(fake, {
        inputs: { command: 'reconcile', 'state-branch': STATE_BRANCH },
        env: { GITHUB_RUN_ID: '19200000003' },
        clock
      })
      expect(pausedByHand).toBe(true)
      expect(run.errors).toEqual([])
      expect(schedulerReads(fake, PROGRAM).fields).toMatchObject({
        paused: 'true',
        pause_reason: 'paused by hand'
      })
      expect(run.summary).not.toContain('ended without gating a new commit')
      expect(commentsOn(fake).filter((c) => c.startsWith('<!-- autoloop-ci-gate:pause'))).toEqual(
        []
      )
    })
  })

  it('resolves a red attempt whose fixer run ended without gating: stuck, paused', async () => {
    const scenario = ghAwScenario({
      extra: { dispatchedRuns: { queuedSeconds: 5, runSeconds: 8 * 60, conclusion: 'failure' } }
    })
    await withFake(scenario, async (fake) => {
      const { push, run } = await redFirstRun(fake)
      const fixerRun = fake.state.dispatches[0]!.runId

      // While the fixer runs, reconcile leaves the program alone.
      fake.advance(2 * MINUTE)
      const early = await reconcileJob(fake, 19_200_000_001)
      expect(early.errors).toEqual([])
      expect(schedulerReads(fake, PROGRAM).skipped).toBe(false)
      expect(ledgerOf(fake, PROGRAM)!.attempts).toHaveLength(1)

      // The fixer's agent failed and its ci_gate job never gated: the run is over.
      fake.advance(10 * MINUTE)
      const later = await reconcileJob(fake, 19_200_000_002)
      expect(later.errors).toEqual([])
      expect(later.outputs).toMatchObject({ status: 'reconciled', resumed: '[]', errors: '[]' })
      const reason = `stuck in CI fix loop: ${run.outputs.signature}`
      expect(later.summary).toContain(`the fixer run ${fixerRun} ended without gating a new commit`)
      expect(schedulerReads(fake, PROGRAM)).toMatchObject({
        skipped: true,
        fields: { paused: 'true', pause_reason: reason }
      })
      const ledger = ledgerOf(fake, PROGRAM)!
      expect(ledger.iteration?.outcome).toBe('paused')
      expect(ledger.attempts.map((a) => [a.index, a.sha, a.state, a.noNewCommit ?? false])).toEqual(
        [
          [0, push.head, 'red', false],
          [1, push.head, 'red', true]
        ]
      )
      expect(ledger.attempts[1]?.note).toContain(`the fixer run ${fixerRun} ended without gating`)
      expect(ledger.pausedSignatures.map((p) => p.reason)).toEqual([reason])
      const pause = commentsOn(fake).filter((c) => c.startsWith('<!-- autoloop-ci-gate:pause'))
      expect(pause).toHaveLength(1)
      expect(pause[0]).toContain(reason)
      expect(fake.state.dispatches).toHaveLength(1)
    })
  })

  it('reads 300 idle programs with one git fetch for at most 3 rate-limit points; one that needs action is handled', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 300; i += 1) Object.assign(files, idleProgram(`idle-${i}`, i))
    const scenario = ghAwScenario({ extra: { contents: { [STATE_BRANCH]: files } } })
    await withFake(scenario, async (fake) => {
      const idle = await reconcileJob(fake, 19_300_000_001)
      expect(idle.errors).toEqual([])
      expect(idle.outputs).toMatchObject({
        status: 'reconciled',
        resumed: '[]',
        abandoned: '[]',
        errors: '[]'
      })
      expect(idle.summary).toContain('300 programs (read with git at ')
      expect(idle.summary).toContain('300 idle')
      expect(fake.rateLimit.pointsSpent).toBeLessThanOrEqual(3)
      expect(fake.requests.filter((r) => r.route?.includes('/contents/'))).toEqual([])
      const fetches = fake.gitRequests.filter((r) => r.service === 'git-upload-pack')
      expect(fetches.length).toBeGreaterThan(0)
      expect(fetches.every((r) => r.status === 200)).toBe(true)

      // A program paused as stuck whose branch head has turned green since needs action.
      const head = agentPush(
        fake,
        { 'src/ranges.js': 'module.exports = { fixed: true }\n' },
        'fix by hand'
      ).head
      planChecks(fake, {
        ...passingCheck(head, 'test'),
        timeline: [{ at: 0, status: 'completed', conclusion: 'success' }]
      })
      fake.commit(
        STATE_BRANCH,
        programFiles(
          PROGRAM,
          { ...INITIAL_ROWS, paused: true, pauseReason: 'stuck in CI fix loop: jest:a' },
          stuckLedger(PROGRAM)
        ),
        'a paused program'
      )
      const points = fake.rateLimit.pointsSpent
      const requests = fake.requests.length
      const acting = await reconcileJob(fake, 19_300_000_002)
      expect(acting.errors).toEqual([])
      expect(acting.outputs).toMatchObject({ resumed: JSON.stringify([PROGRAM]), errors: '[]' })
      expect(schedulerReads(fake, PROGRAM)).toMatchObject({
        skipped: false,
        fields: { paused: 'false' }
      })
      // What it spent went to that program alone: its branch head and checks, its two files
      // (the memory branch's ref to write them), its issue. No idle program cost a request.
      const spent = fake.requests.slice(requests)
      const concerns = new RegExp(
        `autoloop%2F${PROGRAM}$|/commits/${head}/|memory%2Fautoloop$|/contents/(ci-gate%2F)?${PROGRAM}\\.|/issues/${ISSUE}/`
      )
      expect(spent.filter((r) => !concerns.test(r.path)).map((r) => r.path)).toEqual([])
      expect(spent.filter((r) => r.method === 'PUT').map((r) => r.path)).toEqual([
        `/repos/octo-org/demo/contents/ci-gate%2F${PROGRAM}.json`,
        `/repos/octo-org/demo/contents/${PROGRAM}.md`
      ])
      expect(fake.rateLimit.pointsSpent - points).toBe(spent.filter((r) => r.charged).length)
    })
  })
})

describe('what the gate job is handed, and what it says when nothing reports', () => {
  const nothingWritten = (fake: FakeGitHub, before: string) => {
    expect(writeRequests(fake)).toEqual([])
    expect(stateFileOf(fake, PROGRAM)).toBe(before)
    expect(ledgerOf(fake, PROGRAM)).toBeUndefined()
    expect(fake.state.dispatches).toEqual([])
    expect(commentsOn(fake)).toEqual([])
  }

  it.each([
    [
      'a metric as text',
      '{"metric": "0.87", "improved": true, "change": "cache"}',
      /field `metric`/
    ],
    [
      'improved without a metric',
      '{"metric": null, "improved": true, "change": "cache"}',
      /field `metric` must be a number when `improved` is true/
    ],
    [
      'an unknown field',
      '{"metric": 0.87, "improved": true, "change": "cache", "score": 1}',
      /unknown field `score`/
    ],
    ['an empty change', '{"metric": 0.87, "improved": false, "change": "  "}', /field `change`/],
    ['not JSON', '{"metric": 0.87,', /is not JSON/]
  ])(
    'a malformed iteration file (%s) is an error naming the file and the field; nothing is written',
    async (_what, text, problem) => {
      await withFake(ghAwScenario(), async (fake) => {
        const before = stateFileOf(fake, PROGRAM)!
        agentPushWithChecks(fake, { 'src/ranges.js': 'x\n' }, 'change', (head) => [
          passingCheck(head, 'test')
        ])
        const run = await ciGateJob(fake, { runId: SCHEDULED_RUN, iteration: text })
        expect(run.exitCode).toBe(1)
        const message = run.errors.join('\n')
        expect(message).toContain(`The iteration file ${run.iterationPath}`)
        expect(message).toMatch(problem)
        nothingWritten(fake, before)
      })
    }
  )

  it('a missing iteration file for a new commit is an error naming the file; nothing is written', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const before = stateFileOf(fake, PROGRAM)!
      const push = agentPushWithChecks(fake, { 'src/ranges.js': 'x\n' }, 'change', (head) => [
        passingCheck(head, 'test')
      ])
      const run = await ciGateJob(fake, { runId: SCHEDULED_RUN, iteration: null })
      expect(run.exitCode).toBe(1)
      expect(run.errors.join('\n')).toContain(
        `The iteration file ${run.iterationPath} is missing, but ${push.head.slice(0, 12)} on ${BRANCH} is a new commit to gate`
      )
      nothingWritten(fake, before)
    })
  })

  it('a malformed selection file is an error naming the file and the field; a missing one gates nothing', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const before = stateFileOf(fake, PROGRAM)!
      agentPushWithChecks(fake, { 'src/ranges.js': 'x\n' }, 'change', (head) => [
        passingCheck(head, 'test')
      ])
      const iteration = { metric: 0.86, improved: true, change: 'cache' }
      const bad = await ciGateJob(fake, {
        runId: SCHEDULED_RUN,
        selection: selectionWith({ selected: '../coverage' }),
        iteration
      })
      expect(bad.exitCode).toBe(1)
      expect(bad.errors.join('\n')).toContain(
        `The selection file ${bad.selectionPath} is not valid: field \`selected\``
      )
      nothingWritten(fake, before)

      const wrongBranch = await ciGateJob(fake, {
        runId: SCHEDULED_RUN,
        selection: selectionWith({ head_branch: 'autoloop/other' }),
        iteration
      })
      expect(wrongBranch.exitCode).toBe(1)
      expect(wrongBranch.errors.join('\n')).toContain('field `head_branch`')
      nothingWritten(fake, before)

      // No selection at all: the agent job failed before handing it over (the gate job runs
      // `if: always()`); nothing to gate, and the step does not fail the workflow run.
      const none = await ciGateJob(fake, { runId: SCHEDULED_RUN, selection: null, iteration })
      expect(none.exitCode).toBe(0)
      expect(none.outputs.status).toBe('skipped')
      expect(none.summary).toContain(`No selection file at ${none.selectionPath}`)
      nothingWritten(fake, before)
    })
  })

  it('no checks on the head: blocked, naming GITHUB_TOKEN, the CI-trigger token and approvals, in the summary and the brief', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      // No CI-trigger token: safe_outputs pushed with GITHUB_TOKEN alone, so no CI started.
      const agentSha = fake.commit(BRANCH, { 'src/ranges.js': 'x\n' }, 'perf: cache parsed ranges')
      const run = await ciGateJob(fake, {
        runId: SCHEDULED_RUN,
        iteration: { metric: 0.86, improved: true, change: 'cache' }
      })
      expect(run.errors).toEqual([])
      expect(run.outputs).toMatchObject({
        status: 'paused',
        verdict: 'no-checks',
        sha: agentSha,
        dispatched: 'false',
        'pause-reason': `ci-blocked: no CI ran on ${agentSha.slice(0, 12)} within 180 s`
      })
      const causes = [
        'GITHUB_TOKEN',
        'GH_AW_CI_TRIGGER_TOKEN',
        'github-token-for-extra-empty-commit',
        'exactly one new commit',
        'counts every commit of the branch since its base',
        '30 of the last 60 commits',
        'waiting for approval'
      ]
      const json = readFileSync(run.outputs['failure-summary-path']!, 'utf8')
      const brief = ciGateSection(stateFileOf(fake, PROGRAM)!)
      for (const cause of causes) {
        expect(run.outputs['failure-summary']).toContain(cause)
        expect(json).toContain(cause)
        expect(brief).toContain(cause)
        expect(run.summary).toContain(cause)
      }
      expect(fake.state.dispatches).toEqual([])
      const ledger = ledgerOf(fake, PROGRAM)!
      expect(ledger.attempts.map((a) => [a.index, a.state])).toEqual([[0, 'blocked']])
      expect(schedulerReads(fake, PROGRAM).fields.recent_statuses).toBe('accepted, rejected')
    })
  })

  it('green, but the agent says its evaluation failed: recorded as error, never accepted', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const push = agentPush(fake, { 'src/ranges.js': 'x\n' }, 'perf: cache parsed ranges')
      planChecks(fake, passingCheck(push.head, 'test'), passingCheck(push.head, 'lint'))
      const run = await ciGateJob(fake, {
        runId: SCHEDULED_RUN,
        iteration: {
          metric: null,
          improved: false,
          change: 'cache parsed ranges',
          error: 'the benchmark crashed: out of memory'
        }
      })
      expect(run.errors).toEqual([])
      expect(run.outputs).toMatchObject({ status: 'success', verdict: 'green', sha: push.head })
      const reading = schedulerReads(fake, PROGRAM)
      expect(reading.fields).toMatchObject({
        recent_statuses: 'accepted, rejected, error',
        consecutive_errors: '1',
        best_metric: '0.81',
        iteration_count: '5'
      })
      expect(stateFileOf(fake, PROGRAM)).toContain('the benchmark crashed: out of memory')
    })
  })

  it('migrates a state file whose CI Gate section holds the previous fenced ledger, and goes on counting', async () => {
    const v1 = readFileSync(
      resolve(import.meta.dirname, '../../__fixtures__/state/coverage-v1.md'),
      'utf8'
    )
    const scenario = ghAwScenario({
      stateFile: v1,
      extra: { startTime: '2026-03-04T07:35:00Z', issues: [] }
    })
    await withFake(scenario, async (fake) => {
      const fix = agentPushWithChecks(
        fake,
        { 'src/stats/eval.ts': 'export {}\n' },
        'fix: fromArrays',
        (head) => [
          passingCheck(head, 'build / typecheck (20.x)'),
          passingCheck(head, 'test (20.x)')
        ]
      )
      const run = await ciGateJob(fake, {
        runId: 13_512_399_999,
        iteration: { metric: 0.8802, improved: true, change: 'fromArrays on Stats' }
      })
      expect(run.errors).toEqual([])
      // Attempts 0 and 1 came from the old block: this commit is fix attempt 2.
      expect(run.outputs).toMatchObject({ status: 'success', verdict: 'green', attempt: '2' })
      const ledger = ledgerOf(fake, PROGRAM)!
      expect(ledger.version).toBe(2)
      expect(ledger.iteration?.id).toBe('2026-03-04T07:00:00.000Z/3f9c2ab11111')
      expect(ledger.attempts.map((a) => [a.index, a.sha.slice(0, 7), a.state])).toEqual([
        [0, '3f9c2ab', 'red'],
        [1, '4a0d3be', 'red'],
        [2, fix.head.slice(0, 7), 'green']
      ])
      const text = stateFileOf(fake, PROGRAM)!
      expect(ciGateSection(text)).not.toContain('```json')
      expect(ciGateSection(text)).toContain(
        '<!-- autoloop-ci-gate:ledger ci-gate/coverage.json revision '
      )
      expect(schedulerReads(fake, PROGRAM)).toMatchObject({
        skipped: false,
        fields: { iteration_count: '18', best_metric: '0.8802', steering_issue: '#198' }
      })
      expect(schedulerReads(fake, PROGRAM).fields.recent_statuses).toMatch(/, accepted, accepted$/)
      // Everything outside the rows and the section the action owns is kept byte for byte.
      for (const heading of [
        '## 🎯 Current Priorities',
        '## 📚 Lessons Learned',
        '## 🚧 Foreclosed Avenues',
        '## 🔭 Future Directions'
      ]) {
        const section = (file: string) =>
          file.slice(file.indexOf(heading), file.indexOf('\n## ', file.indexOf(heading)))
        expect(section(text)).toBe(section(v1))
      }
      expect(text).toContain(v1.slice(v1.indexOf('### Iteration 17')))
      expect(text).toMatch(/### Iteration 18 — 2026-03-04 07:\d\d UTC/)
    })
  })
})
