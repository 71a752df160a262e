/**
 * The `reset` command (docs/commands.md: "reset"), for `workflow_dispatch`: a maintainer unpauses a
 * program. It clears Paused and Pause Reason, sets Consecutive Errors to 0 and ends the paused
 * iteration (the next gate starts a new one with a fresh budget), and says on the program
 * issue who reset it and why. A reset is a restart, and stuck-detection survives restarts: the
 * failures the loop paused on stay in the ledger, marked as reset, so the first red attempt
 * that repeats one pauses at once. `forget-failures: true` forgets them (after the cause was
 * fixed by hand). A program that is not paused is left as it is.
 *
 * `applyReset` is pure; `runResetCommand` is the shell around it.
 */
import type { ProgramConfig } from '../core/inputs.js'
import { runUrl } from '../core/environment.js'
import { commentMarker } from '../render/comments.js'
import {
  finishIteration,
  withStateWrite,
  type Ledger,
  type PausedSignature
} from '../core/ledger.js'
import type { MachineState } from '../core/schema.js'
import { updateProgram } from './program-files.js'
import { inlineCode, oneLine } from '../core/text/untrusted.js'
import { announce, stateFileLabel } from './announce.js'
import type { CommandDeps, CommandResult } from './command-deps.js'

export type ResetStatus = 'reset' | 'skipped'

export interface ResetOutcome {
  status: ResetStatus
  /** The pause reason that was cleared (null when the program was not paused). */
  clearedReason: string | null
  /** The failures still remembered after the reset. */
  remembered: PausedSignature[]
  /** How many remembered failures `forget-failures` dropped. */
  forgotten: number
}

export interface ResetRequest {
  now: number
  actor: string | null
  forgetFailures: boolean
}

/** The ledger after a reset (pure; see the module comment). */
export function applyReset(
  current: { machine: MachineState; ledger: Ledger },
  request: ResetRequest
): { ledger: Ledger; outcome: ResetOutcome } {
  const { machine, ledger } = current
  const forgotten = request.forgetFailures ? ledger.pausedSignatures.length : 0
  const at = new Date(request.now).toISOString()
  const kept = request.forgetFailures
    ? []
    : ledger.pausedSignatures.map((paused) =>
        paused.resetAt === null ? { ...paused, resetAt: at, resetBy: request.actor } : paused
      )
  if (!machine.paused) {
    const next = forgotten > 0 ? { ...ledger, pausedSignatures: [] } : ledger
    return {
      ledger: next,
      outcome: {
        status: 'skipped',
        clearedReason: null,
        remembered: next.pausedSignatures,
        forgotten
      }
    }
  }
  let next: Ledger = { ...ledger, pausedSignatures: kept }
  if (next.iteration && next.iteration.finishedAt === null)
    next = finishIteration(next, 'reset', request.now)
  else if (next.iteration) next = { ...next, iteration: { ...next.iteration, outcome: 'reset' } }
  next = withStateWrite(
    next,
    { machineState: { paused: false, pauseReason: null, consecutiveErrors: 0 } },
    request.now
  )
  return {
    ledger: next,
    outcome: {
      status: 'reset',
      clearedReason: machine.pauseReason ?? 'no reason given',
      remembered: kept,
      forgotten
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
  remembered: readonly PausedSignature[]
  forgotten: number
  maskedValues: readonly string[]
}

export function renderResetComment(view: ResetCommentView): string {
  const who = view.actor
    ? view.actorUrl
      ? `[${oneLine(view.actor, 60)}](${view.actorUrl})`
      : oneLine(view.actor, 60)
    : 'a maintainer'
  const options = { maskedValues: view.maskedValues }
  const lines = [
    view.marker,
    `### ▶️ Autoloop program ${inlineCode(view.program, 100, options)} reset`,
    '',
    `**Reset by:** ${who}${view.runUrl ? ` ([run](${view.runUrl}))` : ''}`,
    `**Why:** ${view.reason ? oneLine(view.reason, 500, options) : '_no reason given_'}`,
    `**It was paused for:** ${inlineCode(view.clearedReason, 300, options)}`,
    '',
    'Paused and Pause Reason are cleared and Consecutive Errors is 0; the paused iteration is over, so the next one starts with a fresh fix budget.'
  ]
  if (view.remembered.length > 0) {
    lines.push(
      '',
      '**Still remembered:** the loop paused on these failures. If the next iteration fails the same way, the program pauses again at once instead of spending a new budget on it:',
      '',
      ...view.remembered.map(
        (paused) => `- ${inlineCode(paused.short, 160, options)} (paused at ${paused.pausedAt})`
      ),
      '',
      'Fixed the cause by hand? Run `reset` again with `forget-failures: true` to make the loop forget them.'
    )
  } else if (view.forgotten > 0) {
    lines.push(
      '',
      `The ${view.forgotten} failure(s) the loop had paused on are forgotten (\`forget-failures: true\`).`
    )
  }
  return lines.join('\n')
}

export async function runResetCommand(
  config: ProgramConfig,
  deps: CommandDeps
): Promise<CommandResult> {
  const { store, clock, environment } = deps
  const program = config.program
  const stored = await store.read(`${program}.md`)
  if (!stored) {
    const message = `Program ${program} has no state file in ${store.description}: there is nothing to reset`
    return {
      outputs: { status: 'skipped' },
      summary: `## autoloop-ci-gate: reset ${program}\n\n${message}.\n`,
      message
    }
  }
  const actor = environment.actor ?? null
  const written = await updateProgram(
    deps,
    program,
    { maxBytes: config.stateMaxBytes },
    (current) => {
      const applied = applyReset(current, {
        now: clock.now(),
        actor,
        forgetFailures: config.forgetFailures
      })
      return { ledger: applied.ledger, value: applied.outcome }
    }
  )
  const result = written.value
  const machine = written.files.machine
  if (result.status === 'skipped') {
    const why = machine.completed ? ' (it is completed; reset only unpauses)' : ''
    const forgot = result.forgotten > 0 ? `; forgot ${result.forgotten} remembered failure(s)` : ''
    const message = `Program ${program} is not paused${why}: reset changed nothing${forgot}`
    return {
      outputs: { status: 'skipped' },
      summary: `## autoloop-ci-gate: reset ${program}\n\n${message}.\n`,
      message
    }
  }
  const marker = commentMarker(
    'reset',
    environment.runId ? String(environment.runId) : String(clock.now())
  )
  await announce(deps, {
    program,
    machine,
    issue: config.issue,
    comment: {
      marker,
      body: renderResetComment({
        program,
        marker,
        actor,
        actorUrl: actor ? `${environment.serverUrl}/${encodeURIComponent(actor)}` : null,
        reason: config.reason ?? null,
        clearedReason: result.clearedReason ?? 'no reason given',
        runUrl: runUrl(environment),
        remembered: result.remembered,
        forgotten: result.forgotten,
        maskedValues: deps.maskedValues
      })
    }
  })
  const remembered =
    result.remembered.length > 0
      ? `; ${result.remembered.length} failure(s) the loop paused on are still remembered`
      : ''
  const message = `Reset ${program}${actor ? ` (by ${actor})` : ''}: unpaused (was: ${result.clearedReason})${remembered} in ${stateFileLabel(deps, program)}`
  return {
    outputs: { status: 'reset' },
    summary: [
      `## autoloop-ci-gate: reset ${program}`,
      '',
      `Unpaused${actor ? ` by ${oneLine(actor, 60)}` : ''}. It was paused for: ${inlineCode(result.clearedReason ?? '', 300)}.`,
      `Why: ${config.reason ? oneLine(config.reason, 500, { maskedValues: deps.maskedValues }) : '_no reason given_'}`,
      ...(result.remembered.length > 0
        ? [
            '',
            `Still remembered (the same failure pauses again at once; \`forget-failures: true\` forgets): ${result.remembered.map((p) => inlineCode(p.short, 160)).join(', ')}`
          ]
        : []),
      ''
    ].join('\n'),
    message
  }
}
