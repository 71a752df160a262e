import { describe, expect, it } from '@jest/globals'
import { latestAttempt, pausedSignatureOf } from '../../src/loop/ledger.js'
import { pauseInLedger } from '../../src/loop/pause.js'
import { pauseReason } from '../../src/loop/pause-reasons.js'
import { projectStateFile } from '../../src/state/projection.js'
import { readMachineState } from '../../src/state/machine-state.js'
import { createStateFile } from '../../src/state/template.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'
import { MINUTE, START, begin, fresh, redVerdict, sha, sig } from './helpers.js'

const text = createStateFile('perf', { machineState: { recentStatuses: ['accepted'] } })
const machine = readMachineState(text)
const now = START + 30 * MINUTE

function inFlight() {
  return begin(fresh(), { sha: sha(0), now: START }).ledger
}

describe('pauseInLedger', () => {
  it('settles the attempt, ends the iteration paused, remembers the signature and logs the rows', () => {
    const reason = pauseReason('stuck', sig('a').short)
    const ledger = pauseInLedger(inFlight(), machine, {
      index: 0,
      verdict: redVerdict(sig('a'), now),
      kind: 'stuck',
      reason,
      remember: sig('a'),
      now
    })
    expect(latestAttempt(ledger)).toMatchObject({
      state: 'red',
      signature: { hash: sig('a').hash }
    })
    expect(ledger.iteration).toMatchObject({
      outcome: 'paused',
      finishedAt: new Date(now).toISOString()
    })
    expect(pausedSignatureOf(ledger, sig('a').hash)).toMatchObject({
      reason,
      iterationId: ledger.iteration?.id
    })
    expect(ledger.writes).toEqual([
      {
        revision: 1,
        at: new Date(now).toISOString(),
        machineState: {
          paused: true,
          pauseReason: reason,
          recentStatuses: ['accepted', 'ci-fix-exhausted'],
          lastRun: new Date(now).toISOString()
        }
      }
    ])
    // Projected, the scheduler skips the program.
    const projected = projectStateFile(
      text,
      { ...ledger, revision: 1 },
      { program: 'perf', maxBytes: 30_720 }
    )
    expect(readLikeScheduler(projected)).toMatchObject({
      skipped: true,
      fields: {
        paused: 'true',
        pause_reason: reason,
        recent_statuses: 'accepted, ci-fix-exhausted'
      }
    })
    expect(projected).toContain(`⏸️ **Paused by the CI gate:** \`${reason}\``)
  })

  it('a pause that names no signature (blocked, timeout) remembers none and appends no status when not the fix loop', () => {
    const reason = pauseReason('blocked', 'no CI ran')
    const ledger = pauseInLedger(inFlight(), machine, {
      index: 0,
      verdict: { state: 'blocked', now, note: 'approve the runs' },
      kind: 'blocked',
      reason,
      remember: null,
      now
    })
    expect(ledger.pausedSignatures).toEqual([])
    expect(latestAttempt(ledger)).toMatchObject({ state: 'blocked', note: 'approve the runs' })
    expect(ledger.writes[0]?.machineState).toEqual({
      paused: true,
      pauseReason: reason,
      lastRun: new Date(now).toISOString()
    })
  })
})
