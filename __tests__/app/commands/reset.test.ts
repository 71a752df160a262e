import { describe, expect, it } from '@jest/globals'
import { applyReset, renderResetComment } from '../../../src/app/reset.js'
import { commentMarker } from '../../../src/render/comments.js'
import { decideAfterRed } from '../../../src/core/rules/guard.js'
import { finishIteration, rememberPausedSignature, type Ledger } from '../../../src/core/ledger.js'
import { pauseReason } from '../../../src/core/rules/pause-reasons.js'
import { readMachineState } from '../../../src/statefile/machine-state.js'
import { projectStateFile } from '../../../src/statefile/projection.js'
import type { MachineStatePatch } from '../../../src/core/schema.js'
import { createStateFile } from '../../../src/statefile/template.js'
import { readLikeScheduler } from '../../helpers/scheduler-rule.js'
import { MINUTE, START, begin, redAttempts, sha, sig } from '../../core/ledger-helpers.js'

const NOW = START + 24 * 60 * MINUTE
const REASON = pauseReason('stuck', sig('a').short)

/** An iteration stuck on `a`: two red attempts, the pause written, the signature remembered. */
function stuck(): Ledger {
  let ledger = redAttempts([sig('a'), sig('a')])
  ledger = finishIteration(ledger, 'paused', START + 10 * MINUTE)
  return rememberPausedSignature(ledger, {
    signature: sig('a'),
    reason: REASON,
    now: START + 10 * MINUTE
  })
}

function machine(patch: MachineStatePatch) {
  return readMachineState(createStateFile('perf', { machineState: patch }))
}

const paused = machine({
  paused: true,
  pauseReason: REASON,
  consecutiveErrors: 2,
  recentStatuses: ['accepted', 'ci-fix-exhausted']
})

describe('applyReset', () => {
  it('unpauses, ends the iteration and zeroes consecutive errors; the paused signatures are remembered, marked reset', () => {
    const { ledger, outcome } = applyReset(
      { machine: paused, ledger: stuck() },
      { now: NOW, actor: 'octocat', forgetFailures: false }
    )
    expect(outcome).toMatchObject({ status: 'reset', clearedReason: REASON, forgotten: 0 })
    expect(outcome.remembered).toEqual([
      expect.objectContaining({
        hash: sig('a').hash.slice(0, 16),
        resetAt: new Date(NOW).toISOString(),
        resetBy: 'octocat'
      })
    ])
    expect(ledger.pausedSignatures).toEqual(outcome.remembered)
    expect(ledger.iteration?.outcome).toBe('reset')
    expect(ledger.writes.at(-1)?.machineState).toEqual({
      paused: false,
      pauseReason: null,
      consecutiveErrors: 0
    })
    // Projected: the scheduler runs the program again; Recent Statuses are left as they were.
    const text = projectStateFile(
      createStateFile('perf', {
        machineState: {
          paused: true,
          pauseReason: REASON,
          recentStatuses: ['accepted', 'ci-fix-exhausted']
        }
      }),
      { ...ledger, revision: ledger.revision + 1 },
      { program: 'perf', maxBytes: 30_720 }
    )
    expect(readLikeScheduler(text)).toMatchObject({
      skipped: false,
      fields: {
        paused: 'false',
        pause_reason: null,
        consecutive_errors: '0',
        recent_statuses: 'accepted, ci-fix-exhausted'
      }
    })
    expect(text).toContain('▶️ **Reset by a maintainer:**')
  })

  it('the next gate starts a fresh iteration, and the same failure pauses it at once', () => {
    const { ledger } = applyReset(
      { machine: paused, ledger: stuck() },
      { now: NOW, actor: null, forgetFailures: false }
    )
    const began = begin(ledger, { sha: sha(9), runId: 500, now: NOW + MINUTE })
    expect(began).toMatchObject({ kind: 'first', attempt: { index: 0 } })
    expect(
      decideAfterRed(began.ledger, { index: 0, signature: sig('a'), now: NOW + 2 * MINUTE })
    ).toMatchObject({
      kind: 'pause',
      pauseKind: 'stuck',
      remembered: { resetBy: null }
    })
    expect(
      decideAfterRed(began.ledger, { index: 0, signature: sig('b'), now: NOW + 2 * MINUTE })
    ).toEqual({
      kind: 'fix',
      attemptsRemaining: 5
    })
  })

  it('a second reset keeps the first reset’s time and actor for failures already reset', () => {
    const first = applyReset(
      { machine: paused, ledger: stuck() },
      { now: NOW, actor: 'a', forgetFailures: false }
    )
    const second = applyReset(
      { machine: paused, ledger: first.ledger },
      { now: NOW + 60 * MINUTE, actor: 'b', forgetFailures: false }
    )
    expect(second.outcome.remembered[0]).toMatchObject({
      resetAt: new Date(NOW).toISOString(),
      resetBy: 'a'
    })
  })

  it('forget-failures: true forgets them (the cause was fixed by hand)', () => {
    const { ledger, outcome } = applyReset(
      { machine: paused, ledger: stuck() },
      { now: NOW, actor: 'octocat', forgetFailures: true }
    )
    expect(outcome).toMatchObject({ status: 'reset', remembered: [], forgotten: 1 })
    expect(ledger.pausedSignatures).toEqual([])
    const began = begin(ledger, { sha: sha(9), runId: 500, now: NOW + MINUTE })
    expect(
      decideAfterRed(began.ledger, { index: 0, signature: sig('a'), now: NOW + 2 * MINUTE }).kind
    ).toBe('fix')
  })

  it('changes nothing on a program that is not paused (forget-failures still forgets)', () => {
    const ledger = stuck()
    const current = { machine: machine({ consecutiveErrors: 2 }), ledger }
    const skipped = applyReset(current, { now: NOW, actor: null, forgetFailures: false })
    expect(skipped).toEqual({
      ledger,
      outcome: {
        status: 'skipped',
        clearedReason: null,
        remembered: ledger.pausedSignatures,
        forgotten: 0
      }
    })
    const forgetting = applyReset(current, { now: NOW, actor: null, forgetFailures: true })
    expect(forgetting.outcome).toMatchObject({ status: 'skipped', forgotten: 1, remembered: [] })
    expect(forgetting.ledger.pausedSignatures).toEqual([])
  })

  it('a pause with no iteration left open still resets (its iteration already ended)', () => {
    const { ledger, outcome } = applyReset(
      { machine: { ...paused, pauseReason: null }, ledger: stuck() },
      { now: NOW, actor: null, forgetFailures: false }
    )
    expect(outcome.clearedReason).toBe('no reason given')
    expect(ledger.iteration).toMatchObject({
      outcome: 'reset',
      finishedAt: new Date(START + 10 * MINUTE).toISOString()
    })
  })
})

describe('the reset comment', () => {
  const view = {
    program: 'perf',
    marker: commentMarker('reset', '9000'),
    actor: 'octocat',
    actorUrl: 'https://github.com/octocat',
    reason: 'fixed the flaky @team test by hand',
    clearedReason: REASON,
    runUrl: 'https://github.com/acme/widgets/actions/runs/9000',
    remembered: [] as PausedSignatures,
    forgotten: 0,
    maskedValues: []
  }
  type PausedSignatures = Ledger['pausedSignatures']

  it('says who, why, what was cleared, without pinging anyone', () => {
    const comment = renderResetComment(view)
    expect(comment.split('\n')[0]).toBe('<!-- autoloop-ci-gate:reset 9000 -->')
    expect(comment).toContain(
      '**Reset by:** [octocat](https://github.com/octocat) ([run](https://github.com/acme/widgets/actions/runs/9000))'
    )
    expect(comment).toContain('**Why:** fixed the flaky @\u200dteam test by hand')
    expect(comment).toContain(`**It was paused for:** \`${REASON}\``)
    expect(comment).not.toContain('Still remembered')
  })

  it('says what is remembered and how to make the loop forget it', () => {
    const { outcome } = applyReset(
      { machine: paused, ledger: stuck() },
      { now: NOW, actor: 'octocat', forgetFailures: false }
    )
    const comment = renderResetComment({ ...view, remembered: outcome.remembered })
    expect(comment).toContain('**Still remembered:**')
    expect(comment).toContain(
      `- \`${sig('a').short}\` (paused at ${new Date(START + 10 * MINUTE).toISOString()})`
    )
    expect(comment).toContain(
      'Run `reset` again with `forget-failures: true` to make the loop forget them.'
    )
  })

  it('says how many were forgotten', () => {
    expect(renderResetComment({ ...view, forgotten: 2 })).toContain(
      'The 2 failure(s) the loop had paused on are forgotten (`forget-failures: true`).'
    )
    expect(renderResetComment({ ...view, actor: null, reason: null })).toMatch(
      /\*\*Reset by:\*\* a maintainer[^]*\*\*Why:\*\* _no reason given_/
    )
  })
})
