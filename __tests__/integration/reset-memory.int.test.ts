/**
 * A reset unpauses the program but does not forget what stuck it (issue 13), in-process
 * against the fake GitHub API: the failure the loop paused on, seen again after a reset,
 * pauses at once; another failure gets a fresh budget; `forget-failures: true` forgets.
 */
import { describe, expect, it } from '@jest/globals'
import type { FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { withFake } from '../helpers/fake-run.js'
import {
  MINUTE,
  PROGRAM,
  agentPushWithChecks,
  ciGateJob,
  ciGateSection,
  corpusLog,
  failingCheck,
  ghAwScenario
} from '../helpers/gh-aw.js'
import { runInProcess } from '../helpers/in-process.js'
import {
  STATE_BRANCH,
  commentsOn,
  ledgerOf,
  schedulerReads,
  stateFileOf
} from '../app/commands/lifecycle-helpers.js'

const JEST_LOG = corpusLog('jest/assertion/job-log.log')
const JEST_KEY = 'jest:__tests__/cart.test.js>cart > total > adds the prices of two items'
const TSC_LOG = corpusLog('tsc/missing-property/job-log.log')
const TSC_KEY = 'tsc:TS2339:fromArrays:src/report.ts'
const STUCK = `stuck in CI fix loop: ${JEST_KEY}`
const MAINTAINER = 'octocat'

let runs = 19_600_000_000
let pushes = 0

/** The agent pushes a change whose CI fails with `log`; the next workflow run's gate job gates it. */
async function redIteration(fake: FakeGitHub, log: typeof JEST_LOG) {
  pushes += 1
  const push = agentPushWithChecks(
    fake,
    { 'src/cart.js': `// attempt ${pushes}\n` },
    `change ${pushes}`,
    (head) => [failingCheck(head, 'test', log)]
  )
  runs += 1
  const run = await ciGateJob(fake, {
    runId: runs,
    iteration: { metric: 0.86, improved: true, change: `change ${pushes}` },
    // The failing test is not re-run here: whether it is flaky is another test's business.
    inputs: { 'rerun-failed': '0' }
  })
  expect(run.errors).toEqual([])
  fake.advance(5 * MINUTE)
  return { push, run }
}

/** Two red attempts with the same failure: the loop pauses as stuck. */
async function stuckOnTheSameFailure(fake: FakeGitHub): Promise<void> {
  expect((await redIteration(fake, JEST_LOG)).run.outputs.status).toBe('failure')
  const second = await redIteration(fake, JEST_LOG)
  expect(second.run.outputs).toMatchObject({ status: 'paused', 'pause-reason': STUCK })
}

function reset(fake: FakeGitHub, inputs: Record<string, string> = {}) {
  runs += 1
  return runInProcess(fake, {
    inputs: {
      command: 'reset',
      program: PROGRAM,
      reason: 'unpausing to see if it recovers',
      'state-branch': STATE_BRANCH,
      ...inputs
    },
    env: { GITHUB_RUN_ID: String(runs), GITHUB_ACTOR: MAINTAINER }
  })
}

const pauseComments = (fake: FakeGitHub) =>
  commentsOn(fake).filter((c) => c.startsWith('<!-- autoloop-ci-gate:pause'))

describe('a reset does not forget what stuck the loop', () => {
  it('stuck, reset, the same failure: paused at once, no fix attempt spent, saying it stuck before', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      await stuckOnTheSameFailure(fake)
      const dispatchesBefore = fake.state.dispatches.length

      const unpaused = await reset(fake)
      expect(unpaused.outputs.status).toBe('reset')
      const remembered = ledgerOf(fake, PROGRAM)!.pausedSignatures
      const resetAt = remembered[0]!.resetAt as string
      expect(remembered).toMatchObject([
        { short: JEST_KEY, reason: STUCK, resetBy: MAINTAINER, resetAt }
      ])
      expect(Date.parse(resetAt)).toBeGreaterThanOrEqual(Date.parse(remembered[0]!.pausedAt))
      expect(schedulerReads(fake, PROGRAM)).toMatchObject({
        skipped: false,
        fields: { paused: 'false', pause_reason: null }
      })
      // The reset comment says what is remembered and how to forget it.
      const resetComment = commentsOn(fake).find((c) => c.startsWith('<!-- autoloop-ci-gate:reset'))
      expect(resetComment).toContain(`**Reset by:** [${MAINTAINER}](`)
      expect(resetComment).toContain('**Still remembered:**')
      expect(resetComment).toContain(JEST_KEY)
      expect(resetComment).toContain('`forget-failures: true`')
      expect(ciGateSection(stateFileOf(fake, PROGRAM)!)).toContain(
        'These failures stuck the loop before the reset'
      )

      // The next iteration fails the same way: paused on its first gate, no budget spent.
      const again = await redIteration(fake, JEST_LOG)
      expect(again.run.outputs).toMatchObject({
        status: 'paused',
        verdict: 'red',
        attempt: '0',
        'pause-reason': STUCK,
        dispatched: 'false'
      })
      expect(fake.state.dispatches).toHaveLength(dispatchesBefore)
      const ledger = ledgerOf(fake, PROGRAM)!
      expect(ledger.attempts.map((a) => [a.index, a.sha, a.state])).toEqual([
        [0, again.push.head, 'red']
      ])
      expect(ledger.iteration?.outcome).toBe('paused')
      expect(schedulerReads(fake, PROGRAM)).toMatchObject({
        skipped: true,
        fields: { paused: 'true', pause_reason: STUCK }
      })

      // The pause comment and the brief: it stuck before the reset, when, who reset it, and
      // what the fixer must do instead of the same approach.
      const pauses = pauseComments(fake)
      expect(pauses).toHaveLength(2)
      const latest = pauses[1] as string
      expect(latest).toContain('**This failure stuck the loop before:**')
      expect(latest).toContain(
        `It was reset at ${resetAt} by ${MAINTAINER} without fixing the cause.`
      )
      expect(latest).toContain('should not resume the same approach but state what blocks it')
      const brief = ciGateSection(stateFileOf(fake, PROGRAM)!)
      expect(brief).toContain('This failure stuck the loop before')
      expect(brief).toContain(
        `the program was reset at ${resetAt} by ${MAINTAINER} without fixing it`
      )
      expect(brief).toContain('Do not resume the same approach: state what blocks it')
    })
  })

  it('stuck, reset, another failure: a fresh budget; the remembered one coming back later is stuck at once', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      await stuckOnTheSameFailure(fake)
      expect((await reset(fake)).outputs.status).toBe('reset')

      const other = await redIteration(fake, TSC_LOG)
      expect(other.run.outputs).toMatchObject({
        status: 'failure',
        attempt: '0',
        signature: TSC_KEY,
        'attempts-remaining': '5',
        dispatched: 'true'
      })
      expect(schedulerReads(fake, PROGRAM).skipped).toBe(false)

      // The fixer's commit trades the build error for the failure that stuck the loop before:
      // not an earlier attempt of this iteration, but remembered across the reset.
      const back = await redIteration(fake, JEST_LOG)
      expect(back.run.outputs).toMatchObject({
        status: 'paused',
        attempt: '1',
        'pause-reason': STUCK
      })
      const latest = pauseComments(fake).at(-1) as string
      expect(latest).toContain('**This failure stuck the loop before:**')
      expect(latest).toContain(`by ${MAINTAINER}`)
      expect(ledgerOf(fake, PROGRAM)!.attempts.map((a) => [a.index, a.signature?.short])).toEqual([
        [0, TSC_KEY],
        [1, JEST_KEY]
      ])
    })
  })

  it('forget-failures: true forgets them, and the same failure gets a budget again', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      await stuckOnTheSameFailure(fake)
      const forgetting = await reset(fake, { 'forget-failures': 'true' })
      expect(forgetting.outputs.status).toBe('reset')
      expect(ledgerOf(fake, PROGRAM)!.pausedSignatures).toEqual([])
      const resetComment = commentsOn(fake).find((c) => c.startsWith('<!-- autoloop-ci-gate:reset'))
      expect(resetComment).toContain(
        'The 1 failure(s) the loop had paused on are forgotten (`forget-failures: true`).'
      )
      expect(resetComment).not.toContain('**Still remembered:**')

      const again = await redIteration(fake, JEST_LOG)
      expect(again.run.outputs).toMatchObject({
        status: 'failure',
        attempt: '0',
        signature: JEST_KEY,
        'attempts-remaining': '5',
        dispatched: 'true'
      })
      expect(schedulerReads(fake, PROGRAM).skipped).toBe(false)
    })
  })
})
