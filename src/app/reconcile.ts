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
import pLimit from 'p-limit'
import type { Config } from '../core/inputs.js'
import { runUrl } from '../core/environment.js'
import { isCounted, reduceChecks, type ReducePolicy, type Verdict } from '../core/checks/reduce.js'
import { commentMarker, renderPauseComment, renderResumeComment } from '../render/comments.js'
import { renderReconcileSummary, stateWord } from '../render/reconcile-summary.js'
import { latestAttempt, type Attempt, type Ledger } from '../core/ledger.js'
import type { Blocked } from '../core/rules/classify.js'
import { fallbackOf, fixerRunVerdict } from './fixer-check.js'
import {
  abandonedIn,
  decideInFlight,
  decideResume,
  decideUnfixed,
  isIdle,
  liftsPause,
  livenessOf,
  pauseOf,
  pausesIn,
  planReconcile,
  resumedIn,
  unfixedWhy,
  wroteFiles,
  type Happened,
  type ProgramOutcome,
  type ReconcilePlan,
  type ResumeWhen,
  type RunLiveness,
  type UnfixedCause
} from '../core/rules/reconcile.js'
import { updateProgram, type ProgramFiles } from './program-files.js'
import type { StateStore } from '../ports.js'
import { errorMessage } from '../core/errors.js'
import { announce } from './announce.js'
import type { CommandDeps, CommandResult } from './command-deps.js'
import { ignoreMatcher } from '../core/checks/policy.js'
import { doctorForReconcile } from './doctor.js'
import { programSource, readProgramFiles } from './snapshot-store.js'
import { settleWaiting, waitingAttempt } from './settle.js'
import { statusOf } from './outputs.js'

/** Programs handled at once. */
export const RECONCILE_CONCURRENCY = 8

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

/**
 * Writes what `decide` makes of the program's files as they are at the write: its ledger, or
 * nothing when it has none (a stale `<program>.md` is projected again all the same). A
 * compare-and-swap retry decides again from the new text; the outcome written is the value.
 */
function writeDecided<T extends { kind: string; ledger?: Ledger }>(
  program: string,
  store: StateStore,
  { deps, config }: Context,
  decide: (current: ProgramFiles, now: number) => T
) {
  return updateProgram(
    { ...deps, store },
    program,
    { maxBytes: config.stateMaxBytes },
    (current) => {
      const outcome = decide(current, deps.clock.now())
      return { ledger: outcome.ledger ?? current.ledger, value: outcome }
    }
  )
}

/** In-flight attempts of runs that are gone: abandoned; paused `ci-timeout` when the wall clock is spent. */
async function resolveAbandoned(
  program: string,
  store: StateStore,
  plan: ReconcilePlan,
  context: Context
): Promise<Happened[]> {
  const { deps } = context
  if (plan.inFlight.length === 0) return []
  const liveness = await livenessOfAttempts(plan.inFlight, context)
  const written = await writeDecided(program, store, context, (current, now) =>
    decideInFlight({ ledger: current.ledger, machine: current.machine, liveness, now })
  )
  const outcome = written.value
  if (outcome.kind === 'unchanged') return []
  const attempts = plan.inFlight
    .filter((attempt) => outcome.indices.includes(attempt.index))
    .map(
      (attempt) =>
        `attempt ${attempt.index} on ${attempt.sha.slice(0, 7)}${attempt.runId ? ` (run ${attempt.runId})` : ''}`
    )
  deps.log.info(`${program}: marked abandoned: ${attempts.join(', ')}`)
  const abandoned: Happened = { kind: 'abandoned', attempts }
  if (outcome.kind === 'abandoned') return [abandoned]
  await announce(deps, {
    program,
    machine: written.files.machine,
    issue: undefined,
    comment: pauseComment(context, program, written.files, outcome.reason)
  })
  return [
    abandoned,
    { kind: 'paused', reason: outcome.reason, why: 'wall clock spent', advice: null }
  ]
}

/**
 * Why nobody fixed the red attempt, once its fixer run ended (having pushed nothing, or with
 * no fix able to come) or the wall clock ran out; null while a fix may still come.
 */
async function unfixedCause(
  program: string,
  files: ProgramFiles,
  plan: ReconcilePlan,
  { deps }: Context
): Promise<UnfixedCause | null> {
  if (plan.fixer) {
    const fixer = await fixerRunVerdict(deps, plan.fixer)
    if (fixer.verdict.kind === 'no-fix') return { kind: 'no-fix', blocked: fixer.verdict.blocked }
    if (fixer.verdict.kind === 'agent-ran') {
      const blocked = await fallbackOf(
        deps,
        files.machine.branch ?? `autoloop/${program}`,
        Date.parse(plan.fixer.endedAt ?? plan.fixer.startedAt)
      )
      return blocked ? { kind: 'no-fix', blocked } : { kind: 'fixer-ended', runId: fixer.runId }
    }
  }
  return plan.expired ? { kind: 'expired' } : null
}

/**
 * A red attempt nobody fixed: its fixer run ended without gating (a fix attempt with an
 * unchanged signature: stuck), no fix could arrive (blocked), or the wall clock ran out
 * (`ci-timeout`).
 */
async function resolveUnfixed(
  program: string,
  store: StateStore,
  files: ProgramFiles,
  plan: ReconcilePlan,
  context: Context
): Promise<Happened[]> {
  const { deps } = context
  const cause = await unfixedCause(program, files, plan, context)
  if (!cause) return []
  const written = await writeDecided(program, store, context, (current, now) =>
    decideUnfixed({
      ledger: current.ledger,
      machine: current.machine,
      cause,
      fixerIndex: plan.fixer?.index ?? null,
      now
    })
  )
  const outcome = written.value
  if (outcome.kind === 'unchanged') return []
  const blocked = cause.kind === 'no-fix' ? cause.blocked : null
  await announce(deps, {
    program,
    machine: written.files.machine,
    issue: undefined,
    comment: pauseComment(context, program, written.files, outcome.reason, blocked)
  })
  const why = unfixedWhy(cause)
  deps.log.info(`${program}: ${why}: paused (${outcome.reason})`)
  return [{ kind: 'paused', reason: outcome.reason, why, advice: blocked?.advice ?? null }]
}

/**
 * The attempt a gate with `wait: false` left waiting, settled when CI has finished: the
 * safety net for a `settle` event that never came (README: "Settling on events").
 */
async function settleForEvents(
  program: string,
  store: StateStore,
  files: ProgramFiles,
  plan: ReconcilePlan,
  { config, deps }: Context
): Promise<Happened> {
  const attempt = plan.waiting && waitingAttempt(files)
  if (!attempt) return { kind: 'settled', status: 'waiting', why: 'nothing waits' }
  const report = await settleWaiting(config, deps, files, attempt, store)
  const status = statusOf(report.settlement)
  deps.log.info(`${program}: waiting attempt ${attempt.index}: ${report.message}`)
  const { settlement } = report
  return {
    kind: 'settled',
    status,
    why: report.message,
    ...(settlement.kind === 'paused' ? { pause: settlement.pause.reason } : {})
  }
}

async function tryResume(
  program: string,
  store: StateStore,
  files: ProgramFiles,
  when: ResumeWhen,
  context: Context
): Promise<Happened> {
  const { deps, config } = context
  const branch = files.machine.branch ?? `autoloop/${program}`
  const watched =
    when === 'base-green'
      ? (files.ledger.baseFailures?.branch ?? (await deps.github.defaultBranch()))
      : branch
  const head = await deps.github.branchHead(watched)
  if (!head) return { kind: 'left-paused', why: `branch ${watched} does not exist` }
  const verdict = reduceChecks(await deps.github.readChecks(head), resumePolicy(config), 0)
  if (!liftsPause(when, verdict.kind))
    return {
      kind: 'left-paused',
      why: `${watched} at ${head.slice(0, 7)} is ${verdictWords(verdict)}`
    }
  const written = await writeDecided(program, store, context, (current, now) =>
    decideResume({
      ledger: current.ledger,
      machine: current.machine,
      pausedFor: files.machine.pauseReason,
      now
    })
  )
  if (written.value.kind === 'pause-changed') return { kind: 'pause-changed' }
  const counted = verdict.checks.filter(isCounted).length
  const why =
    when === 'verdict'
      ? `CI on ${head.slice(0, 12)} has a verdict now (${verdict.kind}, ${counted} checks)`
      : when === 'base-green'
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
  return { kind: 'resumed', why }
}

async function reconcileProgram(
  program: string,
  store: StateStore,
  context: Context
): Promise<ProgramOutcome> {
  let state = 'unreadable'
  try {
    const files = await readProgramFiles(program, store, context)
    if (!files) return { kind: 'deleted', program }
    state = stateWord(files.machine)
    const plan = planReconcile(files, context.deps.clock.now())
    const reconciled = (happened: Happened[]): ProgramOutcome => ({
      kind: 'reconciled',
      program,
      state,
      happened,
      reprojected: plan.reproject
    })
    if (isIdle(plan)) return reconciled([])
    const happened = await resolveAbandoned(program, store, plan, context)
    if (plan.waiting) happened.push(await settleForEvents(program, store, files, plan, context))
    const paused = () => happened.some((step) => pauseOf(step) !== null)
    if (!paused()) happened.push(...(await resolveUnfixed(program, store, files, plan, context)))
    if (plan.resume && !paused())
      happened.push(await tryResume(program, store, files, plan.resume, context))
    else if (files.machine.paused && !plan.resume && happened.length === 0)
      happened.push({ kind: 'left-paused', why: 'not a CI pause (only reset lifts it)' })
    // Any write projected the ledger again; with none, the projection is written on its own.
    if (plan.reproject && !wroteFiles(happened)) {
      await writeDecided(program, store, context, () => ({ kind: 'project' }))
      happened.push({ kind: 'reprojected' })
    }
    return reconciled(happened)
  } catch (error) {
    const reason = errorMessage(error)
    context.deps.log.warning(`${program}: ${reason}`)
    return { kind: 'failed', program, state, reason }
  }
}

export async function runReconcileCommand(
  config: Config,
  deps: CommandDeps
): Promise<CommandResult> {
  const context: Context = { config, deps }
  const { programs, store, label, branchFound } = await programSource(config, deps)
  deps.log.info(`Reconciling ${programs.length} program(s) read ${label}`)
  const limit = pLimit(RECONCILE_CONCURRENCY)
  const outcomes = await Promise.all(
    programs.map((program) => limit(() => reconcileProgram(program, store, context)))
  )
  const resumed = outcomes.filter(resumedIn).map((o) => o.program)
  const abandoned = outcomes.filter(abandonedIn).map((o) => o.program)
  const paused = outcomes.flatMap(pausesIn)
  const errors = outcomes.flatMap((o) =>
    o.kind === 'failed' ? [{ program: o.program, reason: o.reason }] : []
  )
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
      paused: JSON.stringify(paused),
      errors: JSON.stringify(errors),
      doctor: doctor.output
    },
    summary: renderReconcileSummary(outcomes, label) + doctor.summary,
    message: `Reconciled ${programs.length} program(s): ${resumed.length} resumed, ${paused.length} paused, ${abandoned.length} with abandoned attempts, ${errors.length} error(s)`
  }
}
