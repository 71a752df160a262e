import { describe, expect, it } from '@jest/globals'
import { PROGRAM, withFake } from '../helpers/fake-run.js'
import { beginAttempt, readLedger } from '../../src/loop/ledger.js'
import {
  ISSUE,
  STATE_BRANCH,
  commentsOn,
  runCommand,
  schedulerReads,
  stateFileOf,
  stateText
} from '../commands/lifecycle-helpers.js'

const SHA = 'c0ffee'.padEnd(40, '0')

describe('reset through dist/index.js against the fake API', () => {
  it('unpauses a paused program, clears its ledger, and says who and why on the issue', async () => {
    const ledger = beginAttempt(null, {
      sha: SHA,
      runId: 8000,
      now: Date.parse('2026-03-01T10:00:00Z')
    }).ledger
    const text = stateText(
      PROGRAM,
      {
        issue: ISSUE,
        paused: true,
        pauseReason: 'ci-fix-exhausted: tsc:TS2339:fromArrays:src/a.ts',
        consecutiveErrors: 2,
        recentStatuses: ['accepted', 'ci-fix-exhausted']
      },
      ledger
    )
    await withFake(
      { contents: { [STATE_BRANCH]: { [`${PROGRAM}.md`]: text } }, issues: [{ number: ISSUE }] },
      async (fake) => {
        const run = await runCommand(
          fake,
          { command: 'reset', program: PROGRAM, reason: 'fixed the flaky @team test by hand' },
          { GITHUB_ACTOR: 'octocat' }
        )
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
        expect(readLedger(stateFileOf(fake, PROGRAM) as string)).toBeNull()
        const reset = commentsOn(fake).find((c) =>
          c.startsWith('<!-- autoloop-ci-gate:reset 9000.1 -->')
        )
        expect(reset).toContain(`**Reset by:** [octocat](${fake.serverUrl}/octocat)`)
        expect(reset).toContain('fixed the flaky @\u200Dteam test by hand')
        expect(reset).toContain('ci-fix-exhausted: tsc:TS2339')
        expect(
          commentsOn(fake).some(
            (c) => c.includes('<!-- AUTOLOOP:STATUS -->') && c.includes('🟢 Active')
          )
        ).toBe(true)
      }
    )
  })

  it('changes nothing on a program that is not paused, and says so', async () => {
    const ledger = beginAttempt(null, {
      sha: SHA,
      runId: 8000,
      now: Date.parse('2026-03-01T10:00:00Z')
    }).ledger
    const text = stateText(PROGRAM, { issue: ISSUE, consecutiveErrors: 2 }, ledger)
    await withFake(
      { contents: { [STATE_BRANCH]: { [`${PROGRAM}.md`]: text } }, issues: [{ number: ISSUE }] },
      async (fake) => {
        const run = await runCommand(fake, {
          command: 'reset',
          program: PROGRAM,
          reason: 'just in case'
        })
        expect(run.exitCode).toBe(0)
        expect(run.outputs.status).toBe('skipped')
        expect(run.stdout).toContain(`Program ${PROGRAM} is not paused: reset changed nothing`)
        expect(run.summary).toContain('is not paused')
        expect(stateFileOf(fake, PROGRAM)).toBe(text)
        expect(fake.requests.filter((r) => r.method !== 'GET')).toEqual([])
        expect(commentsOn(fake)).toEqual([])
      }
    )
  })
})
