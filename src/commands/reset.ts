/**
 * The `reset` command (SPEC §2), for `workflow_dispatch`: a maintainer unpauses a program.
 * It clears Paused, Pause Reason and the CI Gate ledger, sets Consecutive Errors to 0, appends
 * nothing to Recent Statuses, and says on the program issue who reset it and why. A program
 * that is not paused is left exactly as it is.
 *
 * `applyReset` is pure; `runResetCommand` is the shell around it.
 */
import type { ProgramConfig } from '../inputs.js'
import { runKeyOf } from '../state/history.js'
import { readMachineState, updateMachineState } from '../state/markdown.js'
import { clearLedger, readLedger } from '../loop/ledger.js'
import { commentMarker } from '../issue/comments.js'
import { upsertMarkedComment } from '../issue/program-issue.js'
import { inlineCode, oneLine } from '../text/untrusted.js'
import { errorMessage } from '../errors.js'
import { updateProgramState, type CommandDeps, type CommandResult } from './types.js'
import { announceStatus, issueOf, runLink, stateFileLabel } from './program-status.js'

export type ResetStatus = 'reset' | 'skipped'

export interface ResetOutcome {
  status: ResetStatus
  /** The pause reason that was cleared (null when the program was not paused). */
  clearedReason: string | null
  /** Whether a ledger section was removed. */
  clearedLedger: boolean
}

/** The state file after a reset (pure). A program that is not paused is returned unchanged. */
export function applyReset(text: string): { text: string; outcome: ResetOutcome } {
  const machine = readMachineState(text)
  readLedger(text)
  if (!machine.paused)
    return { text, outcome: { status: 'skipped', clearedReason: null, clearedLedger: false } }
  const unpaused = updateMachineState(text, {
    paused: false,
    pauseReason: null,
    consecutiveErrors: 0
  })
  const cleared = clearLedger(unpaused)
  return {
    text: cleared,
    outcome: {
      status: 'reset',
      clearedReason: machine.pauseReason ?? 'no reason given',
      clearedLedger: cleared !== unpaused
    }
  }
}

export interface ResetCommentView {
  program: string
  marker: string
  actor: string | null
  actorUrl: string | null
  reason: string | null
  clearedReason: string
  runUrl: string | null
  maskedValues: readonly string[]
}

export function renderResetComment(view: ResetCommentView): string {
  const who = view.actor
    ? view.actorUrl
      ? `[${oneLine(view.actor, 60)}](${view.actorUrl})`
      : oneLine(view.actor, 60)
    : 'a maintainer'
  const options = { maskedValues: view.maskedValues }
  return [
    view.marker,
    `### ▶️ Autoloop program ${inlineCode(view.program, 100, options)} reset`,
    '',
    `**Reset by:** ${who}${view.runUrl ? ` ([run](${view.runUrl}))` : ''}`,
    `**Why:** ${view.reason ? oneLine(view.reason, 500, options) : '_no reason given_'}`,
    `**It was paused for:** ${inlineCode(view.clearedReason, 300, options)}`,
    '',
    'Paused and Pause Reason are cleared, Consecutive Errors is 0 and the CI fix-loop ledger is gone: the next scheduled iteration starts fresh.'
  ].join('\n')
}

export async function runResetCommand(
  config: ProgramConfig,
  deps: CommandDeps
): Promise<CommandResult> {
  const { store, clock, log, environment } = deps
  const program = config.program
  const stored = await store.read(program)
  if (!stored) {
    const message = `Program ${program} has no state file in ${store.description}: there is nothing to reset`
    return {
      outputs: { status: 'skipped' },
      summary: `## autoloop-ci-gate: reset ${program}\n\n${message}.\n`,
      message
    }
  }
  const written = await updateProgramState(deps, program, (text) => {
    const applied = applyReset(text ?? stored.text)
    return { text: applied.text, value: applied.outcome }
  })
  const result = written.value
  const machine = readMachineState(written.text)
  if (result.status === 'skipped') {
    const why = machine.completed ? ' (it is completed; reset only unpauses)' : ''
    const message = `Program ${program} is not paused${why}: reset changed nothing`
    return {
      outputs: { status: 'skipped' },
      summary: `## autoloop-ci-gate: reset ${program}\n\n${message}.\n`,
      message
    }
  }
  const actor = environment.actor ?? null
  const issue = issueOf(config, machine)
  if (issue === undefined) {
    log.info(
      'No program issue (input `issue` or the Issue row): the reset is in the state file only'
    )
  } else {
    try {
      await announceStatus(deps, program, machine, issue)
      const key = runKeyOf(environment.runId, environment.runAttempt) ?? String(clock.now())
      const marker = commentMarker('reset', key)
      await upsertMarkedComment(
        deps.issues,
        issue,
        marker,
        renderResetComment({
          program,
          marker,
          actor,
          actorUrl: actor ? `${environment.serverUrl}/${encodeURIComponent(actor)}` : null,
          reason: config.reason ?? null,
          clearedReason: result.clearedReason ?? 'no reason given',
          runUrl: runLink(deps, environment.runId ?? null),
          maskedValues: deps.maskedValues
        })
      )
    } catch (error) {
      log.warning(`Could not comment on issue #${issue}: ${errorMessage(error)}`)
    }
  }
  const message = `Reset ${program}${actor ? ` (by ${actor})` : ''}: unpaused (was: ${result.clearedReason})${result.clearedLedger ? ', ledger cleared' : ''} in ${stateFileLabel(deps, program)}`
  return {
    outputs: { status: 'reset' },
    summary: [
      `## autoloop-ci-gate: reset ${program}`,
      '',
      `Unpaused${actor ? ` by ${oneLine(actor, 60)}` : ''}. It was paused for: ${inlineCode(result.clearedReason ?? '', 300)}.`,
      `Why: ${config.reason ? oneLine(config.reason, 500, { maskedValues: deps.maskedValues }) : '_no reason given_'}`,
      ''
    ].join('\n'),
    message
  }
}
