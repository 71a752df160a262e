/**
 * `record` in-process against the fake API: the iteration's outcome written through the
 * ledger into Machine State and the Iteration History, and said on the program issue, once
 * per workflow run however often the run is re-run.
 */
import { describe, expect, it } from '@jest/globals'
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FakeGitHub, Scenario } from '../../__fixtures__/fake-github/index.js'
import { PROGRAM, withFake } from '../helpers/fake-run.js'
import { runInProcess } from '../helpers/in-process.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'
import { tempDir } from '../helpers/temp-dir.js'
import { beginAttempt, completeAttempt, emptyLedger, ledgerPath } from '../../src/core/ledger.js'
import { parseRangeLine } from '../../src/statefile/history.js'
import { STATUS_SENTINEL } from '../../src/render/comments.js'
import type { MachineStatePatch } from '../../src/core/schema.js'
import {
  ISSUE,
  STATE_BRANCH,
  commentsOn,
  ledgerOf,
  programFiles,
  runCommand,
  schedulerReads,
  stateFileOf,
  stateText
} from '../app/commands/lifecycle-helpers.js'

const SHA = 'c0ffee'.padEnd(40, '0')
const FIX_SHA = 'f1eed0'.padEnd(40, '1')

function scenario(
  text: string | Record<string, string> | null,
  extra: Partial<Scenario> = {}
): Scenario {
  const files =
    text === null
      ? { 'README.md': 'state' }
      : typeof text === 'string'
        ? { [`${PROGRAM}.md`]: text }
        : text
  return {
    contents: { [STATE_BRANCH]: files },
    issues: [{ number: ISSUE, labels: ['autoloop-program'] }],
    ...extra
  }
}

function record(fake: FakeGitHub, inputs: Record<string, string>, runId = '9000') {
  return runCommand(
    fake,
    { command: 'record', program: PROGRAM, ...inputs },
    { GITHUB_RUN_ID: runId }
  )
}

const seeded = (patch: MachineStatePatch) => stateText(PROGRAM, { issue: ISSUE, ...patch })

describe('record, in-process against the fake API', () => {
  it('accepted (higher is better): best metric, count, history entry with fix attempts, status and iteration comments', async () => {
    // The gate ran this iteration: a red first attempt, then a green fix.
    const start = Date.parse('2026-03-01T10:00:00Z')
    const limits = { maxFixAttempts: 5, timeoutMinutes: 60 }
    let ledger = beginAttempt(emptyLedger(PROGRAM, start), {
      sha: SHA,
      runId: 8900,
      now: start,
      ...limits
    }).ledger
    ledger = completeAttempt(ledger, 0, { state: 'red', now: start + 60_000 })
    ledger = beginAttempt(ledger, {
      sha: FIX_SHA,
      runId: 9000,
      now: start + 120_000,
      ...limits
    }).ledger
    ledger = completeAttempt(ledger, 1, { state: 'green', now: start + 600_000 })
    const files = programFiles(
      PROGRAM,
      {
        issue: ISSUE,
        bestMetric: 0.8612,
        metricDirection: 'higher',
        iterationCount: 16,
        consecutiveErrors: 1,
        recentStatuses: ['error']
      },
      ledger
    )
    await withFake(scenario(files), async (fake) => {
      const run = await record(fake, {
        outcome: 'accepted',
        metric: '0.8731',
        change: 'tests for parseRange'
      })
      expect(run.exitCode).toBe(0)
      expect(run.outputs.status).toBe('recorded')
      const reading = schedulerReads(fake, PROGRAM)
      expect(reading).toMatchObject({
        skipped: false,
        fields: {
          best_metric: '0.8731',
          iteration_count: '17',
          consecutive_errors: '0',
          paused: 'false',
          recent_statuses: 'error, accepted'
        }
      })
      expect(reading.fields.last_run).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
      const after = stateFileOf(fake, PROGRAM) as string
      expect(after).toContain('- **Metric**: 0.8731 (previous best: 0.8612, delta: +0.0119)')
      expect(after).toContain('- **CI fix attempts**: 1')
      expect(after).toContain(`- **Commit**: ${FIX_SHA.slice(0, 12)}`)
      expect(after).toContain('- **Change**: tests for parseRange')
      expect(after).toMatch(
        /### Iteration 17 — .* — \[Run\]\(http:\/\/127\.0\.0\.1:\d+\/octo-org\/demo\/actions\/runs\/9000\)/
      )
      // The ledger holds the write (a memory push reverting the file cannot lose it).
      const recorded = ledgerOf(fake, PROGRAM)
      expect(recorded?.iteration?.outcome).toBe('green')
      expect(recorded?.writes.at(-1)).toMatchObject({
        machineState: { bestMetric: 0.8731, iterationCount: 17 },
        historyEntry: { runKey: '9000' }
      })
      const comments = commentsOn(fake)
      expect(comments).toHaveLength(2)
      expect(comments.find((c) => c.includes(STATUS_SENTINEL))).toContain('| Iterations | 17 |')
      // Our own numbers are shown as they are, never escaped as if they were CI text.
      expect(comments.find((c) => c.includes(STATUS_SENTINEL))).toContain(
        '| Best metric | 0.8731 |'
      )
      expect(
        comments.find((c) => c.startsWith('<!-- autoloop-ci-gate:iteration 9000 -->'))
      ).toContain('delta: +0.0119')
    })
  })

  it('accepted (lower is better): the improvement reads as a negative delta', async () => {
    await withFake(
      scenario(seeded({ bestMetric: 120.5, metricDirection: 'lower', targetMetric: 100 })),
      async (fake) => {
        const run = await record(fake, { outcome: 'accepted', metric: '120.38' })
        expect(run.outputs.status).toBe('recorded')
        expect(schedulerReads(fake, PROGRAM).fields).toMatchObject({
          best_metric: '120.38',
          completed: 'false'
        })
        expect(stateFileOf(fake, PROGRAM)).toContain('(previous best: 120.5, delta: -0.12)')
      }
    )
  })

  it('a reached target (lower is better) completes the program and swaps the issue label', async () => {
    await withFake(
      scenario(seeded({ bestMetric: 104, metricDirection: 'lower', targetMetric: 100 })),
      async (fake) => {
        const run = await record(fake, { outcome: 'accepted', metric: '99.5' })
        expect(run.outputs.status).toBe('completed')
        const reading = schedulerReads(fake, PROGRAM)
        expect(reading).toMatchObject({
          skipped: true,
          why: 'completed: target metric reached',
          fields: { completed: 'true' }
        })
        expect(reading.fields.completed_reason).toContain('target metric reached: 99.5 ≤ 100')
        expect(fake.state.issues.find((i) => i.number === ISSUE)?.labels).toEqual([
          'autoloop-completed'
        ])
        expect(commentsOn(fake).find((c) => c.includes(STATUS_SENTINEL))).toContain('✅ Completed')
      }
    )
  })

  it('rejected, then errors: the third consecutive error pauses the program', async () => {
    await withFake(scenario(seeded({ consecutiveErrors: 0, iterationCount: 3 })), async (fake) => {
      const statuses: string[] = []
      const outcomes = ['rejected', 'error', 'error', 'error']
      for (const [i, outcome] of outcomes.entries()) {
        const run = await record(fake, { outcome, reason: `step ${i} failed` }, String(9100 + i))
        statuses.push(run.outputs.status ?? '')
      }
      expect(statuses).toEqual(['recorded', 'recorded', 'recorded', 'paused'])
      const reading = schedulerReads(fake, PROGRAM)
      expect(reading).toMatchObject({
        skipped: true,
        fields: {
          iteration_count: '7',
          consecutive_errors: '3',
          paused: 'true',
          pause_reason: 'consecutive errors',
          recent_statuses: 'rejected, error, error, error'
        }
      })
      const status = commentsOn(fake).filter((c) => c.includes(STATUS_SENTINEL))
      expect(status).toHaveLength(1)
      expect(status[0]).toContain('⚠️ Error')
      expect(
        commentsOn(fake).filter((c) => c.startsWith('<!-- autoloop-ci-gate:iteration'))
      ).toHaveLength(4)
    })
  })

  it('a re-run of the same workflow run, at any attempt, changes nothing more', async () => {
    await withFake(scenario(seeded({ iterationCount: 3 })), async (fake) => {
      await record(fake, { outcome: 'rejected', metric: '0.5' })
      const text = stateFileOf(fake, PROGRAM)
      const ledger = ledgerOf(fake, PROGRAM)
      const comments = [...commentsOn(fake)]
      expect(comments.filter((c) => c.includes('autoloop-ci-gate:iteration'))).toHaveLength(1)
      const writes = fake.writeRequests().length
      for (const attempt of ['1', '2', '3']) {
        const again = await runCommand(
          fake,
          { command: 'record', program: PROGRAM, outcome: 'accepted', metric: '0.9' },
          { GITHUB_RUN_ID: '9000', GITHUB_RUN_ATTEMPT: attempt }
        )
        expect(again.exitCode).toBe(0)
        expect(again.outputs.status).toBe('recorded')
      }
      expect(stateFileOf(fake, PROGRAM)).toBe(text)
      expect(ledgerOf(fake, PROGRAM)).toEqual(ledger)
      expect(commentsOn(fake)).toEqual(comments)
      expect(fake.writeRequests().length).toBe(writes)
      expect(schedulerReads(fake, PROGRAM).fields.iteration_count).toBe('4')
      // Another workflow run is another iteration.
      await record(fake, { outcome: 'rejected' }, '9001')
      expect(schedulerReads(fake, PROGRAM).fields.iteration_count).toBe('5')
    })
  })

  it('a re-run whose first attempt never saved the state records once more and edits its comment, never a second one', async () => {
    // gh-aw's repo-memory job pushes the state folder after the job: when the job failed
    // after `record`, the re-run (same run id, next attempt) starts from the old files.
    const before = tempDir('autoloop-memory-')
    for (const [path, text] of Object.entries(
      programFiles(PROGRAM, { issue: ISSUE, iterationCount: 3 })
    ))
      writeFileSync(join(before, path), text)
    const firstAttempt = tempDir('autoloop-memory-')
    const rerun = tempDir('autoloop-memory-')
    cpSync(before, firstAttempt, { recursive: true })
    cpSync(before, rerun, { recursive: true })
    await withFake({ issues: [{ number: ISSUE, labels: ['autoloop-program'] }] }, async (fake) => {
      const recordIn = (dir: string, attempt: string, change: string) =>
        runInProcess(fake, {
          inputs: {
            command: 'record',
            program: PROGRAM,
            outcome: 'accepted',
            metric: '0.91',
            change,
            'state-dir': dir
          },
          env: { GITHUB_RUN_ID: '9000', GITHUB_RUN_ATTEMPT: attempt }
        })
      expect((await recordIn(firstAttempt, '1', 'first try')).outputs.status).toBe('recorded')
      const rerunRun = await recordIn(rerun, '2', 'second try')
      expect(rerunRun.outputs.status).toBe('recorded')
      const text = readFileSync(join(rerun, `${PROGRAM}.md`), 'utf8')
      expect(readLikeScheduler(text).fields).toMatchObject({
        iteration_count: '4',
        best_metric: '0.91',
        recent_statuses: 'accepted'
      })
      expect(text.match(/^### Iteration /gm)).toHaveLength(1)
      expect(JSON.parse(readFileSync(join(rerun, ledgerPath(PROGRAM)), 'utf8'))).toMatchObject({
        iteration: null,
        writes: [
          expect.objectContaining({ historyEntry: expect.objectContaining({ runKey: '9000' }) })
        ]
      })
      // One iteration comment, edited by the re-run, and one status comment.
      const iteration = commentsOn(fake).filter((c) => c.includes('autoloop-ci-gate:iteration'))
      expect(iteration).toHaveLength(1)
      expect(iteration[0]).toContain('second try')
      expect(commentsOn(fake).filter((c) => c.includes(STATUS_SENTINEL))).toHaveLength(1)
      expect(
        fake.requests.filter(
          (r) => r.route?.endsWith('/comments/{comment_id}') && r.method === 'PATCH'
        ).length
      ).toBeGreaterThan(0)
    })
  })

  it('creates the state file from the template when the program has none', async () => {
    await withFake(scenario(null, { issues: [] }), async (fake) => {
      const run = await record(fake, { outcome: 'error' })
      expect(run.outputs.status).toBe('recorded')
      expect(schedulerReads(fake, PROGRAM).fields).toMatchObject({
        iteration_count: '1',
        consecutive_errors: '1'
      })
    })
  })

  it('collapses old history so the file stays under state-max-bytes', async () => {
    let text = seeded({ iterationCount: 60, bestMetric: 0.5 })
    const history = Array.from({ length: 60 }, (_, i) => {
      const n = 60 - i
      return [
        `### Iteration ${n} — 2026-02-01 10:00 UTC — [Run](https://github.example/o/r/actions/runs/${n})`,
        '',
        `- **Status**: ${n % 3 === 0 ? '❌ Rejected' : '✅ Accepted'}`,
        `- **Change**: a change described in enough words to take some room, number ${n}`,
        `- **Metric**: ${(0.3 + n / 300).toFixed(4)}`,
        ''
      ].join('\n')
    })
    text = text.replace('*(No iterations yet.)*\n', history.join('\n'))
    const budget = 8192
    expect(Buffer.byteLength(text)).toBeGreaterThan(budget)
    await withFake(scenario(text), async (fake) => {
      const run = await record(fake, {
        outcome: 'accepted',
        metric: '0.51',
        'state-max-bytes': String(budget)
      })
      expect(run.outputs.status).toBe('recorded')
      const after = stateFileOf(fake, PROGRAM) as string
      expect(Buffer.byteLength(after)).toBeLessThanOrEqual(budget)
      expect(after).toContain('### Iteration 61 ')
      const ranges = after
        .split('\n')
        .map(parseRangeLine)
        .filter((r) => r !== null)
      expect(ranges.length).toBeGreaterThan(0)
      const kept = [...after.matchAll(/^### Iteration (\d+) /gm)].length
      expect(ranges.reduce((sum, r) => sum + r.entries, 0) + kept).toBe(61)
      expect(ranges.at(-1)?.from).toBe(1)
      // Machine State and the human sections are all still there.
      expect(schedulerReads(fake, PROGRAM).fields).toMatchObject({
        iteration_count: '61',
        best_metric: '0.51'
      })
      for (const heading of [
        '## 📋 Program Info',
        '## 🎯 Current Priorities',
        '## 📚 Lessons Learned'
      ])
        expect(after).toContain(heading)
      const reported = /The state file is (\d+) bytes \(budget 8192;/.exec(run.summary)
      expect(Number(reported?.[1])).toBe(Buffer.byteLength(after))
    })
  })

  it('a metric that is not a finite number is an error naming the input, before any request', async () => {
    await withFake(scenario(seeded({})), async (fake) => {
      const run = await record(fake, { outcome: 'accepted', metric: 'Infinity' })
      expect(run.exitCode).toBe(1)
      expect(run.outputs.status).toBe('error')
      expect(run.errors.join('\n')).toContain('input `metric`')
      expect(fake.requests).toEqual([])
    })
  })
})
