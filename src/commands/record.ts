/**
 * The `record` command (SPEC §2): the one writer of Machine State at the end of an iteration.
 * It applies the outcome (accepted, rejected, error) to Machine State, finishes the ledger's
 * iteration, prepends an Iteration History entry (collapsing old ones to stay under the size
 * budget), and says it on the program issue. Idempotent per workflow run.
 *
 * `recordTransition` and `applyRecord` are pure; `runRecordCommand` is the shell around them.
 */
import type { ProgramConfig } from '../inputs.js'
import { runUrl } from '../environment.js'
import { createStateFile, readMachineState, updateMachineState } from '../state/markdown.js'
import {
  appendRecentStatus,
  sanitizeCellText,
  type MachineState,
  type MachineStatePatch
} from '../state/schema.js'
import {
  compactHistory,
  findHistoryEntry,
  isBetter,
  isRecorded,
  prependHistoryEntry,
  renderHistoryEntry,
  runKeyOf,
  formatDelta,
  type IterationOutcome,
  type MetricDirection
} from '../state/history.js'
import { finishIteration, latestAttempt, readLedger, writeLedger } from '../loop/ledger.js'
import { commentMarker } from '../issue/comments.js'
import { upsertMarkedComment } from '../issue/program-issue.js'
import { oneLine } from '../text/untrusted.js'
import { errorMessage } from '../errors.js'
import { updateProgramState, type CommandDeps, type CommandResult } from './types.js'
import { announceStatus, issueOf, stateFileLabel } from './program-status.js'

/** Consecutive errors at which `record` pauses the program. */
export const MAX_CONSECUTIVE_ERRORS = 3
export const CONSECUTIVE_ERRORS_REASON = 'consecutive errors'
export const PROGRAM_LABEL = 'autoloop-program'
export const COMPLETED_LABEL = 'autoloop-completed'

export type RecordStatus = 'recorded' | 'paused' | 'completed'

export interface TransitionInput {
  outcome: IterationOutcome
  /** This iteration's metric (required for accepted). */
  metric: number | undefined
  now: number
}

export interface Transition {
  patch: MachineStatePatch
  status: RecordStatus
  pauseReason: string | null
  completedReason: string | null
  /** For accepted: whether the metric beats the previous best in the metric's direction. */
  improved: boolean | null
  direction: MetricDirection
}

/** Whether `metric` reaches `target` in the metric's direction. */
export function reachesTarget(metric: number, target: number, direction: MetricDirection): boolean {
  return direction === 'lower' ? metric <= target : metric >= target
}

/** The Machine State rows an outcome writes (SPEC §2, "Outcome details for record"). */
export function recordTransition(machine: MachineState, input: TransitionInput): Transition {
  const direction: MetricDirection = machine.metricDirection ?? 'higher'
  const count = (machine.iterationCount ?? 0) + 1
  const base: MachineStatePatch = {
    iterationCount: count,
    recentStatuses: appendRecentStatus(machine.recentStatuses, input.outcome),
    lastRun: input.now
  }
  if (input.outcome === 'accepted') {
    if (input.metric === undefined || !Number.isFinite(input.metric))
      throw new RangeError('an accepted iteration needs a finite metric')
    const metric = input.metric
    const target = machine.targetMetric
    const completed = target !== null && reachesTarget(metric, target, direction)
    const completedReason = completed
      ? `target metric reached: ${metric} ${direction === 'lower' ? '≤' : '≥'} ${target} at iteration ${count}`
      : null
    return {
      patch: {
        ...base,
        bestMetric: metric,
        consecutiveErrors: 0,
        paused: false,
        pauseReason: null,
        ...(completed ? { completed: true, completedReason } : {})
      },
      status: completed ? 'completed' : 'recorded',
      pauseReason: null,
      completedReason,
      improved: isBetter(metric, machine.bestMetric, direction),
      direction
    }
  }
  if (input.outcome === 'rejected') {
    return {
      patch: { ...base, consecutiveErrors: 0 },
      status: 'recorded',
      pauseReason: null,
      completedReason: null,
      improved: null,
      direction
    }
  }
  const errors = (machine.consecutiveErrors ?? 0) + 1
  const pause = errors >= MAX_CONSECUTIVE_ERRORS
  return {
    patch: {
      ...base,
      consecutiveErrors: errors,
      ...(pause ? { paused: true, pauseReason: CONSECUTIVE_ERRORS_REASON } : {})
    },
    status: pause ? 'paused' : 'recorded',
    pauseReason: pause ? CONSECUTIVE_ERRORS_REASON : null,
    completedReason: null,
    improved: null,
    direction
  }
}

export interface RecordRequest {
  program: string
  outcome: IterationOutcome
  metric: number | undefined
  /** One line describing the change (untrusted: made safe here). */
  change: string | undefined
  /** Why (for error). Untrusted. */
  reason: string | undefined
  /** The iteration's commit; default the latest gated SHA of the iteration's ledger. */
  commit: string | undefined
  runKey: string | null
  runUrl: string | null
  now: number
  maxBytes: number
  maskedValues?: readonly string[]
}

export interface RecordOutcome {
  /** False when this run had recorded already: the text is unchanged. */
  recorded: boolean
  status: RecordStatus
  iteration: number
  metric: number | null
  previousBest: number | null
  delta: string | null
  improved: boolean | null
  pauseReason: string | null
  completedReason: string | null
  fixAttempts: number
  commit: string | null
  /** The history entry as markdown (LF), for the iteration comment; null when not found. */
  entry: string | null
  collapsed: number
  bytes: number
  fits: boolean
}

function statusOf(machine: MachineState): RecordStatus {
  if (machine.completed) return 'completed'
  if (machine.paused && machine.pauseReason === CONSECUTIVE_ERRORS_REASON) return 'paused'
  return 'recorded'
}

/** The state file after recording the iteration (pure; see the module comment). */
export function applyRecord(
  original: string | null,
  request: RecordRequest
): { text: string; outcome: RecordOutcome } {
  const text = original ?? createStateFile(request.program)
  const machine = readMachineState(text)
  const ledger = readLedger(text)
  if (request.runKey && isRecorded(text, request.runKey)) {
    return {
      text,
      outcome: {
        recorded: false,
        status: statusOf(machine),
        iteration: machine.iterationCount ?? 0,
        metric: null,
        previousBest: null,
        delta: null,
        improved: null,
        pauseReason: machine.paused ? machine.pauseReason : null,
        completedReason: machine.completed ? machine.completedReason : null,
        fixAttempts: 0,
        commit: null,
        entry: findHistoryEntry(text, request.runKey),
        collapsed: 0,
        bytes: Buffer.byteLength(text, 'utf8'),
        fits: true
      }
    }
  }
  const transition = recordTransition(machine, {
    outcome: request.outcome,
    metric: request.metric,
    now: request.now
  })
  // The ledger's iteration is this one unless an earlier record already ended it.
  const current = ledger && ledger.iteration.outcome !== 'recorded' ? ledger : null
  const fixAttempts = current ? latestAttempt(current).index : 0
  const commit = request.commit ?? (current ? latestAttempt(current).sha : null)
  const metric = request.metric ?? null
  const previousBest = machine.bestMetric
  const iteration = transition.patch.iterationCount as number
  const safe = (value: string | undefined, max: number) =>
    value === undefined
      ? null
      : oneLine(value, max, { maskedValues: request.maskedValues ?? [] }) || null
  const lines = renderHistoryEntry({
    iteration,
    outcome: request.outcome,
    at: request.now,
    metric,
    previousBest,
    change: safe(request.change, 300),
    reason: safe(request.reason, 300),
    commit,
    runUrl: request.runUrl,
    runKey: request.runKey,
    fixAttempts
  })
  let next = updateMachineState(text, transition.patch)
  if (ledger) next = writeLedger(next, finishIteration(ledger, 'recorded', request.now))
  next = prependHistoryEntry(next, { lines, runKey: request.runKey })
  const compaction = compactHistory(next, request.maxBytes, transition.direction)
  return {
    text: compaction.text,
    outcome: {
      recorded: true,
      status: transition.status,
      iteration,
      metric,
      previousBest,
      delta: metric !== null && previousBest !== null ? formatDelta(metric, previousBest) : null,
      improved: transition.improved,
      pauseReason: transition.pauseReason,
      completedReason: transition.completedReason,
      fixAttempts,
      commit,
      entry: lines.join('\n'),
      collapsed: compaction.collapsed,
      bytes: compaction.bytes,
      fits: compaction.fits
    }
  }
}

/** The per-iteration comment: its marker, then the history entry (the same on a re-run). */
export function renderIterationComment(program: string, marker: string, entry: string): string {
  return [
    marker,
    `**Autoloop \`${sanitizeCellText(program).replace(/`/g, '')}\`** recorded an iteration:`,
    '',
    entry
  ].join('\n')
}

function summaryOf(program: string, outcome: RecordOutcome, request: RecordRequest): string {
  const lines = [`## autoloop-ci-gate: record ${program}`, '']
  if (!outcome.recorded) {
    lines.push(
      `Run ${request.runKey} had already recorded this program's iteration; nothing changed (status \`${outcome.status}\`).`
    )
    return lines.join('\n') + '\n'
  }
  lines.push(
    `**Iteration ${outcome.iteration}: ${request.outcome}** — status \`${outcome.status}\``,
    ''
  )
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
  if (outcome.collapsed > 0)
    lines.push(
      `- ${outcome.collapsed} older history entr${outcome.collapsed === 1 ? 'y was' : 'ies were'} collapsed to keep the file at ${outcome.bytes} bytes`
    )
  if (!outcome.fits)
    lines.push(
      `- ⚠️ The state file is ${outcome.bytes} bytes, over \`state-max-bytes\` even with its whole history collapsed: shorten the human sections.`
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
  const request: RecordRequest = {
    program,
    outcome: outcomeWord,
    metric: config.metric,
    change: config.change,
    reason: config.reason,
    commit: config.sha,
    runKey: runKeyOf(environment.runId, environment.runAttempt),
    runUrl: runUrl(environment) ?? null,
    now: clock.now(),
    maxBytes: config.stateMaxBytes,
    maskedValues: deps.maskedValues
  }
  const written = await updateProgramState(deps, program, (text) => {
    const applied = applyRecord(text, { ...request, now: clock.now() })
    return { text: applied.text, value: applied.outcome }
  })
  const result = written.value
  if (result.recorded && result.improved === false)
    log.warning(
      `The accepted metric ${result.metric} is not better than the previous best ${result.previousBest}; it is the Best Metric now, as accepted iterations set it`
    )
  if (!result.fits)
    log.warning(
      `${program}.md is ${result.bytes} bytes, over state-max-bytes (${config.stateMaxBytes}) even with its history collapsed`
    )

  const machine = readMachineState(written.text)
  const issue = issueOf(config, machine)
  if (issue === undefined) {
    log.info('No program issue (input `issue` or the Issue row): recorded in the state file only')
  } else {
    try {
      await announceStatus(deps, program, machine, issue)
      if (result.entry) {
        const marker = commentMarker(
          'iteration',
          request.runKey ?? `${program} ${result.iteration}`
        )
        const body = renderIterationComment(program, marker, result.entry)
        await upsertMarkedComment(deps.issues, issue, marker, body)
      }
      if (machine.completed) await swapCompletedLabel(deps, issue)
    } catch (error) {
      log.warning(`Could not update issue #${issue}: ${errorMessage(error)}`)
    }
  }
  const message = result.recorded
    ? `Recorded iteration ${result.iteration} of ${program}: ${outcomeWord} (status ${result.status}) in ${stateFileLabel(deps, program)}`
    : `Run ${request.runKey} already recorded ${program}; nothing changed`
  return {
    outputs: {
      status: result.status,
      'pause-reason': machine.paused ? (machine.pauseReason ?? '') : ''
    },
    summary: summaryOf(program, result, request),
    message
  }
}

/** On a reached target: `autoloop-program` → `autoloop-completed`, when the issue has it. */
async function swapCompletedLabel(deps: CommandDeps, issue: number): Promise<void> {
  const { issues, log } = deps
  if (!issues.issueLabels || !issues.addLabel || !issues.removeLabel) return
  const labels = await issues.issueLabels(issue)
  if (!labels.includes(PROGRAM_LABEL)) return
  await issues.addLabel(issue, COMPLETED_LABEL)
  await issues.removeLabel(issue, PROGRAM_LABEL)
  log.info(`Issue #${issue}: label ${PROGRAM_LABEL} swapped for ${COMPLETED_LABEL}`)
}
