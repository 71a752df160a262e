/**
 * The chaos oracle itself, on hand-made plans (docs/decisions.md: "How checks become a verdict", "Whose
 * failure it is"), so a wrong oracle cannot pass runs.
 */
import { describe, expect, it } from '@jest/globals'
import type { CheckRunPlan, StatusPlan } from '../../__fixtures__/fake-github/index.js'
import {
  countedChecks,
  mayBeGreenExceptPreExisting,
  rerunTruth,
  trueVerdict,
  type OraclePolicy
} from '../../scripts/chaos/oracle.js'

const T0 = Date.UTC(2026, 2, 1)
const policy: OraclePolicy = {
  requiredChecks: [],
  failFast: false,
  ownRunId: 9000,
  preExisting: 'allow',
  baseTwins: []
}
const run = (name: string, end: number, conclusion?: string, extra: Partial<CheckRunPlan> = {}) =>
  ({
    name,
    timeline: [
      { at: 0, status: 'queued' },
      { at: end, status: 'completed', ...(conclusion ? { conclusion } : {}) }
    ],
    ...extra
  }) as CheckRunPlan
const status = (
  context: string,
  end: number,
  state: 'success' | 'failure' | 'error'
): StatusPlan => ({
  context,
  timeline: [
    { at: 0, state: 'pending' },
    { at: end, state }
  ]
})
const at = (
  checkRuns: CheckRunPlan[],
  seconds: number,
  statuses: StatusPlan[] = [],
  p: OraclePolicy = policy
) => trueVerdict({ checkRuns, statuses }, T0, T0 + seconds * 1000, T0 + seconds * 1000, p)

describe('trueVerdict', () => {
  it('pending while a counted check runs; green once all pass with one success', () => {
    const plans = [run('a', 100), run('b', 200, 'skipped')]
    expect(at(plans, 150)).toBe('pending')
    expect(at(plans, 200)).toBe('green')
  })

  it('every failing conclusion is red, once nothing runs (or at once with fail-fast)', () => {
    for (const c of ['failure', 'timed_out', 'cancelled', 'startup_failure', 'stale']) {
      const plans = [run('a', 100, c), run('b', 300)]
      expect(at(plans, 150)).toBe('pending')
      expect(at(plans, 150, [], { ...policy, failFast: true })).toBe('red')
      expect(at(plans, 300)).toBe('red')
    }
  })

  it('a check waiting for approval makes the red blocked (no fix can help)', () => {
    const plans = [run('deploy', 100, 'action_required'), run('b', 300, 'failure')]
    expect(at(plans, 150)).toBe('pending')
    expect(at(plans, 150, [], { ...policy, failFast: true })).toBe('blocked')
    expect(at(plans, 300)).toBe('blocked')
  })

  it('a re-run the fake started counts from its own start: the newest attempt decides', () => {
    const first = run('t', 10, 'failure')
    const rerun: CheckRunPlan = {
      ...run('t', 50),
      runAttempt: 2,
      startsAt: T0 + 100_000
    }
    expect(at([first, rerun], 90)).toBe('red')
    expect(at([first, rerun], 120)).toBe('pending')
    expect(at([first, rerun], 150)).toBe('green')
  })

  it('nothing, or only skipped/neutral, is no-checks', () => {
    expect(at([], 999)).toBe('no-checks')
    expect(at([run('a', 10, 'skipped'), run('b', 10, 'neutral')], 999)).toBe('no-checks')
  })

  it('statuses count: failure and error are red, pending waits, success alone is green', () => {
    expect(at([], 50, [status('s', 100, 'success')])).toBe('pending')
    expect(at([], 100, [status('s', 100, 'success')])).toBe('green')
    expect(at([run('a', 10)], 100, [status('s', 100, 'error')])).toBe('red')
  })

  it('the newest attempt of a re-run decides; the own job is never counted', () => {
    const first = run('t', 10, 'failure')
    const rerun = {
      ...run('t', 100),
      timeline: [
        { at: 50, status: 'queued' as const },
        { at: 100, status: 'completed' as const }
      ]
    }
    expect(at([first, rerun], 20)).toBe('red')
    expect(at([first, rerun], 60)).toBe('pending')
    expect(at([first, rerun], 100)).toBe('green')
    const own = { name: 'gate', runId: 9000, timeline: [{ at: 0, status: 'in_progress' as const }] }
    expect(at([run('a', 10), own], 20)).toBe('green')
  })

  it('a required check that never reports, or does not pass, is red', () => {
    const p = { ...policy, requiredChecks: ['e2e'] }
    expect(at([run('a', 10)], 999, [], p)).toBe('red')
    expect(at([run('a', 10), run('e2e', 10, 'cancelled')], 999, [], p)).toBe('red')
    expect(at([run('a', 10), run('e2e', 10)], 999, [], p)).toBe('green')
  })
})

describe('mayBeGreenExceptPreExisting', () => {
  const counted = (plans: CheckRunPlan[], statuses: StatusPlan[] = []) =>
    countedChecks({ checkRuns: plans, statuses }, T0, T0 + 999_000, T0 + 999_000, 9000)
  const twins: OraclePolicy = { ...policy, baseTwins: ['lint', 'test'] }

  it('only when every failing check fails the same way on the base branch, with allow', () => {
    const plans = [run('lint', 10, 'failure'), run('test', 10, 'failure'), run('build', 10)]
    expect(mayBeGreenExceptPreExisting(counted(plans), twins)).toBe(true)
    expect(mayBeGreenExceptPreExisting(counted(plans), { ...twins, preExisting: 'block' })).toBe(
      false
    )
    expect(mayBeGreenExceptPreExisting(counted(plans), policy)).toBe(false)
  })

  it('never with a failure of its own, a failing status, a missing required check, or none', () => {
    const mine = [run('lint', 10, 'failure'), run('e2e', 10, 'failure')]
    expect(mayBeGreenExceptPreExisting(counted(mine), twins)).toBe(false)
    const status = [run('lint', 10, 'failure')]
    expect(
      mayBeGreenExceptPreExisting(
        counted(status, [{ context: 'ci', timeline: [{ at: 0, state: 'error' }] }]),
        twins
      )
    ).toBe(false)
    expect(
      mayBeGreenExceptPreExisting(counted(status), { ...twins, requiredChecks: ['deploy'] })
    ).toBe(false)
    expect(mayBeGreenExceptPreExisting(counted([run('build', 10)]), twins)).toBe(false)
  })
})

describe('rerunTruth', () => {
  const failed = run('t', 10, 'failure')
  const gateRerun = (conclusion: string, end = 50): CheckRunPlan => ({
    ...run('t', end, conclusion),
    runAttempt: 2,
    startsAt: T0 + 100_000
  })
  const truth = (plans: CheckRunPlan[], seconds: number) =>
    rerunTruth(plans, T0, T0 + seconds * 1000)

  it("the gate's re-run that passed must be reported flaky", () => {
    expect(truth([failed, gateRerun('success')], 200)).toEqual({
      passedOnGateRerun: ['t'],
      notFailingAfterFailure: ['t']
    })
  })

  it('a re-run still running, or failing again, is not flaky', () => {
    expect(truth([failed, gateRerun('success', 500)], 200)).toEqual({
      passedOnGateRerun: [],
      notFailingAfterFailure: []
    })
    expect(truth([failed, gateRerun('failure')], 200)).toEqual({
      passedOnGateRerun: [],
      notFailingAfterFailure: []
    })
  })

  it("a later attempt planned up front (not the gate's) may be called flaky, need not be", () => {
    const planned: CheckRunPlan = { ...run('t', 60, 'skipped'), runAttempt: 2 }
    planned.timeline = [
      { at: 20, status: 'queued' },
      { at: 60, status: 'completed', conclusion: 'skipped' }
    ]
    expect(truth([failed, planned], 100)).toEqual({
      passedOnGateRerun: [],
      notFailingAfterFailure: ['t']
    })
  })
})
