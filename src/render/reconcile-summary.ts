/**
 * The job summary of `reconcile` (docs/commands.md: "reconcile"), pure: one line of counts,
 * a table of the programs it acted on, and what a maintainer must do for a program it paused
 * as blocked. Built from what happened to each program (`ProgramOutcome`).
 */
import { markdownTable } from 'markdown-table'
import type { MachineState } from '../core/schema.js'
import {
  abandonedIn,
  resumedIn,
  type Happened,
  type ProgramOutcome
} from '../core/rules/reconcile.js'
import { tableCell } from '../core/text/untrusted.js'

/** A program's state as found: active, paused: <reason>, completed. */
export function stateWord(machine: Pick<MachineState, 'completed' | 'paused' | 'pauseReason'>) {
  if (machine.completed) return 'completed'
  if (machine.paused) return `paused: ${machine.pauseReason ?? 'no reason given'}`
  return 'active'
}

function stepWords(program: string, step: Happened): string {
  switch (step.kind) {
    case 'abandoned':
      return `marked ${step.attempts.join(', ')} abandoned`
    case 'paused':
      return `paused: ${step.reason} (${step.why})`
    case 'resumed':
      return `resumed: ${step.why}`
    case 'left-paused':
      return `left paused: ${step.why}`
    case 'pause-changed':
      return 'none: the pause changed meanwhile'
    case 'reprojected':
      return `projected the ledger into ${program}.md again (another writer had reverted it)`
    case 'settled':
      return step.status === 'waiting'
        ? `left waiting: ${step.why}`
        : `settled the waiting attempt (${step.status}): ${step.why}`
  }
}

/** What reconcile did to a program, in words (`none` when nothing). */
export function actionWords(outcome: ProgramOutcome): string {
  switch (outcome.kind) {
    case 'deleted':
      return 'none: the file is gone'
    case 'failed':
      return 'left untouched'
    case 'reconciled':
      return outcome.happened.length > 0
        ? outcome.happened.map((step) => stepWords(outcome.program, step)).join('; ')
        : 'none'
  }
}

function stateOf(outcome: ProgramOutcome): string {
  return outcome.kind === 'deleted' ? 'deleted' : outcome.state
}

/** What a maintainer must do, when reconcile paused the program as blocked. */
function adviceOf(outcome: ProgramOutcome): string | null {
  if (outcome.kind !== 'reconciled') return null
  for (const step of outcome.happened) if (step.kind === 'paused' && step.advice) return step.advice
  return null
}

export function renderReconcileSummary(
  outcomes: readonly ProgramOutcome[],
  source: string
): string {
  const resumed = outcomes.filter(resumedIn).length
  const abandoned = outcomes.filter(abandonedIn).length
  const reprojected = outcomes.filter((o) => o.kind === 'reconciled' && o.reprojected).length
  const errors = outcomes.filter((o) => o.kind === 'failed').length
  const acted = outcomes.filter((o) => o.kind === 'failed' || actionWords(o) !== 'none')
  const lines = [
    '## autoloop-ci-gate: reconcile',
    '',
    `${outcomes.length} program${outcomes.length === 1 ? '' : 's'} (read ${source}): ${resumed} resumed, ${abandoned} with abandoned attempts, ${reprojected} projected again, ${errors} error${errors === 1 ? '' : 's'}, ${outcomes.length - acted.length} idle.`,
    ''
  ]
  if (acted.length > 0)
    lines.push(
      markdownTable([
        ['Program', 'State', 'Action'],
        ...acted.map((outcome) => [
          tableCell(outcome.program, 100),
          tableCell(stateOf(outcome), 200),
          outcome.kind === 'failed'
            ? `⚠️ error: ${tableCell(outcome.reason, 400)}`
            : tableCell(actionWords(outcome), 400)
        ])
      ])
    )
  for (const outcome of outcomes) {
    const advice = adviceOf(outcome)
    if (advice) lines.push('', `**${tableCell(outcome.program, 100)}:** ${advice}`)
  }
  return lines.join('\n') + '\n'
}
