/**
 * Did a fix arrive, and whose doing is it when not (src/core/rules/fixer-run.ts): decision tables
 * over the fixer run's state and jobs as GitHub's jobs API reports them for gh-aw's compiled
 * job graph (job ids as names: pre_activation, activation, agent, detection, safe_outputs).
 */
import { describe, expect, it } from '@jest/globals'
import type { WorkflowJobInfo, WorkflowRunState } from '../../../src/core/github.js'
import {
  fallbackBlocked,
  fallbackPrefix,
  judgeFixerRun,
  safeOutputsBlocked
} from '../../../src/core/rules/fixer-run.js'

const RUN = 19_000_000_042

function jobOf(
  name: string,
  conclusion: string | null,
  steps: [string, string | null][] = []
): WorkflowJobInfo {
  return {
    name,
    status: conclusion === null ? 'in_progress' : 'completed',
    conclusion,
    url: `https://github.com/o/r/actions/runs/${RUN}/job/1`,
    steps: steps.map(([step, stepConclusion]) => ({
      name: step,
      status: stepConclusion === null ? 'in_progress' : 'completed',
      conclusion: stepConclusion
    }))
  }
}

const completed = (conclusion: string): WorkflowRunState => ({
  kind: 'found',
  status: 'completed',
  conclusion,
  runAttempt: 1
})
const running: WorkflowRunState = {
  kind: 'found',
  status: 'in_progress',
  conclusion: null,
  runAttempt: 1
}

/** gh-aw's job graph with the given conclusions (null: still running; absent: not listed). */
function ghAw(conclusions: Record<string, string | null>): WorkflowJobInfo[] {
  return Object.entries(conclusions).map(([name, conclusion]) => jobOf(name, conclusion))
}

describe('judgeFixerRun: the agent never ran', () => {
  const notRun: [string, WorkflowRunState, WorkflowJobInfo[], RegExp][] = [
    [
      'pre_activation let it through with activated=false: every later job skipped',
      completed('success'),
      ghAw({
        pre_activation: 'success',
        activation: 'skipped',
        agent: 'skipped',
        detection: 'skipped',
        safe_outputs: 'skipped',
        conclusion: 'skipped'
      }),
      /^fixer run \d+ did not run the agent: pre_activation did not activate it/
    ],
    [
      'pre_activation failed',
      completed('failure'),
      [
        jobOf('pre_activation', 'failure', [
          ['Set up job', 'success'],
          ['Check team membership for workflow', 'failure']
        ]),
        jobOf('activation', 'skipped'),
        jobOf('agent', 'skipped')
      ],
      /did not run the agent: pre_activation ended failure at step "Check team membership for workflow"$/
    ],
    [
      'activation failed (a lock file older than its source)',
      completed('failure'),
      [
        jobOf('pre_activation', 'success'),
        jobOf('activation', 'failure', [['Check workflow file timestamps', 'failure']]),
        jobOf('agent', 'skipped')
      ],
      /did not run the agent: activation ended failure at step "Check workflow file timestamps"$/
    ],
    [
      'the run was cancelled before the agent',
      completed('cancelled'),
      ghAw({ pre_activation: 'success', activation: 'success', agent: 'skipped' }),
      /did not run the agent: the run was cancelled before the agent ran$/
    ],
    [
      'the agent job was cancelled',
      completed('cancelled'),
      ghAw({ pre_activation: 'success', activation: 'success', agent: 'cancelled' }),
      /did not run the agent: the agent job ended cancelled$/
    ],
    [
      'the agent job failed in the scheduler step (an unknown program)',
      completed('failure'),
      [
        jobOf('pre_activation', 'success'),
        jobOf('activation', 'success'),
        jobOf('agent', 'failure', [
          ['Checkout repository', 'success'],
          ['Run scheduler', 'failure'],
          ['Execute GitHub Copilot CLI', 'skipped']
        ])
      ],
      /did not run the agent: the agent job ended failure at step "Run scheduler"$/
    ],
    [
      'the agent job skipped after a successful activation (an if: of its own)',
      completed('success'),
      ghAw({ pre_activation: 'success', activation: 'success', agent: 'skipped' }),
      /did not run the agent: the agent job was skipped \(run success\)$/
    ],
    [
      'no agent job in a gh-aw run',
      completed('success'),
      ghAw({ pre_activation: 'success', activation: 'success' }),
      /did not run the agent: the agent job was not in the run \(run success\)$/
    ],
    [
      'the run waits for approval',
      { kind: 'found', status: 'waiting', conclusion: null, runAttempt: 1 },
      ghAw({ pre_activation: 'success' }),
      /did not run the agent: the run waits for approval$/
    ],
    ['the run is gone', { kind: 'not-found' }, [], /did not run the agent: the run does not exist/]
  ]
  it.each(notRun)('%s', (_, run, jobs, cause) => {
    const verdict = judgeFixerRun(RUN, run, jobs, 'https://github.com/o/r/actions/runs/1')
    expect(verdict.kind).toBe('no-fix')
    if (verdict.kind !== 'no-fix') return
    expect(verdict.blocked.cause).toMatch(cause)
    expect(verdict.blocked.cause.startsWith(`fixer run ${RUN} did not run the agent: `)).toBe(true)
    expect(verdict.blocked.advice).toContain('no fix attempt was spent')
    expect(verdict.blocked.advice).toContain('(https://github.com/o/r/actions/runs/1)')
  })

  it('keeps a step name to plain text (it goes into markdown)', () => {
    const verdict = judgeFixerRun(RUN, completed('failure'), [
      jobOf('pre_activation', 'success'),
      jobOf('activation', 'failure', [['Check [me](https://x.invalid) `now`', 'failure']]),
      jobOf('agent', 'skipped')
    ])
    expect(verdict.kind === 'no-fix' && verdict.blocked.cause).toMatch(
      /at step "Check me\(https:\/\/x.invalid\) now"$/
    )
  })

  it('names on.bots as the fix when pre_activation skipped the run', () => {
    const verdict = judgeFixerRun(
      RUN,
      completed('success'),
      ghAw({ pre_activation: 'success', activation: 'skipped', agent: 'skipped' })
    )
    expect(verdict.kind === 'no-fix' && verdict.blocked.advice).toContain(
      '`bots: ["github-actions[bot]"]` under `on:`'
    )
    expect(verdict.kind === 'no-fix' && verdict.blocked.advice).not.toContain('](')
  })
})

describe('judgeFixerRun: the agent ran', () => {
  const table: [string, WorkflowRunState, WorkflowJobInfo[], string, RegExp | null][] = [
    [
      'and its push landed',
      completed('success'),
      ghAw({ agent: 'success', detection: 'success', safe_outputs: 'success' }),
      'agent-ran',
      null
    ],
    [
      'with nothing to push (safe_outputs skipped)',
      completed('success'),
      ghAw({ agent: 'success', detection: 'skipped', safe_outputs: 'skipped' }),
      'agent-ran',
      null
    ],
    [
      'but safe_outputs failed: the push did not land',
      completed('failure'),
      ghAw({ agent: 'success', detection: 'success', safe_outputs: 'failure' }),
      'no-fix',
      /^the push of fixer run \d+ did not land: safe_outputs ended failure$/
    ],
    [
      'but safe_outputs was cancelled',
      completed('cancelled'),
      ghAw({ agent: 'success', detection: 'success', safe_outputs: 'cancelled' }),
      'no-fix',
      /safe_outputs ended cancelled$/
    ],
    [
      'and the run goes on while safe_outputs pushes',
      running,
      ghAw({ agent: 'success', detection: 'success', safe_outputs: null }),
      'running',
      null
    ]
  ]
  it.each(table)('%s', (_, run, jobs, kind, cause) => {
    const verdict = judgeFixerRun(RUN, run, jobs)
    expect(verdict.kind).toBe(kind)
    if (cause) expect(verdict.kind === 'no-fix' && verdict.blocked.cause).toMatch(cause)
  })
})

describe('judgeFixerRun: nothing to say yet, or not gh-aw', () => {
  it('is running while the agent job runs or the run has not reached it', () => {
    expect(judgeFixerRun(RUN, running, ghAw({ agent: null })).kind).toBe('running')
    expect(judgeFixerRun(RUN, running, ghAw({ pre_activation: null })).kind).toBe('running')
    expect(
      judgeFixerRun(RUN, running, ghAw({ pre_activation: 'success', activation: null })).kind
    ).toBe('running')
  })

  it('cannot tell without permission to read the run', () => {
    expect(judgeFixerRun(RUN, { kind: 'forbidden' }, []).kind).toBe('running')
  })

  it('a fixer workflow that is not gh-aw: the branch head decides, as before', () => {
    expect(judgeFixerRun(RUN, completed('failure'), ghAw({ fix: 'failure' })).kind).toBe(
      'agent-ran'
    )
    expect(judgeFixerRun(RUN, completed('success'), []).kind).toBe('agent-ran')
    expect(judgeFixerRun(RUN, running, ghAw({ fix: null })).kind).toBe('running')
  })
})

describe('safeOutputsBlocked', () => {
  it.each([
    ['failure', /^the push of run 7 did not land: safe_outputs ended failure$/],
    ['cancelled', /^the push of run 7 did not land: safe_outputs ended cancelled$/]
  ])('%s: the push did not land', (result, cause) => {
    expect(safeOutputsBlocked(result, 7)?.cause).toMatch(cause)
  })

  it.each([['success'], ['skipped'], [undefined]])('%s: nothing to say', (result) => {
    expect(safeOutputsBlocked(result, 7)).toBeNull()
  })

  it('without a run id says this run', () => {
    expect(safeOutputsBlocked('failure', null)?.cause).toMatch(/^the push of this run /)
  })
})

describe('fallbackBlocked', () => {
  const branch = 'autoloop/perf'
  const since = Date.parse('2026-10-01T12:00:00Z')
  const pull = (number: number, headRef: string, createdAt: number, baseRef = branch) => ({
    number,
    url: `https://github.com/o/r/pull/${number}`,
    headSha: 'a'.repeat(40),
    headRef,
    baseRef,
    draft: false,
    state: 'open',
    createdAt
  })

  it('the newest fallback PR into the program branch since the attempt', () => {
    const blocked = fallbackBlocked(
      branch,
      [
        pull(8, `${fallbackPrefix(branch)}1759320000`, since + 1000),
        pull(9, `${fallbackPrefix(branch)}1759320600`, since + 600_000)
      ],
      since
    )
    expect(blocked?.cause).toBe(
      'the fix was pushed to autoloop/perf-fallback-1759320600 (PR #9), not to autoloop/perf'
    )
    expect(blocked?.advice).toContain('`fallback-as-pull-request: false`')
  })

  it('a fallback branch committed since the attempt, when no PR was opened for it', () => {
    const blocked = fallbackBlocked(branch, [], since, [
      { name: `${branch}-fallback-1759310000`, committedAt: since - 60_000 },
      { name: `${branch}-fallback-1759320600`, committedAt: since + 600_000 },
      { name: `${branch}-fallback-x`, committedAt: null }
    ])
    expect(blocked?.cause).toBe(
      'the fix was pushed to autoloop/perf-fallback-1759320600, not to autoloop/perf'
    )
    expect(blocked?.advice).toContain('`fallback-as-pull-request: false`')
    // A PR wins over its branch; an old branch alone is none.
    expect(
      fallbackBlocked(branch, [pull(9, `${branch}-fallback-1`, since + 1)], since, [
        { name: `${branch}-fallback-1`, committedAt: since + 1 }
      ])?.cause
    ).toContain('(PR #9)')
    expect(
      fallbackBlocked(branch, [], since, [{ name: `${branch}-fallback-1`, committedAt: since - 1 }])
    ).toBeNull()
    expect(
      fallbackBlocked(branch, [], since, [{ name: 'autoloop/perf-fix', committedAt: since + 1 }])
    ).toBeNull()
  })

  it('none: older than the attempt, another head, another base', () => {
    expect(fallbackBlocked(branch, [pull(3, `${branch}-fallback-1`, since - 1)], since)).toBeNull()
    expect(fallbackBlocked(branch, [pull(4, 'autoloop/perf-fix', since + 1)], since)).toBeNull()
    expect(
      fallbackBlocked(branch, [pull(5, `${branch}-fallback-1`, since + 1, 'main')], since)
    ).toBeNull()
  })
})
