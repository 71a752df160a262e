/**
 * Recording an iteration's outcome (docs/commands.md: "record"), pure: what `record` writes, and what
 * the gate writes on green when the agent handed over its metric. `accepted` sets Best
 * Metric, Iteration Count + 1, Consecutive Errors 0 and Paused false; `rejected` sets
 * Iteration Count + 1 and Consecutive Errors 0; `error` sets Iteration Count + 1 and
 * Consecutive Errors + 1, pausing at 3. Each appends its word to Recent Statuses and sets Last
 * Run, and prepends an Iteration History entry. The write goes into the ledger (so a memory
 * push that reverts `<program>.md` cannot lose it).
 *
 * It ends the ledger's iteration only while that is still open (`isIterationOpen`), and never
 * while its latest attempt is red (or silent) and awaits its fix: such an iteration is ended by
 * the gate (green, or a guard's pause when the fixer pushed nothing) or by `reconcile`
 * (docs/decisions.md: "The fix loop"), so the next gate on the same SHA is judged as a fix that pushed nothing and the
 * budget goes on; nor while its latest attempt is blocked (waiting for an approval or for CI),
 * so that once it can run, the same commit is gated with the budget it had. An iteration that ended (green, paused, reset, recorded) keeps its outcome:
 * relabelling a paused or reset one `recorded` would make `beginAttempt` take its SHA as
 * accepted (`already-gated`).
 *
 * Idempotent per workflow run: a run that recorded already (a re-run of the same run, at a
 * higher GITHUB_RUN_ATTEMPT) records nothing more.
 */
import {
  findHistoryEntry,
  isRecorded,
  renderHistoryEntry,
  type RecordedOutcome
} from './history.js'
import { formatDelta, isBetter, reachesTarget, type MetricDirection } from '../core/metric.js'
import { appendRecentStatus, type MachineState, type MachineStatePatch } from '../core/schema.js'
import { oneLine } from '../core/text/untrusted.js'
import {
  awaitsFix,
  finishIteration,
  isIterationOpen,
  latestAttempt,
  withStateWrite,
  type Ledger
} from '../core/ledger.js'
import { pauseReason } from '../core/rules/pause-reasons.js'

/** Consecutive errors at which `record` pauses the program. */
export const MAX_CONSECUTIVE_ERRORS = 3

type RecordStatus = 'recorded' | 'paused' | 'completed'

interface Transition {
  patch: MachineStatePatch
  status: RecordStatus
  pauseReason: string | null
  completedReason: string | null
  /** For accepted: whether the metric beats the previous best in the metric's direction. */
  improved: boolean | null
  direction: MetricDirection
}

/** The Machine State rows an outcome writes. */
export function recordTransition(
  machine: MachineState,
  input: { outcome: RecordedOutcome; metric: number | undefined; now: number }
): Transition {
  const direction: MetricDirection = machine.metricDirection ?? 'higher'
  const count = (machine.iterationCount ?? 0) + 1
  const base: MachineStatePatch = {
    iterationCount: count,
    recentStatuses: appendRecentStatus(machine.recentStatuses, input.outcome),
    lastRun: new Date(input.now).toISOString()
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
  const reason = pause ? pauseReason('consecutive-errors') : null
  return {
    patch: {
      ...base,
      consecutiveErrors: errors,
      ...(pause ? { paused: true, pauseReason: reason } : {})
    },
    status: pause ? 'paused' : 'recorded',
    pauseReason: reason,
    completedReason: null,
    improved: null,
    direction
  }
}

/** What the agent handed over about its iteration (the gh-aw iteration file). */
interface AgentReport {
  improved: boolean
  /** The evaluation itself failed. */
  error?: string | undefined
}

/**
 * The outcome the gate records from the agent's report: `error` when the evaluation failed,
 * and when the agent reported an improvement that no new commit carries; else `accepted` for
 * an improvement on a green commit, `rejected` for none.
 */
export function reportedOutcome(
  report: AgentReport,
  branch: { newCommit: boolean; name: string }
): { outcome: RecordedOutcome; reason: string | undefined } {
  if (report.error !== undefined) return { outcome: 'error', reason: report.error }
  if (!report.improved) return { outcome: 'rejected', reason: undefined }
  if (branch.newCommit) return { outcome: 'accepted', reason: undefined }
  return {
    outcome: 'error',
    reason: `the agent reported an improved metric, but no new commit reached ${branch.name}`
  }
}

export interface RecordRequest {
  outcome: RecordedOutcome
  metric: number | undefined
  /** One line describing the change (untrusted: made safe here). */
  change: string | undefined
  /** Why (for error). Untrusted. */
  reason: string | undefined
  /** The iteration's commit; default the latest gated SHA of the ledger's iteration. */
  commit: string | undefined
  /** The workflow run recording it (`GITHUB_RUN_ID`); null outside Actions. */
  runId: number | null
  runUrl: string | null
  now: number
  maskedValues?: readonly string[]
}

export interface RecordOutcome {
  /** False when this run had recorded already: nothing changes. */
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
  /** The run's key in the history (its run id), for the iteration comment's marker. */
  runKey: string
  /** The history entry as markdown (LF), for the iteration comment; null when not found. */
  entry: string | null
}

function statusOf(machine: MachineState): RecordStatus {
  if (machine.completed) return 'completed'
  if (machine.paused && machine.pauseReason === pauseReason('consecutive-errors')) return 'paused'
  return 'recorded'
}

/**
 * The iteration whose attempts this record describes (fix attempts, commit): an open one, or
 * one that ended and that no record described yet (no history entry written at or after its
 * end, e.g. the gate's green path, which ends it and then records in the same write).
 */
function describedIteration(ledger: Ledger): Ledger | null {
  const iteration = ledger.iteration
  if (!iteration) return null
  if (iteration.finishedAt === null) return ledger
  const ended = Date.parse(iteration.finishedAt)
  const recorded = ledger.writes.some(
    (write) => write.historyEntry !== undefined && Date.parse(write.at) >= ended
  )
  return recorded ? null : ledger
}

/** Whether `record` ends the ledger's iteration (see the module comment). */
function recordEndsIteration(ledger: Ledger): boolean {
  if (!isIterationOpen(ledger)) return false
  const latest = latestAttempt(ledger)
  // A red attempt awaits its fix, a blocked one its approval or CI: the gate ends those.
  return latest === undefined || (!awaitsFix(latest.state) && latest.state !== 'blocked')
}

/** The key a run records under: its run id; outside Actions, the ledger revision it wrote. */
export function recordKeyOf(runId: number | null, ledger: Ledger): string {
  return runId === null ? `local-${ledger.revision + 1}` : String(runId)
}

/**
 * The ledger after recording (see the module comment). `text` and `machine` are the state file
 * as the scheduler should read it (the ledger projected onto it).
 */
export function recordIteration(
  current: { text: string; machine: MachineState; ledger: Ledger },
  request: RecordRequest
): { ledger: Ledger; outcome: RecordOutcome } {
  const { text, machine, ledger } = current
  const runKey = recordKeyOf(request.runId, ledger)
  if (request.runId !== null && isRecorded(text, runKey)) {
    return {
      ledger,
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
        runKey,
        entry: findHistoryEntry(text, runKey)
      }
    }
  }
  const transition = recordTransition(machine, request)
  const described = describedIteration(ledger)
  const latest = described ? latestAttempt(described) : undefined
  const fixAttempts = latest?.index ?? 0
  const commit = request.commit ?? latest?.agentSha ?? latest?.sha ?? null
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
    runKey,
    fixAttempts
  })
  let next = recordEndsIteration(ledger) ? finishIteration(ledger, 'recorded', request.now) : ledger
  next = withStateWrite(
    next,
    { machineState: transition.patch, historyEntry: { runKey, lines } },
    request.now
  )
  return {
    ledger: next,
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
      runKey,
      entry: lines.join('\n')
    }
  }
}
