import { describe, expect, it } from '@jest/globals'
import { reduceChecks, type CheckRunInfo } from '../../../src/core/checks/reduce.js'
import { resumePolicy } from '../../../src/app/reconcile.js'
import { commentMarker, renderResumeComment } from '../../../src/render/comments.js'

function run(
  name: string,
  conclusion: string | null,
  status = 'completed',
  id = name.length
): CheckRunInfo {
  return {
    id,
    name,
    status,
    conclusion,
    url: '',
    startedAt: null,
    workflowRunId: 1,
    jobId: 1,
    checkSuiteId: 1,
    appSlug: 'github-actions'
  }
}

describe('resumePolicy: "green on every check" of a paused program’s head', () => {
  const policy = resumePolicy({ requiredChecks: [], ignoreChecks: [] })
  const verdict = (checkRuns: CheckRunInfo[], p = policy) =>
    reduceChecks({ checkRuns, statuses: [] }, p, 0).kind

  it('needs at least one success, nothing pending, nothing failing, with no grace period', () => {
    expect(verdict([run('test', 'success')])).toBe('green')
    expect(verdict([run('test', 'failure')])).toBe('red')
    expect(verdict([run('test', null, 'in_progress')])).toBe('pending')
    expect(verdict([])).toBe('no-checks')
  })

  it('counts every check, this run’s own jobs too (reconcile gates nothing of its own)', () => {
    // Every check here is of workflow run 1 and suite 1, a run reconcile itself may be part of.
    const own = run('ci_reconcile', null, 'in_progress')
    expect(verdict([run('test', 'success'), own])).toBe('pending')
    expect(
      verdict([run('test', 'success'), { ...own, status: 'completed', conclusion: 'failure' }])
    ).toBe('red')
  })

  it('honours ignore-checks and required-checks', () => {
    const ignoring = resumePolicy({ requiredChecks: [], ignoreChecks: ['lint*'] })
    expect(verdict([run('test', 'success'), run('lint!', 'failure')], ignoring)).toBe('green')
    const requiring = resumePolicy({ requiredChecks: ['e2e'], ignoreChecks: [] })
    expect(verdict([run('test', 'success')], requiring)).toBe('red')
  })
})

describe('the resume comment', () => {
  it('says why the pause was lifted, what it was, and the head it resumes from', () => {
    const comment = renderResumeComment({
      program: 'perf',
      marker: commentMarker('resume', '9500'),
      sha: 'c0ffee'.padEnd(40, '0'),
      branch: 'autoloop/perf',
      previousReason: 'ci-fix-exhausted: jest:a | b',
      why: 'every check on the head of `autoloop/perf` is green',
      maskedValues: []
    })
    expect(comment.split('\n')).toEqual([
      '<!-- autoloop-ci-gate:resume 9500 -->',
      '### ▶️ Autoloop program `perf` resumed',
      '',
      'every check on the head of `autoloop/perf` is green, so the pause is lifted:',
      '',
      '- **It was paused for:** `ci-fix-exhausted: jest:a | b`',
      `- **Head of \`autoloop/perf\`:** \`${'c0ffee'.padEnd(40, '0')}\``,
      '',
      'Paused and Pause Reason are cleared: the next scheduled iteration starts from this commit.'
    ])
  })
})
