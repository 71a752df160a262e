/** The chaos oracle itself: SPEC §3 on hand-made plans, so a wrong oracle cannot pass runs. */
import { describe, expect, it } from '@jest/globals'
import type { CheckRunPlan, StatusPlan } from '../../__fixtures__/fake-github/index.js'
import { trueVerdict, type OraclePolicy } from '../../scripts/chaos/oracle.js'

const T0 = Date.UTC(2026, 2, 1)
const policy: OraclePolicy = { requiredChecks: [], failFast: false, ownRunId: 9000 }
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

describe('trueVerdict (SPEC §3)', () => {
  it('pending while a counted check runs; green once all pass with one success', () => {
    const plans = [run('a', 100), run('b', 200, 'skipped')]
    expect(at(plans, 150)).toBe('pending')
    expect(at(plans, 200)).toBe('green')
  })

  it('every failing conclusion is red, once nothing runs (or at once with fail-fast)', () => {
    for (const c of [
      'failure',
      'timed_out',
      'cancelled',
      'action_required',
      'startup_failure',
      'stale'
    ]) {
      const plans = [run('a', 100, c), run('b', 300)]
      expect(at(plans, 150)).toBe('pending')
      expect(at(plans, 150, [], { ...policy, failFast: true })).toBe('red')
      expect(at(plans, 300)).toBe('red')
    }
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
