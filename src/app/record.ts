/**
 * The `record` command (docs/commands.md: "record"): writes an iteration's outcome (accepted, rejected,
 * error) through the ledger into Machine State and the Iteration History, and says it on the
 * program issue. Idempotent per workflow run (`GITHUB_RUN_ID`): a re-run of the same run
 * records nothing more and edits, never duplicates, the comment it posted. The outcome's
 * rules are `statefile/record-outcome.ts`; this is the shell around them.
 */
import type { ProgramConfig } from '../core/inputs.js'
import { runUrl } from '../core/environment.js'
import { commentMarker, renderIterationComment } from '../render/comments.js'
import {
  recordIteration,
  type RecordOutcome,
  type RecordRequest
} from '../statefile/record-outcome.js'
import { updateProgram } from './program-files.js'
import { errorMessage } from '../core/errors.js'
import { announce, stateFileLabel } from './announce.js'
import type { CommandDeps, CommandResult } from './command-deps.js'

export const PROGRAM_LABEL = 'autoloop-program'
export const COMPLETED_LABEL = 'autoloop-completed'

function summaryOf(
  program: string,
  outcome: RecordOutcome,
  bytes: number,
  maxBytes: number
): string {
  const lines = [`## autoloop-ci-gate: record ${program}`, '']
  if (!outcome.recorded) {
    lines.push(
      `Run ${outcome.runKey} had already recorded this program's iteration; nothing changed (status \`${outcome.status}\`).`
    )
    return lines.join('\n') + '\n'
  }
  lines.push(`**Iteration ${outcome.iteration}** — status \`${outcome.status}\``, '')
  if (outcome.metric !== null)
    lines.push(
      `- Metric: ${outcome.metric}` +
        (outcome.previousBest === null
          ? ' (no previous best)'
          : ` (previous best ${outcome.previousBest}, delta ${outcome.delta})`)
    )
  if (outcome.fixAttempts > 0) lines.push(`- CI fix attempts: ${outcome.fixAttempts}`)
  if (outcome.pauseReason) lines.push(`- Paused: ${outcome.pauseReason}`)
  if (outcome.completedReason) lines.push(`- Completed: ${outcome.completedReason}`)
  lines.push(
    bytes > maxBytes
      ? `- ⚠️ The state file is ${bytes} bytes, over \`state-max-bytes\` (${maxBytes}) even with its whole history collapsed: shorten the human sections.`
      : `- The state file is ${bytes} bytes (budget ${maxBytes}; older history entries are collapsed to stay under it).`
  )
  return lines.join('\n') + '\n'
}

export async function runRecordCommand(
  config: ProgramConfig,
  deps: CommandDeps
): Promise<CommandResult> {
  const { clock, log, environment } = deps
  const program = config.program
  const outcomeWord = config.outcome
  if (!outcomeWord) throw new RangeError('record needs `outcome`')
  const request = (now: number): RecordRequest => ({
    outcome: outcomeWord,
    metric: config.metric,
    change: config.change,
    reason: config.reason,
    commit: config.sha,
    runId: environment.runId ?? null,
    runUrl: runUrl(environment),
    now,
    maskedValues: deps.maskedValues
  })
  const written = await updateProgram(
    deps,
    program,
    { maxBytes: config.stateMaxBytes },
    (current) => {
      const recorded = recordIteration(current, request(clock.now()))
      return { ledger: recorded.ledger, value: recorded.outcome }
    }
  )
  const result = written.value
  const bytes = Buffer.byteLength(written.files.text, 'utf8')
  if (result.recorded && result.improved === false)
    log.warning(
      `The accepted metric ${result.metric} is not better than the previous best ${result.previousBest}; it is the Best Metric now, as accepted iterations set it`
    )
  if (bytes > config.stateMaxBytes)
    log.warning(
      `${program}.md is ${bytes} bytes, over state-max-bytes (${config.stateMaxBytes}) even with its history collapsed`
    )
  const machine = written.files.machine
  const marker = commentMarker('iteration', result.runKey)
  const issue = await announce(deps, {
    program,
    machine,
    issue: config.issue,
    ...(result.entry
      ? {
          comment: {
            marker,
            body: renderIterationComment({ program, marker, entry: result.entry })
          }
        }
      : {})
  })
  if (issue !== undefined && machine.completed) {
    try {
      await swapCompletedLabel(deps, issue)
    } catch (error) {
      log.warning(`Could not update the labels of issue #${issue}: ${errorMessage(error)}`)
    }
  }
  const message = result.recorded
    ? `Recorded iteration ${result.iteration} of ${program}: ${outcomeWord} (status ${result.status}) in ${stateFileLabel(deps, program)}`
    : `Run ${result.runKey} already recorded ${program}; nothing changed`
  return {
    outputs: {
      status: result.status,
      'pause-reason': machine.paused ? (machine.pauseReason ?? '') : ''
    },
    summary: summaryOf(program, result, bytes, config.stateMaxBytes),
    message
  }
}

/** On a reached target: `autoloop-program` → `autoloop-completed`, when the issue has it. */
async function swapCompletedLabel(deps: CommandDeps, issue: number): Promise<void> {
  const { issues, log } = deps
  const labels = await issues.issueLabels(issue)
  if (!labels.includes(PROGRAM_LABEL)) return
  await issues.addLabel(issue, COMPLETED_LABEL)
  await issues.removeLabel(issue, PROGRAM_LABEL)
  log.info(`Issue #${issue}: label ${PROGRAM_LABEL} swapped for ${COMPLETED_LABEL}`)
}
