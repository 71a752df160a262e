/**
 * `reset` in-process against the fake API: it unpauses a program and ends the paused
 * iteration, but the failures the loop paused on stay in the ledger (a restart does not reset
 * stuck-detection) until `forget-failures: true` drops them.
 */
import { describe, expect, it } from '@jest/globals'
import type { CheckRunPlan, FakeGitHub, Scenario } from '../../__fixtures__/fake-github/index.js'
import { PROGRAM, withFake } from '../helpers/fake-run.js'
import { beginAttempt, emptyLedger, type Ledger } from '../../src/core/ledger.js'
import {
  ISSUE,
  STATE_BRANCH,
  commentsOn,
  gateCommit,
  ledgerOf,
  programFiles,
  runCommand,
  schedulerReads,
  stateFileOf
} from '../app/commands/lifecycle-helpers.js'

const sha = (n: number) => n.toString(16).padStart(2, '0').repeat(20)
const UNIT_FAILS = 'check:unit:failure'

function failing(commit: string, name = 'unit'): CheckRunPlan {
  return {
    sha: commit,
    name,
    timeline: [
      { at: 0, status: 'queued' },
      { at: 120, status: 'completed', conclusion: 'failure' }
    ]
  }
}

/** A ledger whose iteration's first attempt is in flight (run 8000, an hour ago). */
function openIteration(): Ledger {
  const at = Date.parse('2026-03-01T10:00:00Z')
  return beginAttempt(emptyLedger(PROGRAM, at), {
    sha: sha(9),
    runId: 8000,
    now: at,
    maxFixAttempts: 5,
    timeoutMinutes: 60
  }).ledger
}

function scenario(files: Record<string, string>, checkRuns: CheckRunPlan[] = []): Scenario {
  return {
    contents: { [STATE_BRANCH]: files },
    issues: [{ number: ISSUE, labels: ['autoloop-program'] }],
    checkRuns
  }
}

/** Two red gates with the same failure: the gate pauses the program as stuck on it. */
async function stuckOnUnit(fake: FakeGitHub): Promise<void> {
  expect((await gateCommit(fake, PROGRAM, sha(1), 701)).outputs.status).toBe('failure')
  const stuck = await gateCommit(fake, PROGRAM, sha(2), 702)
  expect(stuck.outputs).toMatchObject({
    status: 'paused',
    'pause-reason': `stuck in CI fix loop: ${UNIT_FAILS}`
  })
}

function reset(fake: FakeGitHub, inputs: Record<string, string> = {}) {
  return runCommand(
    fake,
    { command: 'reset', program: PROGRAM, reason: 'fixed the flaky @team test by hand', ...inputs },
    { GITHUB_RUN_ID: '8100', GITHUB_ACTOR: 'octocat' }
  )
}

describe('reset, in-process against the fake API', () => {
  it('unpauses a paused program, ends its iteration, and says who and why on the issue', async () => {
    // An iteration still open when a maintainer paused the program by hand.
    const ledger = openIteration()
    const files = programFiles(
      PROGRAM,
      {
        issue: ISSUE,
        paused: true,
        pauseReason: 'manual',
        consecutiveErrors: 2,
        recentStatuses: ['accepted', 'ci-fix-exhausted']
      },
      ledger
    )
    await withFake(scenario(files), async (fake) => {
      const run = await reset(fake)
      expect(run.exitCode).toBe(0)
      expect(run.outputs.status).toBe('reset')
      expect(schedulerReads(fake, PROGRAM)).toMatchObject({
        skipped: false,
        fields: {
          paused: 'false',
          pause_reason: null,
          consecutive_errors: '0',
          recent_statuses: 'accepted, ci-fix-exhausted'
        }
      })
      const after = ledgerOf(fake, PROGRAM)
      expect(after?.iteration).toMatchObject({ outcome: 'reset' })
      expect(after?.iteration?.finishedAt).not.toBeNull()
      expect(after?.pausedSignatures).toEqual([])
      const comment = commentsOn(fake).find((c) =>
        c.startsWith('<!-- autoloop-ci-gate:reset 8100 -->')
      )
      expect(comment).toContain(`**Reset by:** [octocat](${fake.serverUrl}/octocat)`)
      expect(comment).toContain('fixed the flaky @\u200Dteam test by hand')
      expect(comment).toContain('**It was paused for:** `manual`')
      expect(comment).not.toContain('Still remembered')
      expect(
        commentsOn(fake).filter(
          (c) => c.includes('<!-- AUTOLOOP:STATUS -->') && c.includes('🟢 Active')
        )
      ).toHaveLength(1)
    })
  })

  it('keeps the failure the loop stuck on: the same failure after the reset pauses at once', async () => {
    await withFake(
      scenario({}, [failing(sha(1)), failing(sha(2)), failing(sha(3))]),
      async (fake) => {
        await stuckOnUnit(fake)
        const run = await reset(fake)
        expect(run.outputs.status).toBe('reset')
        expect(schedulerReads(fake, PROGRAM).fields).toMatchObject({
          paused: 'false',
          pause_reason: null
        })
        const remembered = ledgerOf(fake, PROGRAM)?.pausedSignatures
        expect(remembered).toEqual([
          expect.objectContaining({
            short: UNIT_FAILS,
            reason: `stuck in CI fix loop: ${UNIT_FAILS}`,
            resetBy: 'octocat'
          })
        ])
        const resetAt = Date.parse(remembered?.[0]?.resetAt ?? '')
        expect(resetAt).toBeGreaterThanOrEqual(Date.parse(remembered?.[0]?.pausedAt ?? ''))
        const comment = commentsOn(fake).find((c) => c.includes('autoloop-ci-gate:reset 8100'))
        expect(comment).toContain('**Still remembered:**')
        expect(comment).toContain(`\`${UNIT_FAILS}\``)
        expect(comment).toContain('`forget-failures: true`')

        // A new iteration whose first gate fails the same way: no new budget is spent on it.
        const again = await gateCommit(fake, PROGRAM, sha(3), 703)
        expect(again.outputs).toMatchObject({
          status: 'paused',
          attempt: '0',
          'pause-reason': `stuck in CI fix loop: ${UNIT_FAILS}`
        })
        const ledger = ledgerOf(fake, PROGRAM)
        expect(ledger?.attempts.map((a) => [a.index, a.sha, a.state])).toEqual([[0, sha(3), 'red']])
        const pause = commentsOn(fake).filter((c) => c.startsWith('<!-- autoloop-ci-gate:pause'))
        // One pause comment per iteration: the first stuck one and this one.
        expect(pause).toHaveLength(2)
        expect(pause[1]).toContain('**This failure stuck the loop before:**')
        expect(pause[1]).toMatch(/It was reset at \S+ by octocat without fixing the cause/)
      }
    )
  })

  it('forget-failures: true drops what the loop stuck on: the same failure gets a budget again', async () => {
    await withFake(
      scenario({}, [failing(sha(1)), failing(sha(2)), failing(sha(3))]),
      async (fake) => {
        await stuckOnUnit(fake)
        const run = await reset(fake, { 'forget-failures': 'true' })
        expect(run.outputs.status).toBe('reset')
        expect(ledgerOf(fake, PROGRAM)?.pausedSignatures).toEqual([])
        const comment = commentsOn(fake).find((c) => c.includes('autoloop-ci-gate:reset 8100'))
        expect(comment).toContain('The 1 failure(s) the loop had paused on are forgotten')
        const again = await gateCommit(fake, PROGRAM, sha(3), 703)
        expect(again.outputs).toMatchObject({ status: 'failure', attempt: '0' })
      }
    )
  })

  it('changes nothing on a program that is not paused, and says so', async () => {
    const files = programFiles(PROGRAM, { issue: ISSUE, consecutiveErrors: 2 }, openIteration())
    await withFake(scenario(files), async (fake) => {
      const run = await reset(fake)
      expect(run.exitCode).toBe(0)
      expect(run.outputs.status).toBe('skipped')
      expect(run.summary).toContain('is not paused')
      expect(stateFileOf(fake, PROGRAM)).toBe(files[`${PROGRAM}.md`])
      expect(fake.writeRequests()).toEqual([])
      expect(commentsOn(fake)).toEqual([])
    })
  })
})
