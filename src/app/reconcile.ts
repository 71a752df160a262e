/**
 * The `reconcile` command (docs/commands.md: "reconcile"), for a schedule and as gh-aw's `ci_reconcile`
 * job before the agent. For every program in the state store:
 * - attempts left in flight by a run that is no longer running are marked abandoned (and the
 *   program paused `ci-timeout` when its wall clock is spent): nothing waits on a run that
 *   will never report;
 * - a red attempt whose fixer run ended without gating (it pushed nothing) is a fix attempt
 *   with an unchanged signature: the program pauses as stuck; a red attempt nobody fixed by
 *   the end of the wall clock pauses `ci-timeout`;
 * - a program paused by the CI gate resumes once the head of its branch is green (a `blocked`
 *   one once the head has any verdict; a `ci-base-red` one once the base branch is green); a
 *   `manual` or `consecutive errors` pause is never lifted here;
 * - `<program>.md` is projected from the ledger again when another run's memory push
 *   reverted it.
 *
 * Cost: the state branch is read with one shallow git fetch (no REST rate limit), so an idle
 * program costs nothing; a program that needs action costs what it needs. One program's error
 * never stops the others: it is listed in `errors` and its files are left untouched.
 */
import { markdownTable } from 'markdown-table'
import pLimit from 'p-limit'
import type { Config } from '../core/inputs.js'
import { runUrl } from '../core/environment.js'
import { reduceChecks, type ReducePolicy, type Verdict } from '../core/checks/reduce.js'
import { commentMarker, renderPauseComment } from '../render/comments.js'
import {
  appendNoNewCommit,
  completeAttempt,
  isIterationOpen,
  latestAttempt,
  withStateWrite,
  type Attempt
} from '../core/ledger.js'
import { noProgressPause, repeatedVerdict } from '../core/rules/guard.js'
import type { Blocked } from '../core/rules/classify.js'
import { fallbackOf, fixerRunVerdict } from './fixer-check.js'
import { pauseInLedger } from '../core/rules/pause.js'
import { pauseReason, type PauseKind } from '../core/rules/pause-reasons.js'
import {
  isIdle,
  livenessOf,
  planReconcile,
  staleAttempts,
  type ReconcilePlan,
  type RunLiveness
} from '../core/rules/reconcile.js'
import { ledgerPath } from '../core/ledger.js'
import { programFilesOf, updateProgram, type ProgramFiles } from './program-files.js'
import { type StateStore } from '../ports.js'
import { stateFilePath } from '../core/schema.js'
import { StateConflictError } from '../core/state-errors.js'
import type { MemorySnapshot } from '../ports.js'
import { inlineCode, tableCell } from '../core/text/untrusted.js'
import { errorMessage } from '../core/errors.js'
import { announce } from './announce.js'
import type { CommandDeps, CommandResult } from './command-deps.js'
import { ignoreMatcher } from '../app/gate/observe.js'
import { doctorForReconcile } from './doctor.js'

/** Programs handled at once. */
export const RECONCILE_CONCURRENCY = 8

export interface ProgramReport {
  program: string
  /** The program's state as found: active, paused: <reason>, completed, unreadable. */
  state: string
  /** What reconcile did, in words. */
  action: string
  abandoned: boolean
  resumed: boolean
  reprojected: boolean
  error: string | null
  /** What a maintainer must do, when reconcile paused the program as blocked. */
  advice?: string
}

function stateWord(machine: ProgramFiles['machine']): string {
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

/** "Green on every check": the gate's reduction with no grace period and no own-run exclusion. */
export function resumePolicy(
  config: Pick<Config, 'requiredChecks' | 'ignoreChecks'>
): ReducePolicy {
  return {
    requiredChecks: config.requiredChecks,
    isIgnored: ignoreMatcher(config),
    ownWorkflowRunId: undefined,
    failFast: false,
    allowNoChecks: false,
    graceMs: 0
  }
}

interface Context {
  config: Config
  deps: CommandDeps
}

/**
 * The store seen through the snapshot git fetched: reads are answered from the snapshot (a
 * file absent there reads as none), writes go to the store and update the snapshot. A write
 * conflict shows the branch moved since the fetch, for any file: every read goes to the
 * store itself from then on.
 */
function throughSnapshot(store: StateStore, snapshot: MemorySnapshot): StateStore {
  const files = new Map(snapshot.files)
  let moved = false
  return {
    description: store.description,
    async read(path) {
      return moved ? store.read(path) : (files.get(path) ?? null)
    },
    async write(path, text, expected) {
      try {
        const written = await store.write(path, text, expected)
        files.set(path, { text, version: written.version })
        return written
      } catch (error) {
        if (error instanceof StateConflictError) moved = true
        throw error
      }
    },
    list: () => store.list()
  }
}

async function readFiles(
  program: string,
  store: StateStore,
  context: Context
): Promise<ProgramFiles | null> {
  const [stored, storedLedger] = await Promise.all([
    store.read(stateFilePath(program)),
    store.read(ledgerPath(program))
  ])
  if (!stored) return null
  return programFilesOf(program, stored, storedLedger, store.description, {
    maxBytes: context.config.stateMaxBytes,
    now: context.deps.clock.now()
  })
}

async function livenessOfAttempts(
  attempts: readonly Attempt[],
  { deps }: Context
): Promise<Map<number, RunLiveness>> {
  const liveness = new Map<number, RunLiveness>()
  for (const attempt of attempts) {
    if (attempt.runId === null) liveness.set(attempt.index, 'unknown')
    else if (attempt.runId === deps.environment.runId) liveness.set(attempt.index, 'running')
    else
      liveness.set(
        attempt.index,
        livenessOf(await deps.github.workflowRunStatus(attempt.runId), attempt)
      )
  }
  return liveness
}

function pauseComment(
  context: Context,
  program: string,
  files: ProgramFiles,
  reason: string,
  blocked: Blocked | null = null
) {
  const ledger = files.ledger
  const iterationId = ledger.iteration?.id ?? program
  const marker = commentMarker('pause', iterationId)
  const latest = latestAttempt(ledger)
  return {
    marker,
    body: renderPauseComment({
      program,
      iterationId,
      reason,
      signature:
        latest?.signature && latest.signature.full
          ? { full: latest.signature.full, short: latest.signature.short }
          : null,
      attempts: ledger.attempts,
      runUrlOf: (runId) => runUrl(context.deps.environment, runId),
      maskedValues: context.deps.maskedValues,
      branch: files.machine.branch ?? `autoloop/${program}`,
      ...(blocked ? { blocked } : {})
    })
  }
}

interface Step {
  action: string
  abandoned?: boolean
  resumed?: boolean
  paused?: boolean
  advice?: string
}

/** In-flight attempts of runs that are gone: abandoned; paused `ci-timeout` when the wall clock is spent. */
async function resolveAbandoned(
  program: string,
  store: StateStore,
  plan: ReconcilePlan,
  context: Context
): Promise<Step | null> {
  const { deps, config } = context
  if (plan.inFlight.length === 0) return null
  const liveness = await livenessOfAttempts(plan.inFlight, context)
  // What the write did is its value: a compare-and-swap retry decides again from the new text.
  const written = await updateProgram(
    { ...deps, store },
    program,
    { maxBytes: config.stateMaxBytes },
    (current) => {
      const now = deps.clock.now()
      const stale = staleAttempts(current.ledger, liveness, now)
      if (stale.length === 0)
        return { ledger: current.ledger, value: { abandoned: [] as number[], paused: false } }
      let ledger = current.ledger
      for (const attempt of stale)
        ledger = completeAttempt(ledger, attempt.index, { state: 'abandoned', now })
      const spent =
        isIterationOpen(ledger) &&
        now > Date.parse(ledger.iteration.startedAt) + ledger.iteration.timeoutMinutes * 60_000
      const latest = latestAttempt(ledger) as Attempt
      const pause =
        spent && !current.machine.paused && ledger.attempts.every((a) => a.state !== 'in-flight')
      if (pause)
        ledger = pauseInLedger(ledger, current.machine, {
          index: latest.index,
          verdict: { state: 'abandoned', now },
          kind: 'timeout',
          reason: pauseReason('timeout'),
          remember: null,
          now
        })
      return { ledger, value: { abandoned: stale.map((a) => a.index), paused: pause } }
    }
  )
  const marked = written.value
  if (marked.abandoned.length === 0) return null
  const runs = plan.inFlight
    .filter((attempt) => marked.abandoned.includes(attempt.index))
    .map(
      (attempt) =>
        `attempt ${attempt.index} on ${attempt.sha.slice(0, 7)}${attempt.runId ? ` (run ${attempt.runId})` : ''}`
    )
  deps.log.info(`${program}: marked abandoned: ${runs.join(', ')}`)
  if (marked.paused)
    await announce(deps, {
      program,
      machine: written.files.machine,
      issue: undefined,
      comment: pauseComment(context, program, written.files, pauseReason('timeout'))
    })
  return {
    action: `marked ${runs.join(', ')} abandoned${marked.paused ? '; paused: ci-timeout (wall clock spent)' : ''}`,
    abandoned: true,
    paused: marked.paused
  }
}

/**
 * A red attempt nobody fixed: its fixer run ended without gating (a fix attempt with an
 * unchanged signature: stuck), or the wall clock ran out (`ci-timeout`).
 */
async function resolveUnfixed(
  program: string,
  store: StateStore,
  files: ProgramFiles,
  plan: ReconcilePlan,
  context: Context
): Promise<Step | null> {
  const { deps, config } = context
  let fixerEnded = false
  let fixerRunId: number | null = null
  let noFix: Blocked | null = null
  if (plan.fixer) {
    const fixer = await fixerRunVerdict(deps, plan.fixer)
    fixerRunId = fixer.runId
    fixerEnded = fixer.verdict.kind !== 'running'
    if (fixer.verdict.kind === 'no-fix') noFix = fixer.verdict.blocked
    else if (fixer.verdict.kind === 'agent-ran')
      noFix = await fallbackOf(
        deps,
        files.machine.branch ?? `autoloop/${program}`,
        Date.parse(plan.fixer.endedAt ?? plan.fixer.startedAt)
      )
  }
  if (!fixerEnded && !plan.expired) return null
  const written = await updateProgram<{ kind: PauseKind; reason: string } | null>(
    { ...deps, store },
    program,
    { maxBytes: config.stateMaxBytes },
    (current) => {
      const latest = latestAttempt(current.ledger)
      if (
        !latest ||
        current.machine.paused ||
        !isIterationOpen(current.ledger) ||
        latest.index !== (plan.fixer ?? latest).index
      )
        return { ledger: current.ledger, value: null }
      if (latest.state !== 'red' && latest.state !== 'no-checks')
        return { ledger: current.ledger, value: null }
      const now = deps.clock.now()
      if (noFix) {
        // No fix could have come: paused on the red attempt itself, no attempt spent.
        const reason = pauseReason('blocked', noFix.cause)
        const ledger = pauseInLedger(current.ledger, current.machine, {
          index: latest.index,
          verdict: repeatedVerdict(latest, latest.state, now, noFix.cause),
          kind: 'blocked',
          reason,
          remember: null,
          now
        })
        return { ledger, value: { kind: 'blocked', reason } }
      }
      if (fixerEnded) {
        const began = appendNoNewCommit(current.ledger, {
          sha: latest.sha,
          agentSha: latest.agentSha ?? null,
          runId: latest.dispatch?.runId ?? fixerRunId,
          now,
          maxFixAttempts: current.ledger.iteration?.maxFixAttempts ?? config.maxFixAttempts,
          timeoutMinutes: current.ledger.iteration?.timeoutMinutes ?? config.timeoutMinutes
        })
        const judged = noProgressPause(
          began.ledger,
          began.attempt.index,
          now,
          `the fixer run ${fixerRunId} ended without gating a new commit`
        )
        const ledger = pauseInLedger(began.ledger, current.machine, {
          index: began.attempt.index,
          verdict: judged.verdict,
          kind: judged.kind,
          reason: judged.reason,
          remember: judged.remember,
          now
        })
        return { ledger, value: { kind: judged.kind, reason: judged.reason } }
      }
      const ledger = pauseInLedger(current.ledger, current.machine, {
        index: latest.index,
        verdict: repeatedVerdict(
          latest,
          latest.state,
          now,
          'no fix was gated before the wall clock ran out'
        ),
        kind: 'timeout',
        reason: pauseReason('timeout'),
        remember: null,
        now
      })
      return { ledger, value: { kind: 'timeout', reason: pauseReason('timeout') } }
    }
  )
  const done = written.value
  if (!done) return null
  await announce(deps, {
    program,
    machine: written.files.machine,
    issue: undefined,
    comment: pauseComment(context, program, written.files, done.reason, noFix)
  })
  const why = noFix
    ? 'no fix could arrive'
    : fixerEnded
      ? `the fixer run ${fixerRunId} ended without gating a new commit`
      : 'no fix was gated before the wall clock ran out'
  deps.log.info(`${program}: ${why}: paused (${done.reason})`)
  return {
    action: `paused: ${done.reason} (${why})`,
    paused: true,
    ...(noFix ? { advice: noFix.advice } : {})
  }
}

export function renderResumeComment(view: {
  program: string
  marker: string
  sha: string
  branch: string
  previousReason: string
  why: string
  maskedValues: readonly string[]
}): string {
  const options = { maskedValues: view.maskedValues }
  return [
    view.marker,
    `### ▶️ Autoloop program ${inlineCode(view.program, 100, options)} resumed`,
    '',
    `${view.why}, so the pause is lifted:`,
    '',
    `- **It was paused for:** ${inlineCode(view.previousReason, 300, options)}`,
    `- **Head of ${inlineCode(view.branch, 200, options)}:** ${inlineCode(view.sha, 64)}`,
    '',
    'Paused and Pause Reason are cleared: the next scheduled iteration starts from this commit.'
  ].join('\n')
}

async function tryResume(
  program: string,
  store: StateStore,
  files: ProgramFiles,
  plan: ReconcilePlan,
  context: Context
): Promise<Step> {
  const { deps, config } = context
  const branch = files.machine.branch ?? `autoloop/${program}`
  const watched =
    plan.resume === 'base-green'
      ? (files.ledger.baseFailures?.branch ?? (await deps.github.defaultBranch()))
      : branch
  const head = await deps.github.branchHead(watched)
  if (!head) return { action: `left paused: branch ${watched} does not exist` }
  const verdict = reduceChecks(await deps.github.readChecks(head), resumePolicy(config), 0)
  const ready =
    plan.resume === 'verdict'
      ? verdict.kind === 'green' || verdict.kind === 'red'
      : verdict.kind === 'green'
  if (!ready)
    return { action: `left paused: ${watched} at ${head.slice(0, 7)} is ${verdictWords(verdict)}` }
  const written = await updateProgram(
    { ...deps, store },
    program,
    { maxBytes: config.stateMaxBytes },
    (current) => {
      if (!current.machine.paused || current.machine.pauseReason !== files.machine.pauseReason)
        return { ledger: current.ledger, value: false }
      return {
        ledger: withStateWrite(
          current.ledger,
          { machineState: { paused: false, pauseReason: null } },
          deps.clock.now()
        ),
        value: true
      }
    }
  )
  if (!written.value) return { action: 'none: the pause changed meanwhile' }
  const counted = verdict.checks.filter((check) => check.excluded === undefined).length
  const why =
    plan.resume === 'verdict'
      ? `CI on ${head.slice(0, 12)} has a verdict now (${verdict.kind}, ${counted} checks)`
      : plan.resume === 'base-green'
        ? `The base branch ${watched} is green at ${head.slice(0, 12)} (${counted} checks)`
        : `Every check on ${head.slice(0, 12)} is green (${counted} counted)`
  const marker = commentMarker('resume', head)
  await announce(deps, {
    program,
    machine: written.files.machine,
    issue: undefined,
    comment: {
      marker,
      body: renderResumeComment({
        program,
        marker,
        sha: head,
        branch: watched,
        previousReason: files.machine.pauseReason ?? '',
        why,
        maskedValues: deps.maskedValues
      })
    }
  })
  deps.log.info(`${program}: resumed: ${why}`)
  return { action: `resumed: ${why}`, resumed: true }
}

async function reconcileProgram(
  program: string,
  store: StateStore,
  context: Context
): Promise<ProgramReport> {
  const report: ProgramReport = {
    program,
    state: 'unreadable',
    action: 'none',
    abandoned: false,
    resumed: false,
    reprojected: false,
    error: null
  }
  try {
    const files = await readFiles(program, store, context)
    if (!files) return { ...report, state: 'deleted', action: 'none: the file is gone' }
    report.state = stateWord(files.machine)
    const plan = planReconcile(files, context.deps.clock.now())
    if (isIdle(plan)) return report
    const steps: Step[] = []
    const abandoned = await resolveAbandoned(program, store, plan, context)
    if (abandoned) steps.push(abandoned)
    if (!abandoned?.paused) {
      const unfixed = await resolveUnfixed(program, store, files, plan, context)
      if (unfixed) steps.push(unfixed)
    }
    if (plan.resume && !steps.some((step) => step.paused)) {
      steps.push(await tryResume(program, store, files, plan, context))
    } else if (files.machine.paused && !plan.resume && steps.length === 0) {
      steps.push({ action: 'left paused: not a CI pause (only reset lifts it)' })
    }
    if (plan.reproject && steps.every((step) => !step.resumed && !step.paused && !step.abandoned)) {
      await updateProgram(
        { ...context.deps, store },
        program,
        { maxBytes: context.config.stateMaxBytes },
        (current) => ({
          ledger: current.ledger,
          value: null
        })
      )
      steps.push({
        action: `projected the ledger into ${program}.md again (another writer had reverted it)`
      })
      report.reprojected = true
    } else if (plan.reproject) report.reprojected = true
    const advice = steps.find((step) => step.advice)?.advice
    if (advice) report.advice = advice
    report.abandoned = steps.some((step) => step.abandoned)
    report.resumed = steps.some((step) => step.resumed)
    report.action = steps.length > 0 ? steps.map((step) => step.action).join('; ') : 'none'
    return report
  } catch (error) {
    const reason = errorMessage(error)
    context.deps.log.warning(`${program}: ${reason}`)
    return { ...report, action: 'left untouched', error: reason }
  }
}

function summaryOf(reports: readonly ProgramReport[], source: string): string {
  const resumed = reports.filter((r) => r.resumed).length
  const abandoned = reports.filter((r) => r.abandoned).length
  const reprojected = reports.filter((r) => r.reprojected).length
  const errors = reports.filter((r) => r.error !== null).length
  const acted = reports.filter((r) => r.action !== 'none' || r.error !== null)
  const lines = [
    '## autoloop-ci-gate: reconcile',
    '',
    `${reports.length} program${reports.length === 1 ? '' : 's'} (read ${source}): ${resumed} resumed, ${abandoned} with abandoned attempts, ${reprojected} projected again, ${errors} error${errors === 1 ? '' : 's'}, ${reports.length - acted.length} idle.`,
    ''
  ]
  if (acted.length > 0)
    lines.push(
      markdownTable([
        ['Program', 'State', 'Action'],
        ...acted.map((report) => [
          tableCell(report.program, 100),
          tableCell(report.state, 200),
          report.error ? `⚠️ error: ${tableCell(report.error, 400)}` : tableCell(report.action, 400)
        ])
      ])
    )
  for (const report of reports)
    if (report.advice) lines.push('', `**${tableCell(report.program, 100)}:** ${report.advice}`)
  return lines.join('\n') + '\n'
}

/** The programs and a store to read them from: the git snapshot when there is one. */
async function source(
  context: Context
): Promise<{ programs: string[]; store: StateStore; label: string; branchFound?: boolean }> {
  const { deps, config } = context
  if (deps.memoryBranch) {
    try {
      const snapshot = await deps.memoryBranch.read(config.stateBranch)
      const programs = snapshot
        ? [...snapshot.files.keys()]
            .filter((path) => /^[^/]+\.md$/.test(path))
            .map((path) => path.slice(0, -3))
            .filter((name) => {
              try {
                return stateFilePath(name) === `${name}.md`
              } catch {
                return false
              }
            })
            .sort()
        : []
      return {
        programs,
        store: throughSnapshot(deps.store, snapshot ?? { commit: '', files: new Map() }),
        label: snapshot
          ? `with git at ${snapshot.commit.slice(0, 12)}`
          : 'with git: the branch does not exist',
        branchFound: snapshot !== null
      }
    } catch (error) {
      deps.log.warning(
        `Reading ${config.stateBranch} with git failed (${errorMessage(error)}); reading it through the contents API instead`
      )
    }
  }
  return {
    programs: await deps.store.list(),
    store: deps.store,
    label: `from ${deps.store.description}`
  }
}

export async function runReconcileCommand(
  config: Config,
  deps: CommandDeps
): Promise<CommandResult> {
  const context: Context = { config, deps }
  const { programs, store, label, branchFound } = await source(context)
  deps.log.info(`Reconciling ${programs.length} program(s) read ${label}`)
  const limit = pLimit(RECONCILE_CONCURRENCY)
  const reports = await Promise.all(
    programs.map((program) => limit(() => reconcileProgram(program, store, context)))
  )
  const resumed = reports.filter((r) => r.resumed).map((r) => r.program)
  const abandoned = reports.filter((r) => r.abandoned).map((r) => r.program)
  const errors = reports
    .filter((r) => r.error !== null)
    .map((r) => ({ program: r.program, reason: r.error as string }))
  // The setup check, fail-soft: a broken setup shows here before the first red iteration.
  const doctor = await doctorForReconcile(
    config,
    deps,
    branchFound === undefined ? undefined : { branch: config.stateBranch, exists: branchFound }
  )
  return {
    outputs: {
      status: 'reconciled',
      resumed: JSON.stringify(resumed),
      abandoned: JSON.stringify(abandoned),
      errors: JSON.stringify(errors),
      doctor: doctor.output
    },
    summary: summaryOf(reports, label) + doctor.summary,
    message: `Reconciled ${programs.length} program(s): ${resumed.length} resumed, ${abandoned.length} with abandoned attempts, ${errors.length} error(s)`
  }
}
