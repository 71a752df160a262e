/**
 * `reset` in-process against the fake API: it unpauses a program and ends the paused
 * iteration. The failures the loop paused on stay in the ledger (a restart does not reset
 * stuck-detection) until `forget-failures: true` drops them: reset-memory.int.test.ts runs
 * that through gh-aw's flow, and the gate's decision table (gate/decide.test.ts) states it.
 */
import { describe, expect, it } from '@jest/globals'
import type { FakeGitHub, Scenario } from '../../__fixtures__/fake-github/index.js'
import { PROGRAM, withFake } from '../helpers/fake-run.js'
import { beginAttempt, emptyLedger, type Ledger } from '../../src/core/ledger.js'
import {
  ISSUE,
  STATE_BRANCH,
  commentsOn,
  ledgerOf,
  programFiles,
  runCommand,
  schedulerReads,
  stateFileOf
} from '../app/commands/lifecycle-helpers.js'

const sha = (n: number) => n.toString(16).padStart(2, '0').repeat(20)
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

function scenario(files: Record<string, string>): Scenario {
  return {
    contents: { [STATE_BRANCH]: files },
    issues: [{ number: ISSUE, labels: ['autoloop-program'] }]
  }
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
