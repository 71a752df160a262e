/**
 * The `reconcile` command (SPEC §2), for a schedule: goes over every program in the state
 * store and
 * (a) resolves attempts left `in-flight` by a workflow run that is no longer running: they are
 *     marked `abandoned`, and the program is paused with `ci-timeout` when its iteration's wall
 *     clock is spent, so nothing ever waits on a run that will never report;
 * (b) resumes a program paused by the CI gate (`ci-fix-exhausted`, `stuck in CI fix loop`,
 *     `ci-timeout`, no-checks) once the head of its branch is green on every check: the
 *     hand-off to a human or a PR-health workflow that pushed the fix. A `manual` or
 *     `consecutive errors` pause is never lifted here.
 *
 * Cost: one read of the state file per program (plus the folder listing); only programs with
 * an in-flight attempt read their run, and only CI-paused ones read their branch head and
 * checks. One program's error never stops the others: it is listed in `errors`.
 *
 * The decisions (`staleAttempts`, `isCiPause`, `resumeVerdict`, `markAbandoned`, `resumeText`)
 * are pure; `runReconcileCommand` is the shell.
 */
import { markdownTable } from 'markdown-table'
import picomatch from 'picomatch'
import type { Config } from '../inputs.js'
import type { WorkflowRunState } from '../github/port.js'
import { readMachineState, updateMachineState } from '../state/markdown.js'
import type { MachineState } from '../state/schema.js'
import {
  clearLedger,
  completeAttempt,
  finishIteration,
  inFlightAttempts,
  isIterationFinished,
  readLedger,
  writeLedger,
  type Attempt,
  type Ledger
} from '../loop/ledger.js'
import { deadlineOf, pausePatch } from '../loop/guard.js'
import { reduceChecks, type ChecksSnapshot, type Verdict } from '../checks/reduce.js'
import { commentMarker, renderPauseComment } from '../issue/comments.js'
import { upsertMarkedComment } from '../issue/program-issue.js'
import { inlineCode, tableCell } from '../text/untrusted.js'
import { errorMessage } from '../errors.js'
import { updateProgramState, type CommandDeps, type CommandResult } from './types.js'
import { announceStatus, issueOf, runLink } from './program-status.js'

/** Programs handled at once (reads only; writes are serialised by the client). */
export const RECONCILE_CONCURRENCY = 8

/** Pause reasons written by the CI gate, which `reconcile` may lift once the head is green. */
export const CI_PAUSE_PREFIXES = [
  'ci-fix-exhausted',
  'stuck in CI fix loop',
  'ci-timeout',
  'no-checks'
] as const

export function isCiPause(reason: string | null): boolean {
  const text = (reason ?? '').trim()
  return CI_PAUSE_PREFIXES.some((prefix) => text.startsWith(prefix))
}

/** Whether a run is still running, as far as `reconcile` can tell. */
export type RunLiveness = 'running' | 'finished' | 'unknown'

export function livenessOf(state: WorkflowRunState, attempt: Attempt): RunLiveness {
  if (state.kind === 'not-found') return 'finished'
  if (state.kind === 'forbidden') return 'unknown'
  if (state.status !== 'completed') {
    // A newer attempt of the same run is running: the attempt that wrote ours is gone.
    const newer =
      attempt.runAttempt !== null &&
      state.runAttempt !== null &&
      state.runAttempt > attempt.runAttempt
    return newer ? 'finished' : 'running'
  }
  return 'finished'
}

/**
 * The in-flight attempts of an unfinished iteration that nothing is waiting on any more: their
 * run has finished (or is gone), or, when the run cannot be told (no run id, no permission),
 * the iteration's wall clock is spent.
 */
export function staleAttempts(
  ledger: Ledger,
  liveness: ReadonlyMap<number, RunLiveness>,
  input: { now: number; timeoutMinutes: number }
): Attempt[] {
  if (isIterationFinished(ledger)) return []
  const spent = input.now > deadlineOf(ledger, input.timeoutMinutes)
  return inFlightAttempts(ledger).filter((attempt) => {
    const state = liveness.get(attempt.index) ?? 'unknown'
    return state === 'finished' || (state === 'unknown' && spent)
  })
}

/**
 * Marks the given attempts abandoned (those still in flight on the same SHA) and, when the
 * iteration's wall clock is spent and the program is not paused yet, pauses it with
 * `ci-timeout`. Pure: re-reads everything from `text`.
 */
export function markAbandoned(
  text: string,
  attempts: readonly Pick<Attempt, 'index' | 'sha'>[],
  input: { now: number; timeoutMinutes: number }
): { text: string; abandoned: number[]; paused: boolean } {
  let ledger = readLedger(text)
  if (!ledger || isIterationFinished(ledger)) return { text, abandoned: [], paused: false }
  const abandoned: number[] = []
  for (const wanted of attempts) {
    const current = ledger.attempts.find((attempt) => attempt.index === wanted.index)
    if (current?.state !== 'in-flight' || current.sha !== wanted.sha) continue
    ledger = completeAttempt(ledger, wanted.index, { state: 'abandoned', now: input.now })
    abandoned.push(wanted.index)
  }
  if (abandoned.length === 0) return { text, abandoned, paused: false }
  const machine = readMachineState(text)
  const spent = input.now > deadlineOf(ledger, input.timeoutMinutes)
  const pause = spent && !machine.paused && inFlightAttempts(ledger).length === 0
  let next = text
  if (pause) {
    ledger = finishIteration(ledger, 'paused', input.now)
    next = updateMachineState(next, pausePatch(machine, { reason: 'ci-timeout', now: input.now }))
  }
  return { text: writeLedger(next, ledger), abandoned, paused: pause }
}

/** "Green on every check": the gate's reduction with no grace period and no own-run exclusion. */
export function resumeVerdict(
  snapshot: ChecksSnapshot,
  config: Pick<Config, 'requiredChecks' | 'ignoreChecks'>
): Verdict {
  const ignored = config.ignoreChecks.length > 0 ? picomatch(config.ignoreChecks) : () => false
  return reduceChecks(
    snapshot,
    {
      requiredChecks: config.requiredChecks,
      isIgnored: (name) => ignored(name),
      ownWorkflowRunId: undefined,
      ownCheckSuiteId: undefined,
      failFast: false,
      allowNoChecks: false,
      graceMs: 0
    },
    0
  )
}

/** Lifts a CI pause (Paused, Pause Reason, the ledger); unchanged when no CI pause is left. */
export function resumeText(text: string): { text: string; resumed: boolean } {
  const machine = readMachineState(text)
  if (!machine.paused || !isCiPause(machine.pauseReason)) return { text, resumed: false }
  return {
    text: clearLedger(updateMachineState(text, { paused: false, pauseReason: null })),
    resumed: true
  }
}

// ---------------------------------------------------------------------------------------
// The shell

export interface ProgramReport {
  program: string
  /** The program's state as found: active, paused: <reason>, completed, unreadable. */
  state: string
  /** What reconcile did, in words. */
  action: string
  abandoned: boolean
  resumed: boolean
  error: string | null
}

function stateWord(machine: MachineState): string {
  if (machine.completed) return 'completed'
  if (machine.paused) return `paused: ${machine.pauseReason ?? 'no reason given'}`
  return 'active'
}

function verdictWords(verdict: Verdict): string {
  switch (verdict.kind) {
    case 'green':
      return 'green'
    case 'pending':
      return `still running (${verdict.waitingFor.slice(0, 3).join(', ')})`
    case 'no-checks':
      return `no checks (${verdict.reasons.join('; ')})`
    case 'red':
      return `red (${verdict.reasons.slice(0, 3).join('; ')})`
  }
}

async function mapPool<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next
      next += 1
      results[index] = await work(items[index] as T)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

interface ProgramContext {
  config: Config
  deps: CommandDeps
}

async function livenessOfAttempts(
  ledger: Ledger,
  { deps }: ProgramContext
): Promise<Map<number, RunLiveness>> {
  const liveness = new Map<number, RunLiveness>()
  for (const attempt of inFlightAttempts(ledger)) {
    if (attempt.runId === null || !deps.github.workflowRunStatus) {
      liveness.set(attempt.index, 'unknown')
    } else if (attempt.runId === deps.environment.runId) {
      liveness.set(attempt.index, 'running')
    } else {
      liveness.set(
        attempt.index,
        livenessOf(await deps.github.workflowRunStatus(attempt.runId), attempt)
      )
    }
  }
  return liveness
}

function update(program: string, apply: (text: string) => string, { deps }: ProgramContext) {
  return updateProgramState(deps, program, (text) => {
    if (text === null) throw new Error('the state file was deleted while reconcile ran')
    return { text: apply(text), value: null }
  })
}

async function sayOnIssue(
  context: ProgramContext,
  program: string,
  machine: MachineState,
  comment: { marker: string; body: string } | null
): Promise<void> {
  const issue = issueOf({ issue: undefined }, machine)
  if (issue === undefined) return
  try {
    await announceStatus(context.deps, program, machine, issue)
    if (comment) await upsertMarkedComment(context.deps.issues, issue, comment.marker, comment.body)
  } catch (error) {
    context.deps.log.warning(
      `${program}: could not comment on issue #${issue}: ${errorMessage(error)}`
    )
  }
}

async function resolveAbandoned(
  program: string,
  ledger: Ledger,
  context: ProgramContext
): Promise<{ action: string; paused: boolean } | null> {
  const { deps, config } = context
  if (isIterationFinished(ledger) || inFlightAttempts(ledger).length === 0) return null
  const liveness = await livenessOfAttempts(ledger, context)
  const now = deps.clock.now()
  const stale = staleAttempts(ledger, liveness, { now, timeoutMinutes: config.timeoutMinutes })
  if (stale.length === 0) return null
  let marked: ReturnType<typeof markAbandoned> | undefined
  const written = await update(
    program,
    (text) => {
      marked = markAbandoned(text, stale, {
        now: deps.clock.now(),
        timeoutMinutes: config.timeoutMinutes
      })
      return marked.text
    },
    context
  )
  const result = marked as ReturnType<typeof markAbandoned>
  if (result.abandoned.length === 0) return null
  const runs = stale
    .filter((attempt) => result.abandoned.includes(attempt.index))
    .map(
      (attempt) =>
        `attempt ${attempt.index} on ${attempt.sha.slice(0, 7)}${attempt.runId ? ` (run ${attempt.runId})` : ''}`
    )
  deps.log.info(`${program}: marked abandoned: ${runs.join(', ')}`)
  if (result.paused) {
    const machine = readMachineState(written.text)
    const after = readLedger(written.text) as Ledger
    const marker = commentMarker('pause', after.iteration.id)
    await sayOnIssue(context, program, machine, {
      marker,
      body: renderPauseComment({
        program,
        iterationId: after.iteration.id,
        reason: 'ci-timeout',
        signature: null,
        attempts: after.attempts,
        runUrlOf: (runId) => runLink(deps, runId),
        maskedValues: deps.maskedValues,
        branch: machine.branch ?? `autoloop/${program}`
      })
    })
  }
  return {
    action: `marked ${runs.join(', ')} abandoned${result.paused ? '; paused: ci-timeout (wall clock spent)' : ''}`,
    paused: result.paused
  }
}

export function renderResumeComment(view: {
  program: string
  marker: string
  sha: string
  branch: string
  previousReason: string
  checks: number
  maskedValues: readonly string[]
}): string {
  const options = { maskedValues: view.maskedValues }
  return [
    view.marker,
    `### ▶️ Autoloop program ${inlineCode(view.program, 100, options)} resumed`,
    '',
    `Every check on ${inlineCode(view.sha, 64)} (the head of ${inlineCode(view.branch, 200, options)}) is green (${view.checks} counted), so the pause is lifted:`,
    '',
    `- **It was paused for:** ${inlineCode(view.previousReason, 300, options)}`,
    `- **Green at:** ${inlineCode(view.sha, 64)}`,
    '',
    'Paused and Pause Reason are cleared and the CI fix-loop ledger is gone: the next scheduled iteration starts from this commit.'
  ].join('\n')
}

async function tryResume(
  program: string,
  machine: MachineState,
  context: ProgramContext
): Promise<{ action: string; resumed: boolean }> {
  const { deps, config } = context
  const branch = machine.branch ?? `autoloop/${program}`
  const head = await deps.github.branchHead(branch)
  if (!head) return { action: `left paused: branch ${branch} does not exist`, resumed: false }
  const verdict = resumeVerdict(await deps.github.readChecks(head), config)
  if (verdict.kind !== 'green')
    return {
      action: `left paused: ${head.slice(0, 7)} is ${verdictWords(verdict)}`,
      resumed: false
    }
  let resumed = false
  const written = await update(
    program,
    (text) => {
      const next = resumeText(text)
      resumed = next.resumed
      return next.text
    },
    context
  )
  if (!resumed) return { action: 'none: the pause changed meanwhile', resumed: false }
  const marker = commentMarker('resume', `${head}`)
  const counted = verdict.checks.filter((check) => check.excluded === undefined).length
  await sayOnIssue(context, program, readMachineState(written.text), {
    marker,
    body: renderResumeComment({
      program,
      marker,
      sha: head,
      branch,
      previousReason: machine.pauseReason ?? '',
      checks: counted,
      maskedValues: deps.maskedValues
    })
  })
  deps.log.info(`${program}: resumed, every check on ${head} is green`)
  return { action: `resumed: every check on ${head.slice(0, 7)} is green`, resumed: true }
}

async function reconcileProgram(program: string, context: ProgramContext): Promise<ProgramReport> {
  const report: ProgramReport = {
    program,
    state: 'unreadable',
    action: 'none',
    abandoned: false,
    resumed: false,
    error: null
  }
  try {
    const stored = await context.deps.store.read(program)
    if (!stored) return { ...report, state: 'deleted', action: 'none: the file is gone' }
    const machine = readMachineState(stored.text)
    const ledger = readLedger(stored.text)
    report.state = stateWord(machine)
    const actions: string[] = []
    let pausedNow = false
    if (ledger) {
      const abandoned = await resolveAbandoned(program, ledger, context)
      if (abandoned) {
        report.abandoned = true
        pausedNow = abandoned.paused
        actions.push(abandoned.action)
      }
    }
    if (!pausedNow && machine.paused) {
      if (isCiPause(machine.pauseReason)) {
        const resume = await tryResume(program, machine, context)
        report.resumed = resume.resumed
        actions.push(resume.action)
      } else {
        actions.push('left paused: not a CI pause (only reset lifts it)')
      }
    }
    report.action = actions.length > 0 ? actions.join('; ') : 'none'
    return report
  } catch (error) {
    const reason = errorMessage(error)
    context.deps.log.warning(`${program}: ${reason}`)
    return { ...report, action: 'left untouched', error: reason }
  }
}

function summaryOf(
  reports: readonly ProgramReport[],
  resumed: string[],
  abandoned: string[],
  errors: number
): string {
  const lines = [
    '## autoloop-ci-gate: reconcile',
    '',
    `${reports.length} program${reports.length === 1 ? '' : 's'}: ${resumed.length} resumed, ${abandoned.length} with abandoned attempts, ${errors} error${errors === 1 ? '' : 's'}.`,
    ''
  ]
  if (reports.length > 0)
    lines.push(
      markdownTable([
        ['Program', 'State', 'Action'],
        ...reports.map((report) => [
          tableCell(report.program, 100),
          tableCell(report.state, 200),
          report.error ? `⚠️ error: ${tableCell(report.error, 400)}` : tableCell(report.action, 400)
        ])
      ])
    )
  return lines.join('\n') + '\n'
}

export async function runReconcileCommand(
  config: Config,
  deps: CommandDeps
): Promise<CommandResult> {
  const programs = await deps.store.list()
  deps.log.info(`Reconciling ${programs.length} program(s) in ${deps.store.description}`)
  const context: ProgramContext = { config, deps }
  const reports = await mapPool(programs, RECONCILE_CONCURRENCY, (program) =>
    reconcileProgram(program, context)
  )
  const resumed = reports.filter((r) => r.resumed).map((r) => r.program)
  const abandoned = reports.filter((r) => r.abandoned).map((r) => r.program)
  const errors = reports
    .filter((r) => r.error !== null)
    .map((r) => ({ program: r.program, reason: r.error as string }))
  return {
    outputs: {
      status: 'reconciled',
      resumed: JSON.stringify(resumed),
      abandoned: JSON.stringify(abandoned),
      errors: JSON.stringify(errors)
    },
    summary: summaryOf(reports, resumed, abandoned, errors.length),
    message: `Reconciled ${programs.length} program(s): ${resumed.length} resumed, ${abandoned.length} with abandoned attempts, ${errors.length} error(s)`
  }
}
