import { describe, expect, it } from '@jest/globals'
import {
  isCounted,
  reduceChecks,
  latestPerName,
  pendingByCheckRuns,
  type CheckRunInfo,
  type CommitStatusInfo,
  type ReducePolicy
} from '../../../src/core/checks/reduce.js'

let nextId = 1
function run(
  name: string,
  status: string,
  conclusion: string | null = null,
  extra: Partial<CheckRunInfo> = {}
): CheckRunInfo {
  return {
    id: nextId++,
    name,
    status,
    conclusion,
    url: `https://github.com/o/r/runs/${name}`,
    startedAt: null,
    workflowRunId: undefined,
    jobId: undefined,
    checkSuiteId: undefined,
    appSlug: 'github-actions',
    ...extra
  }
}
const done = (name: string, conclusion: string, extra: Partial<CheckRunInfo> = {}) =>
  run(name, 'completed', conclusion, extra)
function status(context: string, state: string): CommitStatusInfo {
  return { id: nextId++, context, state, description: null, url: null }
}

const GRACE = 180_000
function policy(overrides: Partial<ReducePolicy> = {}): ReducePolicy {
  return {
    requiredChecks: [],
    isIgnored: () => false,
    ownWorkflowRunId: undefined,
    failFast: false,
    allowNoChecks: false,
    graceMs: GRACE,
    ...overrides
  }
}
const AFTER_GRACE = GRACE + 1

describe('the reduction table (docs/decisions.md: "How checks become a verdict")', () => {
  describe('row 1: any counted failing conclusion or failing status is red', () => {
    for (const conclusion of [
      'failure',
      'timed_out',
      'cancelled',
      'action_required',
      'startup_failure',
      'stale'
    ]) {
      it(`check run ${conclusion}`, () => {
        const verdict = reduceChecks(
          { checkRuns: [done('build', 'success'), done('test', conclusion)], statuses: [] },
          policy(),
          AFTER_GRACE
        )
        expect(verdict.kind).toBe('red')
        if (verdict.kind === 'red') expect(verdict.failing.map((c) => c.name)).toEqual(['test'])
      })
    }
    for (const state of ['failure', 'error']) {
      it(`commit status ${state} beside green checks`, () => {
        const verdict = reduceChecks(
          { checkRuns: [done('build', 'success')], statuses: [status('ci/legacy', state)] },
          policy(),
          AFTER_GRACE
        )
        expect(verdict.kind).toBe('red')
      })
    }
    it('waits for the other checks without fail-fast', () => {
      const snapshot = {
        checkRuns: [done('lint', 'failure'), run('test', 'in_progress')],
        statuses: []
      }
      expect(reduceChecks(snapshot, policy(), AFTER_GRACE).kind).toBe('pending')
      expect(reduceChecks(snapshot, policy({ failFast: true }), AFTER_GRACE).kind).toBe('red')
    })
    it('is red before the grace period ends once everything reported has completed', () => {
      expect(
        reduceChecks({ checkRuns: [done('test', 'failure')], statuses: [] }, policy(), 1000).kind
      ).toBe('red')
    })
  })

  describe('row 2: green needs every counted check completed and passing, and one success', () => {
    it('success, neutral and skipped with one success is green', () => {
      const verdict = reduceChecks(
        {
          checkRuns: [done('a', 'success'), done('b', 'neutral'), done('c', 'skipped')],
          statuses: [status('ci/x', 'success')]
        },
        policy(),
        AFTER_GRACE
      )
      expect(verdict.kind).toBe('green')
    })
    it('a passing commit status alone is green', () => {
      expect(
        reduceChecks(
          { checkRuns: [], statuses: [status('ci/x', 'success')] },
          policy(),
          AFTER_GRACE
        ).kind
      ).toBe('green')
    })
    it('a pending status keeps it pending', () => {
      expect(
        reduceChecks(
          { checkRuns: [done('a', 'success')], statuses: [status('ci/x', 'pending')] },
          policy(),
          AFTER_GRACE
        ).kind
      ).toBe('pending')
    })
    it('a running check keeps it pending', () => {
      expect(
        reduceChecks(
          { checkRuns: [done('a', 'success'), run('b', 'queued')], statuses: [] },
          policy(),
          AFTER_GRACE
        ).kind
      ).toBe('pending')
    })
    it('is never green before the grace period ends (late registrations)', () => {
      expect(
        reduceChecks({ checkRuns: [done('a', 'success')], statuses: [] }, policy(), GRACE - 1).kind
      ).toBe('pending')
    })
    it('an unknown conclusion is never green', () => {
      expect(
        reduceChecks(
          { checkRuns: [done('a', 'success'), done('b', 'brand_new_conclusion')], statuses: [] },
          policy(),
          AFTER_GRACE
        ).kind
      ).toBe('pending')
    })
    it('an unknown status value is never green', () => {
      expect(
        reduceChecks(
          { checkRuns: [done('a', 'success'), run('b', 'mystery')], statuses: [] },
          policy(),
          AFTER_GRACE
        ).kind
      ).toBe('pending')
    })
  })

  describe('row 3: nothing reported within the grace period is no-checks', () => {
    it('pending inside the grace period', () => {
      expect(reduceChecks({ checkRuns: [], statuses: [] }, policy(), GRACE - 1).kind).toBe(
        'pending'
      )
    })
    it('no-checks after it', () => {
      const verdict = reduceChecks({ checkRuns: [], statuses: [] }, policy(), AFTER_GRACE)
      expect(verdict.kind).toBe('no-checks')
    })
    it('green only with allow-no-checks', () => {
      expect(
        reduceChecks({ checkRuns: [], statuses: [] }, policy({ allowNoChecks: true }), AFTER_GRACE)
          .kind
      ).toBe('green')
    })
  })

  describe('row 4: every check skipped or neutral is no-checks', () => {
    it('skipped and neutral only', () => {
      const verdict = reduceChecks(
        { checkRuns: [done('a', 'skipped'), done('b', 'neutral')], statuses: [] },
        policy(),
        AFTER_GRACE
      )
      expect(verdict.kind).toBe('no-checks')
    })
  })

  describe('row 5: a required check never reported is red with its name', () => {
    it('pending inside the grace period, red after', () => {
      const snapshot = { checkRuns: [done('build', 'success')], statuses: [] }
      const required = policy({ requiredChecks: ['build', 'e2e'] })
      expect(reduceChecks(snapshot, required, GRACE - 1).kind).toBe('pending')
      const verdict = reduceChecks(snapshot, required, AFTER_GRACE)
      expect(verdict.kind).toBe('red')
      if (verdict.kind === 'red')
        expect(verdict.reasons).toEqual(['required check never reported: e2e'])
    })
    it('a required status context counts as reported', () => {
      const verdict = reduceChecks(
        { checkRuns: [done('build', 'success')], statuses: [status('e2e', 'success')] },
        policy({ requiredChecks: ['e2e'] }),
        AFTER_GRACE
      )
      expect(verdict.kind).toBe('green')
    })
    it('waits while other checks still run', () => {
      const verdict = reduceChecks(
        { checkRuns: [run('build', 'in_progress')], statuses: [] },
        policy({ requiredChecks: ['e2e'] }),
        AFTER_GRACE
      )
      expect(verdict.kind).toBe('pending')
    })
  })
})

describe('which checks count', () => {
  it.each([
    [undefined, true],
    ['own-run', false],
    ['ignored', false],
    ['superseded', false]
  ] as const)('a check excluded as %s counts: %s', (excluded, counted) => {
    expect(isCounted(excluded === undefined ? {} : { excluded })).toBe(counted)
  })
  it('the latest run per name wins: a re-run that passed after a failure is green', () => {
    const failed = done('test', 'failure')
    const rerun = done('test', 'success')
    expect(
      reduceChecks({ checkRuns: [rerun, failed], statuses: [] }, policy(), AFTER_GRACE).kind
    ).toBe('green')
    expect(latestPerName([failed, rerun]).superseded).toEqual([failed])
  })
  it('a re-run in progress after a failure is pending, not red', () => {
    const failed = done('test', 'failure')
    const rerun = run('test', 'queued')
    expect(
      reduceChecks({ checkRuns: [failed, rerun], statuses: [] }, policy(), AFTER_GRACE).kind
    ).toBe('pending')
  })
  it("the gate's own workflow run is never waited on (by run id or its jobs' check suite)", () => {
    // The suite comes from the listing: the gate's own job names run 42 and suite 7.
    const own = run('gate', 'in_progress', null, { workflowRunId: 42, checkSuiteId: 7 })
    const ownSuite = run('other-job', 'in_progress', null, { checkSuiteId: 7 })
    const otherSuite = run('lint', 'completed', 'success', { checkSuiteId: 8 })
    const snapshot = {
      checkRuns: [done('test', 'success'), own, ownSuite, otherSuite],
      statuses: []
    }
    expect(reduceChecks(snapshot, policy(), AFTER_GRACE).kind).toBe('pending')
    const verdict = reduceChecks(snapshot, policy({ ownWorkflowRunId: 42 }), AFTER_GRACE)
    expect(verdict.kind).toBe('green')
    expect(
      verdict.checks
        .filter((c) => c.excluded === 'own-run')
        .map((c) => c.name)
        .sort()
    ).toEqual(['gate', 'other-job'])
  })
  it('only the own run excluded leaves no-checks, not green', () => {
    const own = run('gate', 'in_progress', null, { workflowRunId: 42 })
    expect(
      reduceChecks(
        { checkRuns: [own], statuses: [] },
        policy({ ownWorkflowRunId: 42 }),
        AFTER_GRACE
      ).kind
    ).toBe('no-checks')
  })
  it('ignore-checks globs exclude checks and statuses', () => {
    const snapshot = {
      checkRuns: [done('test', 'success'), done('codecov/patch', 'failure')],
      statuses: [status('codecov/project', 'failure')]
    }
    expect(reduceChecks(snapshot, policy(), AFTER_GRACE).kind).toBe('red')
    expect(
      reduceChecks(snapshot, policy({ isIgnored: (n) => n.startsWith('codecov/') }), AFTER_GRACE)
        .kind
    ).toBe('green')
  })
  it('the latest status per context wins', () => {
    const verdict = reduceChecks(
      { checkRuns: [], statuses: [status('ci', 'failure'), status('ci', 'success')] },
      policy(),
      AFTER_GRACE
    )
    expect(verdict.kind).toBe('green')
  })
})

describe('pendingByCheckRuns: when the statuses cannot change "still running"', () => {
  it('a counted check run still running, no fail-fast: pending whatever a status says', () => {
    const runs = [run('test', 'in_progress'), done('lint', 'success')]
    expect(pendingByCheckRuns(runs, policy(), AFTER_GRACE)).toBe(true)
    // The claim holds: with any status added, the full reduction is still pending.
    for (const state of ['success', 'failure', 'error', 'pending'])
      expect(
        reduceChecks({ checkRuns: runs, statuses: [status('ci/x', state)] }, policy(), AFTER_GRACE)
          .kind
      ).toBe('pending')
  })

  it('not when a status could end the wait, or only ignored or own-run checks run', () => {
    const running = [run('test', 'in_progress'), done('lint', 'failure')]
    // fail-fast: a failing status makes the verdict red at once.
    expect(pendingByCheckRuns(running, policy({ failFast: true }), AFTER_GRACE)).toBe(false)
    // Everything completed: the statuses decide.
    expect(pendingByCheckRuns([done('lint', 'success')], policy(), AFTER_GRACE)).toBe(false)
    // Nothing reported yet: a status may be all there is.
    expect(pendingByCheckRuns([], policy(), 0)).toBe(false)
    // The running check is not counted.
    const ignored = [run('deploy', 'in_progress'), done('lint', 'success')]
    expect(
      pendingByCheckRuns(ignored, policy({ isIgnored: (name) => name === 'deploy' }), AFTER_GRACE)
    ).toBe(false)
    const own = [run('ci_gate', 'in_progress', null, { workflowRunId: 7 }), done('lint', 'success')]
    expect(pendingByCheckRuns(own, policy({ ownWorkflowRunId: 7 }), AFTER_GRACE)).toBe(false)
  })
})
