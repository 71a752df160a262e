/**
 * The gate where autoloop runs it (issue 9): the `ci_gate` job of the gh-aw autoloop workflow,
 * one fix attempt per workflow run, in-process against the fake GitHub API. Each test plays
 * workflow runs in a row as gh-aw runs them: the agent's commit and gh-aw's empty CI-trigger
 * commit pushed before the job, the hand-over files, the state on `memory/autoloop`, the fixer
 * run started with `workflow_dispatch`, other runs' memory pushes, and `reconcile`.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import type { FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { withFake } from '../helpers/fake-run.js'
import {
  BRANCH,
  DISPATCH_INPUTS,
  MANY_FAILURES_LOG,
  MINUTE,
  PROGRAM,
  START,
  WORKFLOW,
  agentPush,
  ciGateJob,
  ciGateSection,
  corpusLog,
  failingCheck,
  ghAwScenario,
  passingCheck,
  planChecks,
  stateFileWithHistory
} from '../helpers/gh-aw.js'
import {
  STATE_MAX_BYTES,
  commentsOn,
  ledgerOf,
  schedulerReads,
  stateFileOf
} from '../commands/lifecycle-helpers.js'

const SCHEDULED_RUN = 19_100_000_001
const JEST_LOG = corpusLog('jest/assertion/job-log.log')

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
      expect(run.log.join('\n')).toContain(`Program ${PROGRAM} (from the scheduler's selection`)
      expect(run.log.join('\n')).toContain("gh-aw's empty CI-trigger commit")

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
      expect(brief).toContain('**First error lines**')
      expect(brief).toMatch(/```[\s\S]*test: [\s\S]*```/)
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
      expect(final.iteration).toMatchObject({ outcome: 'recorded' })
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
      expect(ledger.attempts[0]?.signature).toMatchObject({ keyCount: 200, cut: true })
      expect(Buffer.byteLength(JSON.stringify(ledger), 'utf8')).toBeLessThan(65_536)
    })
  })
})

void BRANCH
