import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { extractFailuresFromString } from '../../src/core/signature/extract.js'
import {
  STATUS_SENTINEL,
  commentMarker,
  renderIterationComment,
  renderPauseComment,
  renderStatusComment,
  type PauseView,
  type StatusView
} from '../../src/render/comments.js'
import { completeAttempt, type Attempt, type PausedSignature } from '../../src/core/ledger.js'
import { pauseReason } from '../../src/core/rules/pause-reasons.js'
import { readMachineState, updateMachineState } from '../../src/statefile/machine-state.js'
import { createStateFile } from '../../src/statefile/template.js'
import {
  MINUTE,
  START,
  awaitingApproval,
  begin,
  fresh,
  redAttempts,
  redVerdict,
  sha,
  sig
} from '../core/ledger-helpers.js'

const SERVER = 'https://github.com'
const REPO = 'acme/widgets'

function status(text: string, extra: Partial<StatusView> = {}): string {
  return renderStatusComment({
    program: 'perf',
    state: readMachineState(text),
    stateFile: {
      label: 'perf.md on memory/autoloop',
      url: `${SERVER}/${REPO}/blob/memory/autoloop/perf.md`
    },
    serverUrl: SERVER,
    repository: REPO,
    ...extra
  })
}

const rowOf = (comment: string, label: string): string =>
  comment.split('\n').find((line) => line.startsWith(`| ${label} |`)) ?? ''

describe('the status comment', () => {
  it('opens with the sentinel and shows the program’s state', () => {
    const comment = status(
      createStateFile('perf', {
        machineState: { bestMetric: '0.8200', iterationCount: 12, pr: 14, lastRun: START }
      })
    )
    expect(comment.split('\n')[0]).toBe(STATUS_SENTINEL)
    expect(comment).toContain('### 🤖 Autoloop: perf')
    expect(rowOf(comment, 'Status')).toBe('| Status | 🟢 Active |')
    expect(rowOf(comment, 'Iterations')).toBe('| Iterations | 12 |')
    expect(rowOf(comment, 'PR')).toBe('| PR | #14 |')
    expect(rowOf(comment, 'Branch')).toBe(
      `| Branch | [autoloop/perf](${SERVER}/${REPO}/tree/autoloop/perf) |`
    )
    expect(rowOf(comment, 'Paused')).toBe('| Paused | no |')
  })

  it('shows the best metric as the number it is, never escaped (0.82, not 0\\.82)', () => {
    const comment = status(createStateFile('perf', { machineState: { bestMetric: 0.82 } }))
    expect(rowOf(comment, 'Best metric')).toBe('| Best metric | 0.82 |')
    expect(comment).not.toContain('0\\.82')
    const negative = status(createStateFile('perf', { machineState: { bestMetric: -1.5e-7 } }))
    expect(rowOf(negative, 'Best metric')).toBe('| Best metric | -1.5e-7 |')
  })

  it.each([
    [{ paused: true, pauseReason: pauseReason('stuck', 'jest:a>b') }, '⏸️ Paused'],
    [{ paused: true, pauseReason: pauseReason('consecutive-errors') }, '⚠️ Error'],
    [{ completed: true, completedReason: 'target metric reached' }, '✅ Completed']
  ])('status %j → %s', (patch, word) => {
    expect(rowOf(status(createStateFile('perf', { machineState: patch })), 'Status')).toBe(
      `| Status | ${word} |`
    )
  })

  it('keeps text a human wrote in the state file inside its cell (no pipe, no line, no mention)', () => {
    const text = updateMachineState(createStateFile('perf'), {
      paused: true,
      pauseReason: 'manual: ask @octocat | see #12'
    })
    const row = rowOf(status(text), 'Paused')
    expect(row.split('|')).toHaveLength(4)
    expect(row).toContain('@\u200doctocat')
    expect(row).toMatch(/^\| Paused \| yes: manual: ask @\u200doctocat ¦ see /)
  })
})

describe('the pause comment', () => {
  const reason = pauseReason('stuck', sig('a').short)
  function view(extra: Partial<PauseView> = {}): PauseView {
    const ledger = redAttempts([sig('x'), sig('a'), sig('b'), sig('a')])
    return {
      program: 'perf',
      iterationId: ledger.iteration?.id ?? '',
      reason,
      signature: { full: sig('a').full, short: sig('a').short },
      attempts: ledger.attempts,
      runUrlOf: (runId) => (runId === null ? null : `${SERVER}/${REPO}/actions/runs/${runId}`),
      maskedValues: [],
      branch: 'autoloop/perf',
      ...extra
    }
  }

  it('says why, the signature, the last three attempts with their runs, and how to resume', () => {
    const comment = renderPauseComment(view())
    const lines = comment.split('\n')
    expect(lines[0]).toBe(commentMarker('pause', view().iterationId))
    expect(comment).toContain('### ⏸️ Autoloop program `perf` paused by the CI gate')
    expect(comment).toContain(`**Reason:** \`${reason}\``)
    expect(comment).toContain('```\njest:tests/a.test.ts>fails\n```')
    expect(comment).toContain('**Last 3 attempts:**')
    expect(comment).not.toContain('**Attempt 0**')
    expect(comment).toContain(
      `**Attempt 3** — \`${sha(3).slice(0, 12)}\` — red — [run](${SERVER}/${REPO}/actions/runs/103) — failing: [test (20.x)](https://github.com/acme/widgets/actions/runs/13512345678/job/37900000001)`
    )
    expect(comment).toContain('- Push a fix to `autoloop/perf`')
    expect(comment).toContain('add `forget-failures: true` once the cause is fixed')
  })

  it('a failure remembered from before a reset: when it stuck, who reset it, and not the same approach again', () => {
    const remembered: PausedSignature = {
      hash: sig('a').hash.slice(0, 16),
      short: sig('a').short,
      reason,
      pausedAt: '2026-03-01T12:10:00.000Z',
      iterationId: 'earlier',
      resetAt: '2026-03-02T09:00:00.000Z',
      resetBy: 'octocat'
    }
    expect(renderPauseComment(view({ remembered }))).toContain(
      `**This failure stuck the loop before:** paused at 2026-03-01T12:10:00.000Z (\`${reason}\`). It was reset at 2026-03-02T09:00:00.000Z by octocat without fixing the cause. The fixer should not resume the same approach but state what blocks it.`
    )
  })

  it('blocked: what a maintainer must do, and that reconcile resumes it', () => {
    const blocked = awaitingApproval(sha(0), 180)
    const comment = renderPauseComment(view({ blocked, signature: null }))
    expect(comment).toContain(`**No fix can help:** ${blocked?.advice}`)
    expect(comment).toContain('- `reconcile` resumes the program once the head has a verdict')
    expect(comment).not.toContain('**Failure signature**')
  })

  it('fences error lines and redacts masked values in them', () => {
    let ledger = begin(fresh(), { sha: sha(0), now: START }).ledger
    ledger = completeAttempt(
      ledger,
      0,
      redVerdict(sig('a'), START + MINUTE, {
        errorLines: ['## not a heading', 'token s3cr3t-value leaked', '<!-- AUTOLOOP:STATUS -->']
      })
    )
    const comment = renderPauseComment(
      view({ attempts: ledger.attempts, maskedValues: ['s3cr3t-value'] })
    )
    expect(comment).toContain('```\n## not a heading\ntoken *** leaked\n```')
    expect(comment.match(/<!-- AUTOLOOP:STATUS -->/g)).toBeNull()
  })

  it('carries the failure details of real jest output, fenced, with masked values redacted', () => {
    const log = readFileSync(
      new URL('../../__fixtures__/corpus/jest/assertion/job-log.log', import.meta.url),
      'utf8'
    )
    const found = extractFailuresFromString(log).findings
    const details = found.map((f) => ({ check: 'test', key: f.key, lines: f.details ?? [] }))
    details[0]?.lines.push('token s3cr3t-value leaked <!-- AUTOLOOP:STATUS -->')
    let ledger = begin(fresh(), { sha: sha(0), now: START }).ledger
    ledger = completeAttempt(ledger, 0, redVerdict(sig('a'), START + MINUTE, { details }))
    const comment = renderPauseComment(
      view({ attempts: ledger.attempts, maskedValues: ['s3cr3t-value'] })
    )
    expect(comment).toContain('    Expected: 6\n    Received: 5')
    expect(comment).toContain('at Object.<anonymous> (__tests__/cart.test.js:10:29)')
    expect(comment).toContain('token *** leaked')
    expect(comment.match(/<!-- AUTOLOOP:STATUS -->/g)).toBeNull()
  })

  it('links a failing check only through a plain http(s) URL: CI cannot break out of the link', () => {
    const hostile: Attempt = {
      ...(view().attempts.at(-1) as Attempt),
      failingChecks: [
        { name: 'a', conclusion: 'failure', url: 'https://x.test/a) [click me](https://evil.test' },
        { name: 'b', conclusion: 'failure', url: 'https://x.test/b\n<!-- AUTOLOOP:STATUS -->' },
        { name: 'c', conclusion: 'failure', url: 'javascript:alert(1)' }
      ]
    }
    const comment = renderPauseComment(view({ attempts: [hostile] }))
    const line = comment.split('\n').find((l) => l.startsWith('**Attempt 3**')) ?? ''
    expect(line).toContain('[a](https://x.test/a%29%20[click%20me]%28https://evil.test)')
    expect(line).not.toContain('](https://evil.test')
    expect(line).not.toContain('javascript:')
    expect(comment).not.toContain('<!-- AUTOLOOP:STATUS -->')
  })
})

describe('the iteration comment', () => {
  it('is the marker and the history entry, with accepted pre-existing failures and flaky checks said', () => {
    const marker = commentMarker('iteration', '9001')
    const preExisting = Array.from({ length: 12 }, (_, i) => `eslint:rule-${i}:src/a.ts`)
    const comment = renderIterationComment({
      program: 'perf',
      marker,
      entry: '### Iteration 4 — 2026-03-05 12:00 UTC',
      preExisting,
      flaky: [{ check: 'e2e (chrome)' }]
    })
    expect(comment.split('\n').slice(0, 4)).toEqual([
      marker,
      '**Autoloop `perf`** recorded an iteration:',
      '',
      '### Iteration 4 — 2026-03-05 12:00 UTC'
    ])
    expect(comment).toContain('`eslint:rule-0:src/a.ts`')
    expect(comment).toContain('`eslint:rule-9:src/a.ts` +2 more.')
    expect(comment).not.toContain('rule-10')
    expect(comment).toContain('Flaky on the way (passed on re-run): e2e (chrome).')
    expect(renderIterationComment({ program: 'perf', marker, entry: 'x' })).toBe(
      `${marker}\n**Autoloop \`perf\`** recorded an iteration:\n\nx`
    )
  })

  it('carries the marker once, leaving out the copy in the entry', () => {
    const marker = commentMarker('iteration', '9001')
    const entry = [
      '### Iteration 4 — 2026-03-05 12:00 UTC',
      marker,
      '',
      '- **Status**: ✅ Accepted'
    ]
    const comment = renderIterationComment({ program: 'perf', marker, entry: entry.join('\n') })
    expect(comment.split('\n').filter((line) => line === marker)).toHaveLength(1)
    expect(comment).toContain('### Iteration 4 — 2026-03-05 12:00 UTC\n\n- **Status**: ✅ Accepted')
  })
})

describe('commentMarker', () => {
  it('is a hidden line that an id cannot close early', () => {
    expect(commentMarker('pause', '2026-03-01T12:00:00.000Z/abc')).toBe(
      '<!-- autoloop-ci-gate:pause 2026-03-01T12:00:00.000Z/abc -->'
    )
    expect(commentMarker('reset', 'x --> <b>y</b>')).toBe(
      '<!-- autoloop-ci-gate:reset x  <b>y</b> -->'
    )
  })
})
