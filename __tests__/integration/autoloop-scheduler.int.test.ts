/**
 * autoloop's own scheduler (helpers/autoloop-scheduler.ts) on the state files the gate
 * writes in the gh-aw loop: which program it selects, that a program the gate paused, a
 * completed one and a plateaued one are skipped, and that a dispatched one (AUTOLOOP_PROGRAM)
 * is let through even when paused. The same files are read with helpers/scheduler-rule.ts,
 * so a difference between the two shows here.
 */
import { describe, expect, it } from '@jest/globals'
import type { FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { withFake } from '../helpers/fake-run.js'
import {
  PROGRAM,
  agentPush,
  ciGateJob,
  corpusLog,
  failingCheck,
  ghAwScenario,
  passingCheck,
  planChecks
} from '../helpers/gh-aw.js'
import { runScheduler, schedulerMissing } from '../helpers/autoloop-scheduler.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'
import { stateFileOf, stateText } from '../app/commands/lifecycle-helpers.js'
import type { MachineStatePatch } from '../../src/core/schema.js'

const missing = schedulerMissing()
if (missing) console.log(missing)
const describeScheduler = missing ? describe.skip : describe

const JEST_LOG = corpusLog('jest/assertion/job-log.log')
const RUN = 19_100_000_001

/** Run 1 red (the gate dispatched the fixer), run 2 (the fixer) pushes nothing: paused. */
async function pausedAsStuck(fake: FakeGitHub): Promise<string> {
  const push = agentPush(fake, { 'src/ranges.js': 'broken\n' }, 'perf: cache parsed ranges')
  planChecks(fake, failingCheck(push.head, 'test', JEST_LOG))
  const red = await ciGateJob(fake, {
    runId: RUN,
    iteration: { metric: 0.86, improved: true, change: 'cache' }
  })
  expect(red.outputs.verdict).toBe('red')
  fake.advance(15 * 60_000)
  const stuck = await ciGateJob(fake, {
    runId: fake.state.dispatches[0]!.runId,
    iteration: { metric: null, improved: false, change: 'no fix found' }
  })
  expect(stuck.outputs.status).toBe('paused')
  return stateFileOf(fake, PROGRAM)!
}

describeScheduler("autoloop's scheduler on the files the gate wrote", () => {
  it('selects a program the gate left running (red, fix attempt pending) over none', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const push = agentPush(fake, { 'src/ranges.js': 'broken\n' }, 'perf')
      planChecks(fake, failingCheck(push.head, 'test', JEST_LOG), passingCheck(push.head, 'lint'))
      const run = await ciGateJob(fake, {
        runId: RUN,
        iteration: { metric: 0.86, improved: true, change: 'cache' }
      })
      expect(run.outputs.verdict).toBe('red')
      const text = stateFileOf(fake, PROGRAM)!
      const scheduler = await runScheduler({ states: { [PROGRAM]: text } })
      expect(scheduler.exitCode).toBe(0)
      expect(scheduler.selection).toMatchObject({
        selected: PROGRAM,
        skipped: [],
        head_branch: `autoloop/${PROGRAM}`
      })
      expect(readLikeScheduler(text).skipped).toBe(false)
    })
  })

  it('skips the program the gate paused, names the gate’s reason, and selects another; a dispatch of it is let through', async () => {
    await withFake(ghAwScenario(), async (fake) => {
      const text = await pausedAsStuck(fake)
      const reason = readLikeScheduler(text).fields.pause_reason
      expect(reason).toMatch(/^stuck in CI fix loop: /)

      const scheduled = await runScheduler({
        states: { [PROGRAM]: text, other: stateText('other') }
      })
      expect(scheduled.exitCode).toBe(0)
      expect(scheduled.selection?.selected).toBe('other')
      expect(scheduled.selection?.skipped).toEqual([{ name: PROGRAM, reason: `paused: ${reason}` }])

      const alone = await runScheduler({ states: { [PROGRAM]: text } })
      expect(alone.exitCode).toBe(1)
      expect(alone.selection?.selected).toBeNull()

      // A dispatch with program=<name> bypasses the pause: the gate must be the brake.
      const forced = await runScheduler({ states: { [PROGRAM]: text }, forced: PROGRAM })
      expect(forced.exitCode).toBe(0)
      expect(forced.selection?.selected).toBe(PROGRAM)
    })
  })

  const skips: Array<[string, MachineStatePatch, string]> = [
    [
      'completed',
      { completed: true, completedReason: 'target metric reached: 0.95 ≥ 0.95' },
      'completed: target metric reached'
    ],
    [
      'plateaued (five rejections in a row)',
      {
        recentStatuses: ['accepted', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected']
      },
      'plateau: 5 consecutive rejections'
    ]
  ]
  it.each(skips)(
    'skips a %s program, as the rule the tests use says',
    async (_what, patch, reason) => {
      const text = stateText(PROGRAM, patch)
      const scheduler = await runScheduler({
        states: { [PROGRAM]: text, other: stateText('other') }
      })
      expect(scheduler.selection?.selected).toBe('other')
      expect(scheduler.selection?.skipped).toEqual([{ name: PROGRAM, reason }])
      expect(readLikeScheduler(text).skipped).toBe(true)
    }
  )
})
