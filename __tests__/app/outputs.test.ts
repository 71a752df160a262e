import { describe, expect, it } from '@jest/globals'
import type { GateObservation } from '../../src/core/checks/observation.js'
import type { CheckView } from '../../src/core/checks/reduce.js'
import { completeAttempt, latestAttempt } from '../../src/core/ledger.js'
import {
  OUTPUT_NAMES,
  checksOutput,
  checksTable,
  gateOutputs,
  gateSummaryMarkdown,
  skippedReport,
  type GateReport
} from '../../src/app/outputs.js'
import type { Pause, Settlement } from '../../src/core/rules/decide.js'
import { signatureOf } from '../../src/core/signature/signature.js'
import { MINUTE, START, begin, fresh, sha } from '../core/ledger-helpers.js'

const TOKEN = ['gh', 'p_', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'].join('')

function view(name: string, state: CheckView['state'], extra: Partial<CheckView> = {}): CheckView {
  return {
    kind: 'check-run',
    id: name.length,
    name,
    status: 'completed',
    conclusion: state === 'passed' ? 'success' : state === 'failed' ? 'failure' : null,
    url: `https://github.com/acme/widgets/actions/runs/1/job/${name.length}`,
    state,
    ...extra
  }
}

const observation: GateObservation = {
  sha: sha(0),
  pull: {
    number: 14,
    url: 'https://github.com/acme/widgets/pull/14',
    headSha: sha(0),
    headRef: 'autoloop/perf',
    baseRef: 'main',
    draft: true,
    state: 'open'
  },
  verdict: 'red',
  reasons: ['test (20.x): failure'],
  missingRequired: [],
  checks: [
    view('test (20.x)', 'failed'),
    view('lint', 'passed'),
    view('ci-gate', 'running', { excluded: 'own-run' })
  ],
  startedAt: START,
  finishedAt: START + 125_000,
  polls: 9
}

const settledAttempt = (() => {
  const attempt = latestAttempt(
    completeAttempt(begin(fresh(), { sha: sha(0), now: START }).ledger, 0, {
      state: 'red',
      now: START + MINUTE
    })
  )
  if (!attempt) throw new Error('the ledger helpers began no attempt')
  return attempt
})()

const classification = {
  preExisting: [],
  baseSha: null,
  baseNote: null,
  flaky: [],
  infrastructure: []
}

/** A red gate that wrote the failure summary and started the fixer run. */
function report(): GateReport {
  const signature = signatureOf(['jest:tests/a.test.ts>fails'])
  return {
    settlement: {
      kind: 'red',
      index: 0,
      signature,
      record: { state: 'red', now: START + MINUTE, signature },
      attemptsRemaining: 5,
      next: ['dispatch']
    },
    message: 'CI is red',
    observation,
    attempt: settledAttempt,
    failureSummary: { markdown: '### ❌ CI failed', jsonPath: '/tmp/perf-attempt-0.json' },
    dispatched: true,
    classification,
    steps: [{ attempt: 0, sha: sha(0), verdict: 'red', signature: 'jest:tests/a.test.ts>fails' }]
  }
}

/** A green gate, accepted except for the pre-existing keys. */
type GreenReport = Extract<
  GateReport,
  { settlement: { kind: 'green' | 'green-except-pre-existing' } }
>

function greenExcept(preExisting: string[], extra: Partial<GreenReport> = {}): GateReport {
  return {
    settlement: { kind: 'green-except-pre-existing', index: 0, attemptsRemaining: 5, preExisting },
    message: 'CI is green except pre-existing failures',
    observation,
    attempt: settledAttempt,
    classification: null,
    recorded: null,
    steps: [],
    ...extra
  }
}

/** A pause of attempt 0 as `decide` makes it. */
function paused(extra: Partial<Pause> = {}): Extract<Settlement, { kind: 'paused' }> {
  return {
    kind: 'paused',
    pause: {
      kind: 'blocked',
      index: 0,
      reason: 'ci-blocked',
      verdict: 'blocked',
      record: { state: 'blocked', now: START + MINUTE },
      signature: null,
      remember: false,
      blocked: null,
      attemptsRemaining: 5,
      ...extra
    }
  }
}

describe('gateOutputs', () => {
  it('sets every gate output, each a string, from the report', () => {
    const outputs = gateOutputs(report())
    expect(
      Object.keys(outputs).every((name) => (OUTPUT_NAMES as readonly string[]).includes(name))
    ).toBe(true)
    expect(outputs).toEqual({
      status: 'failure',
      verdict: 'red',
      sha: sha(0),
      'pr-number': '14',
      attempt: '0',
      'attempts-remaining': '5',
      signature: 'jest:tests/a.test.ts>fails',
      'pause-reason': '',
      'failure-summary': '### ❌ CI failed',
      'failure-summary-path': '/tmp/perf-attempt-0.json',
      checks: JSON.stringify([
        {
          name: 'test (20.x)',
          kind: 'check-run',
          status: 'completed',
          conclusion: 'failure',
          url: 'https://github.com/acme/widgets/actions/runs/1/job/11'
        },
        {
          name: 'lint',
          kind: 'check-run',
          status: 'completed',
          conclusion: 'success',
          url: 'https://github.com/acme/widgets/actions/runs/1/job/4'
        }
      ]),
      dispatched: 'true',
      'pre-existing': '[]'
    })
  })

  it('a skipped gate (no observation, no attempt) still sets every gate output', () => {
    const outputs = gateOutputs(skippedReport('Program perf is paused', { pauseReason: 'manual' }))
    expect(outputs).toEqual({
      status: 'skipped',
      verdict: '',
      sha: '',
      'pr-number': '',
      attempt: '',
      'attempts-remaining': '',
      signature: '',
      'pause-reason': 'manual',
      'failure-summary': '',
      'failure-summary-path': '',
      checks: '[]',
      dispatched: 'false',
      'pre-existing': '[]'
    })
  })

  it('pre-existing keys and check names come from CI: redacted, no markers', () => {
    const outputs = gateOutputs(
      greenExcept([`eslint:x ${TOKEN}`, 'jest:a <!-- AUTOLOOP:STATUS -->'], {
        observation: { ...observation, checks: [view(`deploy ${TOKEN}`, 'failed')] }
      })
    )
    const preExisting = JSON.parse(outputs['pre-existing'] ?? '[]') as string[]
    expect(preExisting).toHaveLength(2)
    expect(outputs['pre-existing']).not.toContain(TOKEN)
    expect(outputs['pre-existing']).not.toContain('AUTOLOOP:STATUS')
    expect(outputs.checks).not.toContain(TOKEN)
  })
})

describe('checksOutput and checksTable', () => {
  it('list the counted checks; the table says why the others were not counted', () => {
    expect(checksOutput(observation.checks).map((check) => check.name)).toEqual([
      'test (20.x)',
      'lint'
    ])
    const table = checksTable(observation.checks)
    expect(table).toMatch(/\| ❌ +\| test \(20\.x\) +\| check run \| failure +\| \[details\]\(/)
    expect(table).toContain('<details><summary>Not counted</summary>')
    expect(table).toContain('this workflow run (never waited on)')
    expect(checksTable([])).toBe(
      '_No check runs or commit statuses were reported for this commit._'
    )
  })

  it('a hostile check name stays in its cell; a hostile URL cannot add a link or an image', () => {
    const table = checksTable([
      view('a | b\n| Paused | true |', 'failed', {
        url: 'https://x.test/a)![pixel](https://evil.test/p.png'
      }),
      view('spaced', 'failed', { url: 'https://x.test/a (b)' }),
      view('broken', 'failed', { url: 'https://x.test/a\n| x |' }),
      view('script', 'failed', { url: 'javascript:alert(1)' })
    ])
    const rows = table.split('\n').filter((line) => line.includes('❌'))
    for (const row of rows) expect(row.split('|')).toHaveLength(7)
    expect(rows[0]).toContain('[details](https://x.test/a%29![pixel]%28https://evil.test/p.png)')
    expect(table).not.toContain('](https://evil.test')
    expect(rows[1]).toContain('[details](https://x.test/a%20%28b%29)')
    expect(rows[2]).toContain('[details](https://x.test/a%7C%20x%20%7C)')
    expect(rows[3]).toMatch(/\| details +\|$/)
  })
})

describe('gateSummaryMarkdown', () => {
  it('says the verdict, why, what was started, and shows the checks and the failure summary', () => {
    const markdown = gateSummaryMarkdown('perf', report())
    expect(markdown).toContain('## autoloop-ci-gate: perf')
    expect(markdown).toContain(
      `**🔴 red** — status \`failure\` for \`${sha(0)}\` (PR [#14](https://github.com/acme/widgets/pull/14))`
    )
    expect(markdown).toContain('- test (20.x): failure')
    expect(markdown).toContain('**Fixer run started** (`dispatch-workflow`).')
    expect(markdown).toContain('Waited 125 s over 9 polls.')
    expect(markdown.trimEnd().endsWith('### ❌ CI failed')).toBe(true)
    expect(markdown).not.toContain('**Attempts in this step**')
  })

  it('green except pre-existing failures: accepted loudly, with the keys and the base SHA', () => {
    const markdown = gateSummaryMarkdown(
      'perf',
      greenExcept(['eslint:no-console:src/legacy.ts'], {
        classification: {
          preExisting: ['eslint:no-console:src/legacy.ts'],
          baseSha: sha('main'),
          baseNote: null,
          flaky: [{ check: 'e2e', url: 'https://github.com/acme/widgets/actions/runs/2' }],
          infrastructure: [{ check: 'build', cause: 'the runner was shut down', url: null }]
        }
      })
    )
    expect(markdown).toContain('**🟡 green except pre-existing failures: accepted, loudly**')
    expect(markdown).toContain(
      `**Pre-existing** (fail on the base branch head \`${sha('main').slice(0, 12)}\` too, not counted): \`eslint:no-console:src/legacy.ts\``
    )
    expect(markdown).toContain(
      '**Flaky** (failed, passed on re-run): [e2e](https://github.com/acme/widgets/actions/runs/2)'
    )
    expect(markdown).toContain('**Infrastructure:** build (the runner was shut down)')
  })

  it('blocked and paused: the advice and the pause reason', () => {
    const markdown = gateSummaryMarkdown('perf', {
      settlement: paused({ blocked: { cause: 'runs wait', advice: 'Approve the runs.' } }),
      message: 'CI waits for approval',
      observation,
      attempt: settledAttempt,
      pauseReason: 'ci-blocked: runs wait | approval',
      classification: null,
      failureSummary: null,
      steps: []
    })
    expect(markdown).toContain('**🚧 blocked: no fix can help**')
    expect(markdown).toContain('**Blocked:** Approve the runs.')
    expect(markdown).toContain('**Paused:** ci-blocked: runs wait ¦ approval')
    expect(markdown).not.toContain('**Fixer run started**')
  })

  it('recorded, and several attempts in one step', () => {
    const markdown = gateSummaryMarkdown('perf', {
      settlement: { kind: 'green', index: 1, attemptsRemaining: 4 },
      message: 'CI is green',
      observation,
      attempt: settledAttempt,
      classification: null,
      recorded: {
        recorded: true,
        status: 'recorded',
        iteration: 4,
        metric: 0.82,
        previousBest: 0.8,
        delta: '+0.02',
        improved: true,
        pauseReason: null,
        completedReason: null,
        fixAttempts: 1,
        commit: sha(1),
        runKey: '9000',
        entry: null
      },
      steps: [
        { attempt: 0, sha: sha(0), verdict: 'red', signature: 'a | b' },
        { attempt: 1, sha: sha(1), verdict: 'green', signature: null }
      ]
    })
    expect(markdown).toContain('**Recorded** iteration 4: status `recorded`, metric 0.82.')
    expect(markdown).toContain('**Attempts in this step** (fix-command):')
    expect(markdown).toMatch(/\| 1 +\| `[0-9a-f]{12}` \| green +\| — +\|/)
    expect(markdown).toMatch(/\| 0 +\| `[0-9a-f]{12}` \| red +\| a ¦ b +\|/)
  })

  it('without an observation: the message, and the pause when there is one', () => {
    expect(
      gateSummaryMarkdown(
        'perf',
        skippedReport('Program perf is paused', { pauseReason: 'manual' })
      )
    ).toBe('## autoloop-ci-gate: perf\n\nProgram perf is paused\n\n**Paused:** manual\n')
  })
})
