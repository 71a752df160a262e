import { describe, expect, it } from '@jest/globals'
import { pauseReason } from '../../src/core/rules/pause-reasons.js'
import type { ProgramOutcome } from '../../src/core/rules/reconcile.js'
import {
  actionWords,
  renderReconcileSummary,
  stateWord
} from '../../src/render/reconcile-summary.js'
import { readMachineState } from '../../src/statefile/machine-state.js'
import { createStateFile } from '../../src/statefile/template.js'
import { awaitingApproval } from '../core/ledger-helpers.js'

const blocked = awaitingApproval()

const idle: ProgramOutcome = {
  kind: 'reconciled',
  program: 'idle',
  state: 'active',
  happened: [],
  reprojected: false
}
const timedOut: ProgramOutcome = {
  kind: 'reconciled',
  program: 'late',
  state: 'active',
  happened: [
    { kind: 'abandoned', attempts: ['attempt 0 on abc1234 (run 77)'] },
    { kind: 'paused', reason: pauseReason('timeout'), why: 'wall clock spent', advice: null }
  ],
  reprojected: false
}
const approval: ProgramOutcome = {
  kind: 'reconciled',
  program: 'waits',
  state: 'active',
  happened: [
    {
      kind: 'paused',
      reason: pauseReason('blocked', blocked.cause),
      why: 'no fix could arrive',
      advice: blocked.advice
    }
  ],
  reprojected: false
}
const resumed: ProgramOutcome = {
  kind: 'reconciled',
  program: 'fixed',
  state: `paused: ${pauseReason('stuck', 'a')}`,
  happened: [{ kind: 'resumed', why: 'Every check on abc123456789 is green (2 counted)' }],
  reprojected: true
}
const leftAndProjected: ProgramOutcome = {
  kind: 'reconciled',
  program: 'manual',
  state: 'paused: manual',
  happened: [
    { kind: 'left-paused', why: 'not a CI pause (only reset lifts it)' },
    { kind: 'reprojected' }
  ],
  reprojected: true
}

describe('the reconcile summary, from what happened to each program', () => {
  it('what reconcile did, in order, in words; `none` for an idle program', () => {
    expect(actionWords(idle)).toBe('none')
    expect(actionWords(timedOut)).toBe(
      'marked attempt 0 on abc1234 (run 77) abandoned; paused: ci-timeout (wall clock spent)'
    )
    expect(actionWords(leftAndProjected)).toBe(
      'left paused: not a CI pause (only reset lifts it); projected the ledger into manual.md again (another writer had reverted it)'
    )
    expect(actionWords({ kind: 'deleted', program: 'gone' })).toBe('none: the file is gone')
    expect(
      actionWords({
        kind: 'reconciled',
        program: 'raced',
        state: 'active',
        happened: [{ kind: 'pause-changed' }],
        reprojected: false
      })
    ).toBe('none: the pause changed meanwhile')
  })

  it('counts, a row per program acted on (errors too), and the advice of a blocked pause', () => {
    const failed: ProgramOutcome = {
      kind: 'failed',
      program: 'broken',
      state: 'unreadable',
      reason: 'broken.md: the Machine State table is missing'
    }
    const summary = renderReconcileSummary(
      [
        idle,
        timedOut,
        approval,
        resumed,
        leftAndProjected,
        failed,
        { kind: 'deleted', program: 'gone' }
      ],
      'with git at 0123456789ab'
    )
    const lines = summary.split('\n')
    expect(lines[2]).toBe(
      '7 programs (read with git at 0123456789ab): 1 resumed, 1 with abandoned attempts, 2 projected again, 1 error, 1 idle.'
    )
    const rows = lines
      .filter((line) => line.startsWith('| '))
      .map((line) => line.split('|').map((cell) => cell.trim()))
    expect(rows.map((cells) => cells[1])).toEqual([
      'Program',
      '-------',
      'late',
      'waits',
      'fixed',
      'manual',
      'broken',
      'gone'
    ])
    expect(rows.find((cells) => cells[1] === 'broken')?.slice(2, 4)).toEqual([
      'unreadable',
      '⚠️ error: broken.md: the Machine State table is missing'
    ])
    expect(rows.find((cells) => cells[1] === 'gone')?.slice(2, 4)).toEqual([
      'deleted',
      'none: the file is gone'
    ])
    expect(lines.slice(-3)).toEqual(['', `**waits:** ${blocked.advice}`, ''])
  })

  it('one program, no errors: singular words, no table when nothing was done', () => {
    expect(renderReconcileSummary([idle], 'from the state branch')).toBe(
      '## autoloop-ci-gate: reconcile\n\n1 program (read from the state branch): 0 resumed, 0 with abandoned attempts, 0 projected again, 0 errors, 1 idle.\n\n'
    )
  })

  it('the state word of a program as found', () => {
    const active = readMachineState(createStateFile('perf'))
    expect(stateWord(active)).toBe('active')
    expect(stateWord({ ...active, paused: true, pauseReason: null })).toBe(
      'paused: no reason given'
    )
    expect(stateWord({ ...active, completed: true })).toBe('completed')
  })
})
