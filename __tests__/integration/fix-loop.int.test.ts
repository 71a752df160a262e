/**
 * The bounded fix loop, the action run in-process against the fake API: attempts counted
 * across workflow runs, the three guards, a re-run of a run against a new run on the same
 * commit, pauses in the state file, the ledger and on the program issue; `fix-command`
 * running the whole loop in one step.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { CheckRunPlan, FakeGitHub, Scenario } from '../../__fixtures__/fake-github/index.js'
import { BRANCH, PROGRAM, withFake } from '../helpers/fake-run.js'
import { runInProcess, type InProcessRun } from '../helpers/in-process.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'
import { createLocalRepo } from '../helpers/git-repo.js'
import { tempDir } from '../helpers/temp-dir.js'
import { ledgerPath, type Ledger } from '../../src/core/ledger.js'
import { parseLedgerFile } from '../../src/statefile/ledger-file.js'
import { ledgerOf, stateFileOf } from '../app/commands/lifecycle-helpers.js'

const CORPUS = resolve(import.meta.dirname, '../../__fixtures__/corpus')
const ISSUE = 12
const sha = (n: number) => n.toString(16).padStart(2, '0').repeat(20)

/** A check on `sha` that fails after `seconds`, with an optional job log. */
function failing(commit: string, name: string, seconds = 300, log?: string): CheckRunPlan {
  return {
    sha: commit,
    name,
    timeline: [
      { at: 0, status: 'queued' },
      { at: seconds, status: 'completed', conclusion: 'failure' }
    ],
    ...(log ? { log: { file: join(CORPUS, log) } } : {})
  }
}
function passing(commit: string, name: string, seconds = 300): CheckRunPlan {
  return {
    sha: commit,
    name,
    timeline: [
      { at: 0, status: 'queued' },
      { at: seconds, status: 'completed', conclusion: 'success' }
    ]
  }
}

interface Loop {
  fake: FakeGitHub
  stateDir: string
  /** A gate of `commit` in a new workflow run (or in run `runId`, attempt `runAttempt`). */
  gate(
    commit: string,
    inputs?: Record<string, string>,
    run?: { runId: number; runAttempt: number }
  ): Promise<InProcessRun>
  stateText(): string
  ledger(): Ledger
}

function stateFileWith(lines: string[], eol = '\n'): string {
  return lines.join(eol)
}

async function withLoop(
  scenario: Scenario,
  body: (loop: Loop) => Promise<void>,
  initialState?: string
): Promise<void> {
  const stateDir = tempDir('autoloop-loop-')
  if (initialState !== undefined) writeFileSync(join(stateDir, `${PROGRAM}.md`), initialState)
  await withFake(
    { issues: [{ number: ISSUE, labels: ['autoloop-program'] }], ...scenario },
    async (fake) => {
      let nextRunId = 500
      await body({
        fake,
        stateDir,
        gate: (commit, inputs = {}, run) => {
          fake.setBranch(BRANCH, commit)
          const runId = run?.runId ?? ++nextRunId
          return runInProcess(fake, {
            inputs: {
              program: PROGRAM,
              push: 'false',
              sha: commit,
              'state-dir': stateDir,
              issue: String(ISSUE),
              ...inputs
            },
            env: { GITHUB_RUN_ID: String(runId), GITHUB_RUN_ATTEMPT: String(run?.runAttempt ?? 1) }
          })
        },
        stateText: () => readFileSync(join(stateDir, `${PROGRAM}.md`), 'utf8'),
        ledger: () =>
          parseLedgerFile(
            readFileSync(join(stateDir, ledgerPath(PROGRAM)), 'utf8'),
            ledgerPath(PROGRAM)
          )
      })
    }
  )
}

function comments(fake: FakeGitHub): string[] {
  return fake.state.comments.filter((c) => c.issue === ISSUE).map((c) => c.body)
}

describe('the fix loop, in-process against the fake API', () => {
  it('counts attempts across workflow runs and pauses at the budget (ci-fix-exhausted)', async () => {
    const scenario = {
      checkRuns: [failing(sha(1), 'unit'), failing(sha(2), 'lint'), failing(sha(3), 'e2e')]
    }
    await withLoop(scenario, async ({ fake, gate, stateText, ledger }) => {
      const first = await gate(sha(1), { 'max-fix-attempts': '2' })
      expect(first.outputs).toMatchObject({
        status: 'failure',
        verdict: 'red',
        attempt: '0',
        'attempts-remaining': '2'
      })
      expect(first.outputs.signature).toBe('check:unit:failure')
      const second = await gate(sha(2), { 'max-fix-attempts': '2' })
      expect(second.outputs).toMatchObject({
        status: 'failure',
        attempt: '1',
        'attempts-remaining': '1'
      })
      const third = await gate(sha(3), { 'max-fix-attempts': '2' })
      expect(third.outputs).toMatchObject({
        status: 'paused',
        attempt: '2',
        'pause-reason': 'ci-fix-exhausted: check:e2e:failure'
      })

      const read = readLikeScheduler(stateText())
      expect(read.skipped).toBe(true)
      expect(read.fields).toMatchObject({
        paused: 'true',
        pause_reason: 'ci-fix-exhausted: check:e2e:failure'
      })
      expect(
        read.fields.recent_statuses
          ?.split(',')
          .map((s) => s.trim())
          .at(-1)
      ).toBe('ci-fix-exhausted')
      expect(read.fields.last_run).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
      // The ledger: three red attempts, one per run, the iteration paused, the signature kept.
      const kept = ledger()
      expect(kept.attempts.map((a) => [a.index, a.sha, a.runId, a.state])).toEqual([
        [0, sha(1), 501, 'red'],
        [1, sha(2), 502, 'red'],
        [2, sha(3), 503, 'red']
      ])
      expect(kept.iteration).toMatchObject({ outcome: 'paused', maxFixAttempts: 2 })
      expect(kept.pausedSignatures.map((p) => p.short)).toEqual(['check:e2e:failure'])
      // The state file points at the ledger and tells why the loop stopped.
      const gateSection = stateText().slice(stateText().indexOf('## 🚦 CI Gate'))
      expect(gateSection).toContain(
        `ci-gate:ledger ${ledgerPath(PROGRAM)} revision ${kept.revision}`
      )
      expect(gateSection).toContain('ci-fix-exhausted: check:e2e:failure')

      const bodies = comments(fake)
      expect(bodies.filter((b) => b.includes('<!-- AUTOLOOP:STATUS -->'))).toHaveLength(1)
      const pause = bodies.filter((b) => b.startsWith('<!-- autoloop-ci-gate:pause'))
      expect(pause).toHaveLength(1)
      expect(pause[0]).toContain('ci-fix-exhausted')
      expect(pause[0]).toContain('Attempt 0')
      expect(pause[0]).toContain('Attempt 2')
      expect(pause[0]).toContain('How to resume')

      // A paused program is skipped: no push, no waiting.
      const fourth = await gate(sha(4))
      expect(fourth.outputs.status).toBe('skipped')
      expect(fake.requests.filter((r) => r.path.includes(sha(4)))).toEqual([])
    })
  })

  it('pauses when the same failure comes back (no progress), and on A→B→A', async () => {
    await withLoop(
      { checkRuns: [failing(sha(1), 'unit'), failing(sha(2), 'unit')] },
      async ({ gate }) => {
        await gate(sha(1))
        const again = await gate(sha(2))
        expect(again.outputs).toMatchObject({
          status: 'paused',
          'pause-reason': 'stuck in CI fix loop: check:unit:failure'
        })
      }
    )
    await withLoop(
      { checkRuns: [failing(sha(1), 'unit'), failing(sha(2), 'lint'), failing(sha(3), 'unit')] },
      async ({ gate }) => {
        await gate(sha(1))
        expect((await gate(sha(2))).outputs.status).toBe('failure')
        const back = await gate(sha(3))
        expect(back.outputs).toMatchObject({
          status: 'paused',
          attempt: '2',
          'pause-reason': 'stuck in CI fix loop: check:unit:failure'
        })
      }
    )
  })

  it('the wall clock counts the time between workflow runs (ci-timeout)', async () => {
    await withLoop(
      { checkRuns: [failing(sha(1), 'unit', 600), failing(sha(2), 'lint', 600)] },
      async ({ fake, gate }) => {
        const first = await gate(sha(1), { 'timeout-minutes': '30' })
        expect(first.outputs.status).toBe('failure')
        fake.advance(25 * 60_000) // the agent works on a fix for 25 minutes
        const second = await gate(sha(2), { 'timeout-minutes': '30' })
        expect(second.outputs).toMatchObject({ status: 'paused', 'pause-reason': 'ci-timeout' })
      }
    )
  })

  it('cuts a wait short at the iteration cap', async () => {
    await withLoop(
      { checkRuns: [failing(sha(1), 'unit', 600), passing(sha(2), 'slow', 99_999)] },
      async ({ fake, gate }) => {
        await gate(sha(1), { 'timeout-minutes': '30' })
        const started = fake.now()
        const second = await gate(sha(2), { 'timeout-minutes': '30' })
        expect(second.outputs).toMatchObject({
          status: 'paused',
          verdict: 'ci-timeout',
          'pause-reason': 'ci-timeout'
        })
        // The first attempt took ~10 minutes; the second waited only for the rest of the 30.
        expect(fake.now() - started).toBeLessThanOrEqual(21 * 60_000)
      }
    )
  })

  it('a re-run of the same workflow run re-uses its attempt: it is never counted twice', async () => {
    await withLoop(
      { checkRuns: [failing(sha(1), 'unit'), failing(sha(2), 'lint')] },
      async ({ gate, ledger }) => {
        const first = await gate(sha(1), {}, { runId: 600, runAttempt: 1 })
        expect(first.outputs).toMatchObject({ status: 'failure', attempt: '0' })
        const rerun = await gate(sha(1), {}, { runId: 600, runAttempt: 2 })
        expect(rerun.outputs).toMatchObject({
          status: 'failure',
          attempt: '0',
          'attempts-remaining': '5'
        })
        expect(ledger().attempts.map((a) => [a.index, a.runId, a.runAttempt, a.state])).toEqual([
          [0, 600, 2, 'red']
        ])
        // A re-gate is not "the same failure again": the next commit is fix 1.
        const next = await gate(sha(2), {}, { runId: 601, runAttempt: 1 })
        expect(next.outputs).toMatchObject({ status: 'failure', attempt: '1' })
      }
    )
  })

  it('the same red commit gated by another workflow run: the fixer pushed nothing, stuck at once', async () => {
    await withLoop({ checkRuns: [failing(sha(1), 'unit')] }, async ({ fake, gate, ledger }) => {
      const first = await gate(sha(1))
      expect(first.outputs).toMatchObject({ status: 'failure', attempt: '0' })
      const polled = fake.requests.filter((r) => r.route?.endsWith('/check-runs')).length
      const again = await gate(sha(1))
      expect(again.outputs).toMatchObject({
        status: 'paused',
        verdict: 'red',
        attempt: '1',
        'pause-reason': 'stuck in CI fix loop: check:unit:failure'
      })
      // Nothing new to wait for: the second run judged the commit from the ledger.
      expect(fake.requests.filter((r) => r.route?.endsWith('/check-runs')).length).toBe(polled)
      const attempts = ledger().attempts
      expect(attempts.map((a) => [a.index, a.sha, a.runId, a.state])).toEqual([
        [0, sha(1), 501, 'red'],
        [1, sha(1), 502, 'red']
      ])
      expect(attempts[1]?.noNewCommit).toBe(true)
      expect(attempts[1]?.signature?.hash).toBe(attempts[0]?.signature?.hash)
    })
  })

  it('fills signature and failure summary from the job log on every red verdict', async () => {
    const scenario = {
      checkRuns: [
        failing(sha(1), 'test', 300, 'jest/assertion/in-band.txt'),
        failing(sha(2), 'test', 300, 'jest/type-error/in-band.txt')
      ]
    }
    await withLoop(scenario, async ({ gate }) => {
      const first = await gate(sha(1))
      expect(first.outputs.signature).toMatch(/^jest:/)
      expect(first.outputs['failure-summary']).toContain(first.outputs.signature?.split('; ')[0])
      const path = first.outputs['failure-summary-path'] ?? ''
      expect(existsSync(path)).toBe(true)
      const json = JSON.parse(readFileSync(path, 'utf8')) as {
        version: number
        signature: { full: string }
        checks: Array<{ source: string }>
      }
      expect(json.version).toBe(2)
      expect(json.signature.full).toBe(first.outputs.signature)
      expect(json.checks[0]?.source).toBe('log')
      const second = await gate(sha(2))
      expect(second.outputs.signature).not.toBe(first.outputs.signature)
      const summary = JSON.parse(
        readFileSync(second.outputs['failure-summary-path'] ?? '', 'utf8')
      ) as { changes: { fixed: string[]; new: string[] } }
      expect(summary.changes.fixed.length).toBeGreaterThan(0)
      expect(summary.changes.new.length).toBeGreaterThan(0)
    })
  })

  it('keeps every byte of a CRLF, human-edited state file outside what it owns', async () => {
    const human = stateFileWith(
      [
        '# Autoloop: perf',
        '',
        '> 🤖 Maintained by automation; maintainers may edit any section.',
        '',
        '---',
        '',
        '## ⚙️ Machine State',
        '',
        '| Field | Value |',
        '|-------|-------|',
        '| Last Run | 2026-01-01T00:00:00Z |',
        '| Iteration Count | 4 |',
        '| Best Metric | 0.91 |',
        '| Owner Note | keep this row |',
        '| Paused | false |',
        '| Pause Reason | — |',
        '| Recent Statuses | accepted, rejected |',
        '',
        '---',
        '',
        '## 📚 Lessons Learned',
        '',
        '- A | pipe in prose, `code`, and an emoji 🧪 stay as they are.',
        '',
        'trailing text without a final newline'
      ],
      '\r\n'
    )
    await withLoop(
      { checkRuns: [failing(sha(1), 'unit'), failing(sha(2), 'unit')] },
      async ({ gate, stateText }) => {
        await gate(sha(1))
        await gate(sha(2))
        const after = stateText()
        expect(after.split('\r\n').join('').includes('\n')).toBe(false)
        expect(after).toContain('| Owner Note | keep this row |\r\n')
        expect(after).toContain(
          '## 📚 Lessons Learned\r\n\r\n- A | pipe in prose, `code`, and an emoji 🧪 stay as they are.\r\n'
        )
        expect(after.endsWith('trailing text without a final newline')).toBe(true)
        expect(after).toContain('| Iteration Count | 4 |')
        expect(readLikeScheduler(after).fields).toMatchObject({
          paused: 'true',
          owner_note: 'keep this row',
          iteration_count: '4'
        })
      },
      human
    )
  })

  it('a malformed state file is never overwritten: the error quotes the line', async () => {
    const broken = [
      '# Autoloop: perf',
      '',
      '## ⚙️ Machine State',
      '',
      '| Field | Value |',
      '|---|---|',
      '| Paused | maybe |',
      ''
    ].join('\n')
    await withLoop(
      { checkRuns: [failing(sha(1), 'unit')] },
      async ({ fake, gate, stateText, stateDir }) => {
        const run = await gate(sha(1))
        expect(run.exitCode).toBe(1)
        expect(run.errors.join('\n')).toContain('| Paused | maybe |')
        expect(stateText()).toBe(broken)
        expect(existsSync(join(stateDir, ledgerPath(PROGRAM)))).toBe(false)
        // Stopped before anything else: no PR opened, no checks waited on.
        expect(fake.writeRequests()).toEqual([])
      },
      broken
    )
  })

  it('writes the state branch and survives a conflict on the first write (the branch moved)', async () => {
    await withFake(
      {
        issues: [{ number: ISSUE }],
        branches: { [BRANCH]: sha(1) },
        contents: { 'memory/autoloop': {} },
        checkRuns: [failing(sha(1), 'unit'), failing(sha(2), 'unit')],
        // The first commit (after the read) finds the branch moved.
        faults: [{ kind: 'stale-head', afterRequests: 1, count: 1 }]
      },
      async (fake) => {
        const first = await runInProcess(fake, {
          inputs: { program: PROGRAM, push: 'false', sha: sha(1) },
          env: { GITHUB_RUN_ID: '701' }
        })
        expect(first.outputs).toMatchObject({ status: 'failure', attempt: '0' })
        expect(fake.requests.filter((r) => r.fault === 'stale-head')).toHaveLength(1)
        fake.setBranch(BRANCH, sha(2))
        const second = await runInProcess(fake, {
          inputs: { program: PROGRAM, push: 'false', sha: sha(2) },
          env: { GITHUB_RUN_ID: '702' }
        })
        expect(second.outputs).toMatchObject({ status: 'paused', attempt: '1' })
        expect(readLikeScheduler(stateFileOf(fake, PROGRAM) as string).fields).toMatchObject({
          paused: 'true',
          pause_reason: 'stuck in CI fix loop: check:unit:failure'
        })
        expect(ledgerOf(fake, PROGRAM)?.attempts.map((a) => a.state)).toEqual(['red', 'red'])
      }
    )
  })
})

describe('fix-command: one step runs the whole loop', () => {
  const plan = (head: number, name: string, conclusion: 'success' | 'failure'): CheckRunPlan => ({
    branch: BRANCH,
    head,
    name,
    timeline: [
      { at: 0, status: 'queued' },
      { at: 240, status: 'completed', conclusion }
    ]
  })

  it('fixes on the second try and ends green', async () => {
    const repo = createLocalRepo(BRANCH)
    repo.commit('value.txt', '0\n', 'iteration')
    const stateDir = tempDir('autoloop-fix-')
    const fix =
      'echo "$AUTOLOOP_ATTEMPT" >> value.txt && test -s "$AUTOLOOP_FAILURE_JSON" && git -c user.name=fixer -c user.email=fixer@autoloop.invalid commit -qam "fix $AUTOLOOP_ATTEMPT"'
    await withFake(
      {
        gitDir: repo.bare,
        checkRuns: [
          plan(1, 'unit', 'failure'),
          plan(2, 'lint', 'failure'),
          plan(3, 'unit', 'success'),
          plan(3, 'lint', 'success')
        ]
      },
      async (fake) => {
        const run = await runInProcess(fake, {
          inputs: { program: PROGRAM, 'state-dir': stateDir, 'fix-command': fix },
          cwd: repo.work
        })
        expect(run.outputs).toMatchObject({ status: 'success', verdict: 'green', attempt: '2' })
        expect(fake.headsOf(BRANCH)).toHaveLength(3)
        expect(readFileSync(join(repo.work, 'value.txt'), 'utf8')).toBe('0\n1\n2\n')
        expect(run.summary).toContain('**Attempts in this step** (fix-command)')
        expect(run.summary).toMatch(/\| 0 +\| `[0-9a-f]{12}` \| red +\| check:unit:failure/)
        expect(run.summary).toMatch(/\| 2 +\| `[0-9a-f]{12}` \| green +\| — /)
        const ledger = parseLedgerFile(
          readFileSync(join(stateDir, ledgerPath(PROGRAM)), 'utf8'),
          ledgerPath(PROGRAM)
        )
        expect(ledger.attempts.map((a) => [a.index, a.sha, a.state])).toEqual(
          fake.headsOf(BRANCH).map((head, i) => [i, head, i < 2 ? 'red' : 'green'])
        )
        expect(ledger.iteration?.outcome).toBe('green')
      }
    )
  })

  it('a fix command that commits nothing is stuck at once', async () => {
    const repo = createLocalRepo(BRANCH)
    repo.commit('value.txt', '0\n', 'iteration')
    const stateDir = tempDir('autoloop-fix-')
    const seen = join(tempDir('autoloop-fix-seen-'), 'signature')
    await withFake({ gitDir: repo.bare, checkRuns: [plan(1, 'unit', 'failure')] }, async (fake) => {
      const run = await runInProcess(fake, {
        inputs: {
          program: PROGRAM,
          'state-dir': stateDir,
          'fix-command': `echo "$AUTOLOOP_SIGNATURE" > '${seen}'`
        },
        cwd: repo.work
      })
      expect(run.outputs).toMatchObject({
        status: 'paused',
        'pause-reason': 'stuck in CI fix loop: check:unit:failure'
      })
      expect(readFileSync(seen, 'utf8')).toBe('check:unit:failure\n') // it ran, and looked
      expect(fake.headsOf(BRANCH)).toHaveLength(1)
    })
  })
})
