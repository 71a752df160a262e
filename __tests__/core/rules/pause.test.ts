import { describe, expect, it } from '@jest/globals'
import {
  latestAttempt,
  pausedSignatureOf,
  serializeLedger,
  withStateWrite
} from '../../../src/core/ledger.js'
import { parseLedgerFile } from '../../../src/statefile/ledger-file.js'
import { pauseInLedger, pauseKindIn } from '../../../src/core/rules/pause.js'
import { pauseReason } from '../../../src/core/rules/pause-reasons.js'
import { projectStateFile } from '../../../src/statefile/projection.js'
import { readMachineState } from '../../../src/statefile/machine-state.js'
import { createStateFile } from '../../../src/statefile/template.js'
import { readLikeScheduler } from '../../helpers/scheduler-rule.js'
import { MINUTE, START, begin, fresh, redVerdict, sha, sig } from '../ledger-helpers.js'

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
        },
        pauseKind: 'stuck'
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

describe('pauseKindIn: the kind stored with the pause, not read back from its text', () => {
  const reason = pauseReason('base-red', 'jest:tests/a.test.ts>fails')
  const paused = pauseInLedger(inFlight(), machine, {
    index: 0,
    verdict: redVerdict(sig('a'), now),
    kind: 'base-red',
    reason,
    remember: null,
    now
  })

  it('the kind the pause stored, while Machine State shows its reason', () => {
    expect(pauseKindIn(paused, { paused: true, pauseReason: reason })).toBe('base-red')
    expect(pauseKindIn(paused, { paused: false, pauseReason: reason })).toBeNull()
  })

  it('the stored kind wins over what the reason text would say', () => {
    // A reason whose text names no kind at all: only the stored kind tells it.
    const plain = withStateWrite(
      inFlight(),
      { machineState: { paused: true, pauseReason: 'base branch red' }, pauseKind: 'base-red' },
      now
    )
    expect(pauseKindIn(plain, { paused: true, pauseReason: 'base branch red' })).toBe('base-red')
  })

  it('a reason the ledger did not write (a maintainer’s, autoloop’s own) is read from its text', () => {
    expect(pauseKindIn(paused, { paused: true, pauseReason: 'manual hold' })).toBeNull()
    expect(pauseKindIn(paused, { paused: true, pauseReason: 'consecutive errors: 3' })).toBe(
      'consecutive-errors'
    )
  })

  it('a ledger written before the kind was stored: derived once on read, then stored', () => {
    const old = {
      ...paused,
      writes: paused.writes.map(({ pauseKind: _kind, ...write }) => write)
    }
    const text = serializeLedger(old)
    expect(text).not.toContain('pauseKind')
    const read = parseLedgerFile(text, 'ci-gate/perf.json')
    expect(read.writes.map((w) => w.pauseKind)).toEqual(['base-red'])
    expect(serializeLedger(read)).toContain('"pauseKind": "base-red"')
  })
})
