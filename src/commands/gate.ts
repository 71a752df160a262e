/**
 * The `gate` command: one attempt of the CI fix loop of an iteration (docs/decisions.md: "The fix loop").
 *
 * The program (the `program` input, or the scheduler's selection a gh-aw workflow handed
 * over), then the commit (pushed here, given, or the branch head as the job found it; gh-aw's
 * empty CI-trigger commit is told apart), then the attempt written `in-flight` in the ledger
 * before waiting. Its verdict is settled into the ledger and `<program>.md`:
 * - green: the iteration ends (and is recorded `accepted` when the agent handed over its
 *   metric);
 * - no CI, or runs waiting for approval: paused at once, `ci-blocked` (no fix can help);
 * - red: whose failures they are (re-runs for infrastructure and flaky ones, the base branch
 *   head for pre-existing ones); the iteration's own failures make the signature the guards
 *   judge: pause (stuck, exhausted, wall clock), or write the fix brief and start the fixer
 *   (`dispatch-workflow`), or run `fix-command` and gate its commit in the same step.
 */
import type { Config, ProgramConfig } from '../inputs.js'
import { forProgram } from '../inputs.js'
import { runUrl } from '../environment.js'
import type { ReducePolicy } from '../checks/reduce.js'
import type { GateObservation } from '../checks/observation.js'
import type { PullInfo } from '../github/port.js'
import { parseIterationFile, parseSelection, type IterationReport } from '../handover.js'
import {
  attemptAt,
  beginAttempt,
  beginKind,
  appendNoNewCommit,
  completeAttempt,
  latestAttempt,
  pausedSignatureOf,
  updateAttempt,
  withStateWrite,
  type Attempt,
  type BeganAttempt,
  type Dispatch,
  type Ledger,
  type Rerun
} from '../loop/ledger.js'
import { blockedCause, type Blocked } from '../loop/classify.js'
import { deadlineOf } from '../loop/guard.js'
import { pauseInLedger } from '../loop/pause.js'
import {
  decide,
  needsFindings,
  type Observed,
  type Pause,
  type Settlement
} from '../gate/decide.js'
import { recordIteration, reportedOutcome, type RecordOutcome } from '../loop/record-outcome.js'
import {
  readProgram,
  updateProgram,
  type ProgramFiles,
  type ProgramUpdate
} from '../state/program-state.js'
import type { MachineStatePatch } from '../state/schema.js'
import { signatureOf, type Signature } from '../signature/signature.js'
import { buildKey } from '../signature/normalise.js'
import {
  diffKeys,
  failureSummaryJson,
  renderFailureSummaryMarkdown,
  type FailureSummary
} from '../summary/failure-summary.js'
import {
  commentMarker,
  renderGreenWithCaveatsComment,
  renderIterationComment,
  renderPauseComment
} from '../issue/comments.js'
import { forLog } from '../text/untrusted.js'
import { ActionError, errorMessage, httpStatus } from '../errors.js'
import { gateOutputs, gateSummaryMarkdown, type GateReport } from '../outputs.js'
import { announce } from './announce.js'
import type { CommandDeps, CommandResult } from './command-deps.js'
import { findRedFindings, type RedFindings } from './gate-failures.js'
import { LOCATE_TRIES, locateFixerRun, whyNoFix } from './fixer-check.js'
import {
  checkPolicy,
  ciTriggerParent,
  findOrOpenPull,
  resolveHead,
  waitForChecks,
  type GatedHead
} from './gate-wait.js'

/** What one gate did, for the outputs and the job summary. */
export type GateResult = GateReport

interface GateRun {
  config: ProgramConfig
  deps: CommandDeps
  /** The agent's iteration file: undefined without `iteration-file`, null when it is missing. */
  report: IterationReport | null | undefined
  policy?: ReducePolicy
  /**
   * The program's files as this run last read or wrote them: each write starts from them
   * instead of reading them again (a conflict reads them again). Undefined until read.
   */
  known?: ProgramFiles
}

// ---------------------------------------------------------------------------------------
// Which program, and what the agent handed over

async function readHandedOver(deps: CommandDeps, path: string): Promise<string | null> {
  try {
    return await deps.readFile(path)
  } catch (error) {
    throw new ActionError(`Cannot read ${path}: ${errorMessage(error)}`, {
      fix: 'check the path, and that the job downloaded the agent artifact before this step'
    })
  }
}

type Target = { config: ProgramConfig } | { skip: string }

async function resolveTarget(config: Config, deps: CommandDeps): Promise<Target> {
  if (config.program) return { config: forProgram(config, config.program) }
  const path = config.selectionFile as string
  const text = await readHandedOver(deps, path)
  if (text === null)
    return {
      skip: `No selection file at ${path} and no \`program\` input: the agent job handed over no program (it failed before its post-step, or the scheduler selected none). Nothing to gate; \`reconcile\` resolves a fix loop that waits on this run.`
    }
  const selection = parseSelection(text, path)
  if (selection.program === null)
    return { skip: `The scheduler selected no program this run (${path}): nothing to gate.` }
  const program = selection.program
  deps.log.info(`Program ${program} (from the scheduler's selection in ${path})`)
  return {
    config: {
      ...forProgram(config, program),
      issue: config.issue ?? selection.issue,
      pr: config.pr ?? selection.pr
    }
  }
}

async function readReport(
  run: Pick<GateRun, 'config' | 'deps'>
): Promise<IterationReport | null | undefined> {
  const path = run.config.iterationFile
  if (!path) return undefined
  const text = await readHandedOver(run.deps, path)
  return text === null ? null : parseIterationFile(text, path, run.config.program)
}

// ---------------------------------------------------------------------------------------
// The command

export async function runGateCommand(config: Config, deps: CommandDeps): Promise<CommandResult> {
  const target = await resolveTarget(config, deps)
  if ('skip' in target) {
    return {
      outputs: { status: 'skipped' },
      summary: `## autoloop-ci-gate: gate\n\n${target.skip}\n`,
      message: target.skip
    }
  }
  const run: GateRun = { config: target.config, deps, report: undefined }
  // A malformed iteration file stops the gate here, before anything is written.
  run.report = await readReport(run)
  const result = await gateProgram(run)
  const red = result.status === 'failure' || result.status === 'paused'
  return {
    outputs: gateOutputs(result),
    summary: gateSummaryMarkdown(run.config.program, result),
    message: result.message,
    ...(red && config.failOnRed ? { failure: `${result.message} (fail-on-red is set)` } : {})
  }
}

function emptyResult(status: GateResult['status'], message: string): GateResult {
  return {
    status,
    message,
    verdict: null,
    observation: null,
    attempt: null,
    attemptsRemaining: null,
    signature: null,
    pauseReason: null,
    failureMarkdown: null,
    failureJsonPath: null,
    dispatched: false,
    preExisting: [],
    classification: null,
    blocked: null,
    recorded: null,
    steps: []
  }
}

async function gateProgram(run: GateRun): Promise<GateResult> {
  const { config, deps } = run
  const initial = await readProgram(deps.store, config.program, {
    maxBytes: config.stateMaxBytes,
    now: deps.clock.now()
  })
  run.known = initial
  const stopped = stoppedReason(initial)
  if (stopped) {
    return {
      ...emptyResult(
        'skipped',
        `Program ${config.program} is ${stopped}; the gate does nothing (and starts no fixer). Run the reset command, or push a fix and let reconcile resume it.`
      ),
      pauseReason: initial.machine.paused ? initial.machine.pauseReason : null
    }
  }
  let knownPull = config.pr ?? initial.machine.pr ?? undefined
  let head = await resolveHead(config, deps)
  const steps: { attempt: number; sha: string; verdict: string; signature: string | null }[] = []
  for (;;) {
    const agentSha = head.pushed ? null : await ciTriggerParent(head.sha, deps)
    if (agentSha)
      deps.log.info(
        `${head.sha.slice(0, 12)} is gh-aw's empty CI-trigger commit on the agent's ${agentSha.slice(0, 12)}: gating it, recording both`
      )
    requireReportForNewCommit(run, initial, head)
    const noFix = steps.length === 0 ? await noFixArrived(run, initial, head) : null
    if (noFix) {
      const observed: Observed = { kind: 'no-fix-arrived', ...noFix }
      const settled = await deps.log.group(`Decide and apply: no fix arrived`, () =>
        settle(run, initial.ledger, observed, NOTHING_SEEN)
      )
      return { ...settled.result, steps }
    }
    const pull = await findOrOpenPull(config, deps, knownPull)
    if (pull) knownPull = pull.number
    const began = await begin(run, head, agentSha, pull)
    if ('stopped' in began)
      return emptyResult(
        'skipped',
        `Program ${config.program} was ${began.stopped} by another run while this gate started; nothing was recorded.`
      )
    if (began.kind === 'already-gated') return recordWithoutCommit(run, began, head)
    const { observed, seen } =
      began.kind === 'no-new-commit'
        ? {
            observed: { kind: 'no-new-commit' as const, index: began.attempt.index },
            seen: NOTHING_SEEN
          }
        : await deps.log.group(`Observe ${head.sha.slice(0, 12)}: checks and failures`, () =>
            observe(run, began, head, pull)
          )
    const { result, fix } = await deps.log.group(
      `Decide and apply: attempt ${began.attempt.index}`,
      () => settle(run, began.ledger, observed, seen)
    )
    steps.push({
      attempt: result.attempt?.index ?? began.attempt.index,
      sha: head.sha,
      verdict: result.verdict ?? 'red',
      signature: result.signature?.short ?? null
    })
    if (!fix) return { ...result, steps }
    const after = await runFixCommand(run, fix)
    if (after === head.sha) return { ...(await fixCommittedNothing(run, head, agentSha)), steps }
    head = await resolveHead({ ...config, sha: after }, deps)
  }
}

/** A compare-and-swap write of the program's ledger (and its projection), from the ledger as last known. */
async function write<T>(
  run: GateRun,
  apply: (current: ProgramFiles) => { ledger: Ledger; value: T }
): Promise<ProgramUpdate<T>> {
  const { config, deps } = run
  const written = await updateProgram(
    deps,
    config.program,
    { maxBytes: config.stateMaxBytes, ...(run.known ? { known: run.known } : {}) },
    apply
  )
  run.known = written.files
  return written
}

/**
 * A new commit to gate needs the agent's iteration file (when `iteration-file` is set): it is
 * an error, before anything is written, when the agent did not write it.
 */
function requireReportForNewCommit(run: GateRun, files: ProgramFiles, head: GatedHead): void {
  if (run.report !== null) return
  const kind = beginKind(files.ledger, { sha: head.sha, runId: run.deps.environment.runId ?? null })
  if (kind === 'first' || kind === 'fix')
    throw new ActionError(
      `The iteration file ${run.config.iterationFile} is missing, but ${head.sha.slice(0, 12)} on ${run.config.branch} is a new commit to gate: the agent must write the file whenever it pushes`,
      {
        fix: 'have the agent write {"metric": …, "improved": …, "change": "…"} (docs/gh-aw.md: "The files the workflow hands to the gate"); nothing was written'
      }
    )
}

/**
 * No new commit since the last gate, whose iteration ended: the agent's iteration, if it
 * handed one over, is recorded as it reported it (`rejected`, or `error`; an improvement
 * without a commit is an error too).
 */
async function recordWithoutCommit(
  run: GateRun,
  began: BeganAttempt & { files: ProgramFiles },
  head: GatedHead
): Promise<GateResult> {
  const { config, deps } = run
  const nothingNew = `${head.sha.slice(0, 12)} was gated already and its iteration ended ${began.ledger.iteration?.outcome ?? ''}: there is no new commit to gate`
  const report = run.report
  if (!report) return { ...emptyResult('skipped', `${nothingNew}.`), attempt: began.attempt }
  const { outcome, reason } = reportedOutcome(report, { newCommit: false, name: config.branch })
  const written = await write(run, (current) => {
    const recorded = recordIteration(current, {
      outcome,
      metric: report.metric ?? undefined,
      change: report.change,
      reason,
      commit: undefined,
      runId: deps.environment.runId ?? null,
      runUrl: runUrl(deps.environment),
      now: deps.clock.now(),
      maskedValues: deps.maskedValues
    })
    return { ledger: recorded.ledger, value: recorded.outcome }
  })
  const recorded = written.value
  if (recorded.entry) {
    const marker = commentMarker('iteration', recorded.runKey)
    await announce(deps, {
      program: config.program,
      machine: written.files.machine,
      issue: config.issue,
      comment: {
        marker,
        body: renderIterationComment({ program: config.program, marker, entry: recorded.entry })
      }
    })
  }
  return {
    ...emptyResult(
      'skipped',
      `${nothingNew}; ${recorded.recorded ? `recorded iteration ${recorded.iteration} as ${outcome}` : `run ${recorded.runKey} had recorded it already`}.`
    ),
    attempt: began.attempt,
    pauseReason: recorded.pauseReason,
    recorded
  }
}

/**
 * The branch head did not move since the red attempt, but no fix could have arrived (this
 * run's push failed, gh-aw diverted it, or the fixer run never ran its agent): the cause,
 * else null (the fixer pushed nothing: the no-progress guard judges it).
 */
async function noFixArrived(
  run: GateRun,
  files: ProgramFiles,
  head: GatedHead
): Promise<{ latest: Attempt; blocked: Blocked } | null> {
  const { config, deps } = run
  const kind = beginKind(files.ledger, { sha: head.sha, runId: deps.environment.runId ?? null })
  const latest = latestAttempt(files.ledger)
  if (kind !== 'no-new-commit' || !latest) return null
  const blocked = await whyNoFix(deps, {
    branch: config.branch,
    latest,
    safeOutputsResult: config.safeOutputsResult
  })
  return blocked ? { latest, blocked } : null
}

function stoppedReason(files: ProgramFiles): string | null {
  const { machine } = files
  if (machine.completed)
    return `completed${machine.completedReason ? ` (${machine.completedReason})` : ''}`
  if (machine.paused) return `paused: ${machine.pauseReason ?? 'no reason given'}`
  return null
}

type Began = (BeganAttempt & { files: ProgramFiles }) | { stopped: string }

/** The attempt, written in flight with this run's id before waiting (and Branch, PR, Issue rows). */
async function begin(
  run: GateRun,
  head: GatedHead,
  agentSha: string | null,
  pull: PullInfo | null
): Promise<Began> {
  const { config, deps } = run
  const { environment } = deps
  const written = await write(
    run,
    (current): { ledger: Ledger; value: BeganAttempt | { stopped: string } } => {
      const stopped = stoppedReason(current)
      if (stopped) return { ledger: current.ledger, value: { stopped } }
      const began = beginAttempt(current.ledger, {
        sha: head.sha,
        agentSha,
        runId: environment.runId ?? null,
        runAttempt: environment.runAttempt ?? null,
        now: deps.clock.now(),
        maxFixAttempts: config.maxFixAttempts,
        timeoutMinutes: config.timeoutMinutes
      })
      if (began.kind === 'already-gated') return { ledger: current.ledger, value: began }
      const rows: MachineStatePatch = {}
      if (current.machine.branch !== config.branch) rows.branch = config.branch
      if (pull && current.machine.pr !== pull.number) rows.pr = pull.number
      if (config.issue !== undefined && current.machine.issue !== config.issue)
        rows.issue = config.issue
      const ledger =
        Object.keys(rows).length > 0
          ? withStateWrite(began.ledger, { machineState: rows }, deps.clock.now())
          : began.ledger
      return { ledger, value: began }
    }
  )
  const value = written.value
  if ('stopped' in value) return value
  const { attempt, ledger, kind } = value
  const iteration = iterationOf(ledger)
  const what: Record<BeganAttempt['kind'], string> = {
    first: 'first gate of a new iteration',
    fix: `fix ${attempt.index} of ${iteration.maxFixAttempts}`,
    rerun: 'a re-run of this workflow run: the attempt is re-used, not counted again',
    resumed: 'left in flight by another run: re-used, not counted again',
    'no-new-commit': `fix ${attempt.index}: the branch head did not move since attempt ${attempt.index - 1}, so the fixer pushed nothing`,
    'already-gated': 'already gated'
  }
  deps.log.info(`Attempt ${attempt.index} of iteration ${iteration.id} (${what[kind]})`)
  return { ...value, ledger: written.files.ledger, files: written.files }
}

// ---------------------------------------------------------------------------------------
// Settling an attempt: observe, decide (`gate/decide.ts`, pure), apply

/** `fix-command` runs next, on these failure summary files, until the wall clock. */
interface FixStep {
  command: string
  attempt: Attempt
  signature: Signature
  jsonPath: string
  markdownPath: string
  deadline: number
}

interface Settled {
  result: GateResult
  /** Set when `fix-command` runs next. */
  fix: FixStep | null
}

/** What the gate saw on the attempt's commit, beside the decision's input. */
interface Seen {
  observation: GateObservation | null
  findings: RedFindings | null
}

const NOTHING_SEEN: Seen = { observation: null, findings: null }

async function policyOf(run: GateRun): Promise<ReducePolicy> {
  run.policy ??= await checkPolicy(run.config, run.deps)
  return run.policy
}

/** Waits for the checks of the attempt's commit, and when it is red, whose failures they are. */
async function observe(
  run: GateRun,
  began: BeganAttempt & { files: ProgramFiles },
  head: GatedHead,
  pull: PullInfo | null
): Promise<{ observed: Observed; seen: Seen }> {
  const { config, deps } = run
  const iteration = iterationOf(began.ledger)
  const window = { graceFrom: Date.parse(began.attempt.startedAt), deadline: deadlineOf(iteration) }
  const policy = await policyOf(run)
  const index = began.attempt.index
  const agentSha = began.attempt.agentSha ?? null
  let observation = await waitForChecks(config, deps, head.sha, pull, policy, window)
  let blocked = await blockedOf(run, observation, head, agentSha)
  let findings: RedFindings | null = null
  if (needsFindings(observation.verdict, blocked)) {
    findings = await findRedFindings(
      {
        config,
        deps,
        policy,
        window,
        ledger: began.ledger,
        recordRerun: (rerun) => recordRerun(run, index, rerun)
      },
      observation
    )
    // After re-runs the checks may say something else: green, still running at the wall
    // clock, nothing but skipped checks, a run waiting for approval.
    if (findings.rechecked) {
      observation = findings.observation
      blocked = await blockedOf(run, observation, head, agentSha)
    }
  }
  return {
    observed: { kind: 'checks', index, verdict: observation.verdict, blocked, findings },
    seen: { observation, findings }
  }
}

/** Runs waiting for approval, or no CI at all: no fix can help (null when something can). */
async function blockedOf(
  run: GateRun,
  observation: GateObservation,
  head: GatedHead,
  agentSha: string | null
): Promise<Blocked | null> {
  const { config, deps } = run
  const counted = observation.checks.filter((check) => check.excluded === undefined)
  const approval = counted
    .filter((check) => check.conclusion === 'action_required')
    .map((check) => check.name)
  if (observation.verdict === 'no-checks' || approval.length > 0) {
    try {
      const runs = await deps.github.workflowRunsOf(head.sha)
      for (const workflowRun of runs)
        if (
          workflowRun.status === 'action_required' ||
          workflowRun.conclusion === 'action_required' ||
          workflowRun.status === 'waiting'
        )
          approval.push(workflowRun.name || `run ${workflowRun.id}`)
    } catch (error) {
      deps.log.debug(`Could not list the workflow runs of ${head.sha}: ${errorMessage(error)}`)
    }
  }
  return blockedCause({
    sha: head.sha,
    awaitingApproval: [...new Set(approval)],
    noChecks: observation.verdict === 'no-checks',
    pushed: head.pushed,
    pushToken: Boolean(config.pushToken),
    ciTriggerCommit: agentSha !== null,
    checksGraceSeconds: config.checksGraceSeconds
  })
}

async function recordRerun(run: GateRun, index: number, rerun: Rerun): Promise<void> {
  await write(run, (current) => {
    const attempt = current.ledger.attempts.find((a) => a.index === index)
    if (!attempt) return { ledger: current.ledger, value: null }
    return {
      ledger: updateAttempt(current.ledger, index, (a) => ({
        ...a,
        reruns: [...(a.reruns ?? []), rerun]
      })),
      value: null
    }
  })
}

function decideOn(run: GateRun, ledger: Ledger, observed: Observed): Settlement {
  const { config, deps } = run
  return decide({
    ledger,
    observed,
    config: {
      preExistingFailures: config.preExistingFailures,
      dispatchWorkflow: Boolean(config.dispatchWorkflow),
      fixCommand: Boolean(config.fixCommand)
    },
    now: deps.clock.now(),
    maskedValues: deps.maskedValues
  })
}

/** What one settlement writes, beside the settlement itself. */
type Written =
  | { kind: 'green'; recorded: RecordOutcome | null }
  | { kind: 'paused' }
  /** `refusal`: why the fixer run was not started (null: it is recorded as requested). */
  | { kind: 'red'; refusal: string | null }
  | { kind: 'none' }

/**
 * Decides on the program's files as they are now and writes what the settlement changes in
 * one compare-and-swap (re-decided on the files of the run that wins a conflict), then does
 * what it says: the failure summary files, the comment on the program issue, the fixer run.
 */
async function settle(
  run: GateRun,
  known: Ledger,
  observed: Observed,
  seen: Seen
): Promise<Settled> {
  // The fixer run's ref is asked for only when the attempt is about to start one.
  const preview = decideOn(run, known, observed)
  const requested =
    preview.kind === 'red' && preview.next.includes('dispatch') ? await dispatchRequest(run) : null
  const written = await write(
    run,
    (current): { ledger: Ledger; value: { settlement: Settlement; written: Written } } => {
      const settlement = decideOn(run, current.ledger, observed)
      const next = ledgerAfter(run, current, settlement, seen, requested)
      return { ledger: next.ledger, value: { settlement, written: next.written } }
    }
  )
  const { settlement } = written.value
  return applied(run, settlement, written.value.written, written.files, seen, requested)
}

/** The ledger a settlement writes (pure: the files as read, the settlement, what was seen). */
function ledgerAfter(
  run: GateRun,
  current: ProgramFiles,
  settlement: Settlement,
  seen: Seen,
  requested: Dispatch | null
): { ledger: Ledger; written: Written } {
  const { config, deps } = run
  const now = deps.clock.now()
  const findings = findingsOf(settlement, seen)
  const withBase = (ledger: Ledger): Ledger =>
    findings?.baseFailures ? { ...ledger, baseFailures: findings.baseFailures } : ledger
  switch (settlement.kind) {
    case 'skipped':
      return { ledger: current.ledger, written: { kind: 'none' } }
    case 'green':
    case 'green-except-pre-existing': {
      const ledger = withBase(
        completeAttempt(current.ledger, settlement.index, {
          state: settlement.kind,
          now,
          ...(findings ? { classification: findings.classification } : {}),
          ...(findings ? { reruns: findings.reruns } : {})
        })
      )
      const report = run.report
      if (!report) return { ledger, written: { kind: 'green', recorded: null } }
      const { outcome, reason } = reportedOutcome(report, { newCommit: true, name: config.branch })
      const recorded = recordIteration(
        { ...current, ledger },
        {
          outcome,
          metric: report.metric ?? undefined,
          change: report.change,
          reason,
          commit: undefined,
          runId: deps.environment.runId ?? null,
          runUrl: runUrl(deps.environment),
          now,
          maskedValues: deps.maskedValues
        }
      )
      return { ledger: recorded.ledger, written: { kind: 'green', recorded: recorded.outcome } }
    }
    case 'paused': {
      const { pause } = settlement
      const ledger = pauseInLedger(withBase(current.ledger), current.machine, {
        index: pause.index,
        verdict: pause.record,
        kind: pause.kind,
        reason: pause.reason,
        remember:
          pause.remember && pause.signature ? (pause.record.signature ?? pause.signature) : null,
        now
      })
      return { ledger, written: { kind: 'paused' } }
    }
    case 'red': {
      const completed = {
        ...completeAttempt(current.ledger, settlement.index, settlement.record),
        baseFailures: findings?.baseFailures ?? current.ledger.baseFailures
      }
      if (!settlement.next.includes('dispatch'))
        return { ledger: completed, written: { kind: 'red', refusal: null } }
      // The dispatch is written with the verdict, before it is sent: a re-run never sends it again.
      const refusal = requested
        ? dispatchRefusal(current, settlement.index)
        : 'the decision changed while the ledger was written'
      return {
        ledger:
          refusal || !requested
            ? completed
            : updateAttempt(completed, settlement.index, (a) => ({ ...a, dispatch: requested })),
        written: { kind: 'red', refusal }
      }
    }
  }
}

/** What a written settlement does next, and what the gate reports. */
async function applied(
  run: GateRun,
  settlement: Settlement,
  written: Written,
  files: ProgramFiles,
  seen: Seen,
  requested: Dispatch | null
): Promise<Settled> {
  switch (settlement.kind) {
    case 'skipped':
      return { result: emptyResult('skipped', settlement.reason), fix: null }
    case 'green':
    case 'green-except-pre-existing':
      return {
        result: await announceGreen(
          run,
          settlement,
          written.kind === 'green' ? written.recorded : null,
          files,
          seen
        ),
        fix: null
      }
    case 'paused':
      return { result: await announcePause(run, settlement.pause, files, seen), fix: null }
    case 'red':
      return startFix(
        run,
        settlement,
        written.kind === 'red' ? written.refusal : null,
        files,
        seen,
        requested
      )
  }
}

/**
 * The findings a settlement is made of: none for a pause the failures played no part in (the
 * checks' wall clock, a blocked commit), whose attempt keeps no classification.
 */
function findingsOf(settlement: Settlement, seen: Seen): RedFindings | null {
  if (settlement.kind === 'paused' && settlement.pause.record.state !== 'red') return null
  return seen.findings
}

/** Green: the iteration ends, recorded when the agent handed over its metric. */
async function announceGreen(
  run: GateRun,
  settlement: Extract<Settlement, { kind: 'green' | 'green-except-pre-existing' }>,
  recorded: RecordOutcome | null,
  files: ProgramFiles,
  seen: Seen
): Promise<GateResult> {
  const { config, deps } = run
  const observation = seen.observation as GateObservation
  const index = settlement.index
  const preExisting = settlement.kind === 'green-except-pre-existing' ? settlement.preExisting : []
  const exceptPreExisting = preExisting.length > 0
  if (exceptPreExisting)
    deps.log.warning(
      `Every failure on ${observation.sha} also fails on the base branch head: accepted as green except pre-existing failures (${preExisting.join(', ')})`
    )
  if (run.report === null)
    deps.log.warning(
      `The iteration file ${config.iterationFile} is missing: CI is green, but the iteration is not recorded (the agent did not write it). Record it with the record command.`
    )
  const classification = seen.findings?.classification
  const attempt = attemptAt(files.ledger, index)
  const flakyChecks = classification?.flaky ?? []
  const caveats = exceptPreExisting || flakyChecks.length > 0
  if (recorded?.recorded || caveats) {
    const iterationMarker = recorded?.entry ? commentMarker('iteration', recorded.runKey) : null
    // Without a recorded iteration the caveats get a comment of their own (one per attempt).
    const caveatsMarker = commentMarker('green', `${iterationOf(files.ledger).id}/${index}`)
    await announce(deps, {
      program: config.program,
      machine: files.machine,
      issue: config.issue,
      ...(recorded?.entry && iterationMarker
        ? {
            comment: {
              marker: iterationMarker,
              body: renderIterationComment({
                program: config.program,
                marker: iterationMarker,
                entry: recorded.entry,
                preExisting,
                flaky: flakyChecks
              })
            }
          }
        : caveats
          ? {
              comment: {
                marker: caveatsMarker,
                body: renderGreenWithCaveatsComment({
                  program: config.program,
                  marker: caveatsMarker,
                  sha: observation.sha,
                  preExisting,
                  baseSha: classification?.baseSha ?? null,
                  flaky: flakyChecks,
                  maskedValues: deps.maskedValues
                })
              }
            }
          : {})
    })
  }
  const flaky = classification?.flaky.map((f) => f.check) ?? []
  const message =
    (exceptPreExisting
      ? `CI on ${observation.sha} is red only with failures that are pre-existing on the base branch head: accepted (pre-existing-failures: allow)`
      : `CI is green on ${observation.sha}`) +
    (flaky.length > 0 ? `; flaky (passed on re-run): ${flaky.join(', ')}` : '') +
    (recorded?.recorded
      ? `; recorded iteration ${recorded.iteration} (status ${recorded.status})`
      : '')
  return {
    ...emptyResult('success', message),
    verdict: settlement.kind,
    observation,
    attempt,
    attemptsRemaining: Math.max(0, config.maxFixAttempts - index),
    preExisting,
    classification: classification ?? null,
    recorded
  }
}

/** The iteration an attempt was settled in (every settled attempt has one). */
function iterationOf(ledger: Ledger): NonNullable<Ledger['iteration']> {
  if (!ledger.iteration) throw new RangeError('a settled attempt belongs to an iteration')
  return ledger.iteration
}

/** A pause, written: the failure summary (when it has one), said on the program issue. */
async function announcePause(
  run: GateRun,
  pause: Pause,
  files: ProgramFiles,
  seen: Seen
): Promise<GateResult> {
  const { config, deps } = run
  const now = deps.clock.now()
  const ledger = files.ledger
  const attempt = attemptAt(ledger, pause.index)
  const findings = findingsOf({ kind: 'paused', pause }, seen)
  const observation = seen.observation
  let summary: { markdown: string; jsonPath: string } | null = null
  if (pause.blocked && observation) {
    deps.log.warning(`No fix can help ${observation.sha.slice(0, 12)}: ${pause.blocked.cause}`)
    summary = await writeFailureSummary(
      run,
      blockedSummary(
        run,
        pause.index,
        observation,
        pause.blocked,
        signatureOf([buildKey('blocked', pause.blocked.cause)]),
        now
      )
    )
  } else if (pause.blocked) {
    deps.log.warning(`${config.program}: no fix arrived: ${pause.blocked.cause}`)
  } else if (findings && pause.signature) {
    summary = await writeFailureSummary(
      run,
      summaryOf(run, attempt, findings, pause.signature, ledger, now)
    )
    deps.log.warning(`Pausing ${config.program}: ${pause.reason}`)
  } else if (pause.record.note) {
    deps.log.warning(`${config.program}: ${pause.record.note}`)
  }
  const iteration = iterationOf(ledger)
  await announce(deps, {
    program: config.program,
    machine: files.machine,
    issue: config.issue,
    comment: {
      marker: commentMarker('pause', iteration.id),
      body: renderPauseComment({
        program: config.program,
        iterationId: iteration.id,
        reason: pause.reason,
        signature: pause.signature,
        attempts: ledger.attempts,
        runUrlOf: (runId) => runUrl(deps.environment, runId),
        maskedValues: deps.maskedValues,
        branch: config.branch,
        ...(pause.blocked ? { blocked: pause.blocked } : {}),
        remembered: rememberedBefore(ledger, pause.record.signature ?? pause.signature)
      })
    }
  })
  return {
    ...emptyResult('paused', `Paused ${config.program}: ${pause.reason}`),
    verdict: pause.verdict,
    observation,
    attempt,
    attemptsRemaining: pause.attemptsRemaining,
    signature: pause.signature,
    pauseReason: files.machine.pauseReason ?? pause.reason,
    preExisting: findings?.classification.preExisting ?? [],
    classification: findings?.classification ?? null,
    blocked: pause.blocked,
    failureMarkdown: summary?.markdown ?? null,
    failureJsonPath: summary?.jsonPath ?? null
  }
}

/** Red with budget left: the failure summary, then the fixer run or `fix-command`. */
async function startFix(
  run: GateRun,
  settlement: Extract<Settlement, { kind: 'red' }>,
  refusal: string | null,
  files: ProgramFiles,
  seen: Seen,
  requested: Dispatch | null
): Promise<Settled> {
  const { config, deps } = run
  const findings = seen.findings as RedFindings
  const { observation, classification } = findings
  const { index, signature } = settlement
  const attempt = attemptAt(files.ledger, index)
  const { markdown, jsonPath, markdownPath } = await writeFailureSummary(
    run,
    summaryOf(run, attempt, findings, signature, files.ledger, deps.clock.now())
  )
  for (const failure of findings.failing)
    deps.log.info(
      `${failure.name}: ${failure.keys.length} key(s) from ${failure.source}${failure.note ? ` (${failure.note})` : ''}`
    )
  const preExisting = classification.preExisting
  if (preExisting.length > 0)
    deps.log.info(`Pre-existing on the base branch head (not counted): ${preExisting.join(', ')}`)
  deps.log.info(`Failure signature: ${forLog(signature.full, { maskedValues: deps.maskedValues })}`)
  if (requested && refusal) deps.log.info(`Not starting the fixer run: ${refusal}`)
  const dispatched =
    requested && refusal === null ? await sendDispatch(run, index, requested) : false
  const fixCommand = settlement.next.includes('fix-command') ? config.fixCommand : undefined
  const left = settlement.attemptsRemaining
  return {
    result: {
      ...emptyResult(
        'failure',
        `CI is red on ${observation.sha}: ${dispatched ? 'the fixer run was started' : fixCommand ? 'running fix-command' : 'fix it and gate again'} (${left} fix attempt(s) left)`
      ),
      verdict: 'red',
      observation,
      attempt,
      attemptsRemaining: left,
      signature,
      failureMarkdown: markdown,
      failureJsonPath: jsonPath,
      dispatched,
      preExisting,
      classification
    },
    fix: fixCommand
      ? {
          command: fixCommand,
          attempt,
          signature,
          jsonPath,
          markdownPath,
          deadline: deadlineOf(iterationOf(files.ledger))
        }
      : null
  }
}

function summaryOf(
  run: GateRun,
  attempt: Attempt,
  findings: RedFindings,
  signature: Signature,
  ledger: Ledger,
  now: number
): FailureSummary {
  const previous = [...ledger.attempts]
    .reverse()
    .find((a) => a.index < attempt.index && a.signature)
  return {
    version: 2,
    program: run.config.program,
    sha: attempt.sha,
    attempt: attempt.index,
    generatedAt: new Date(now).toISOString(),
    signature: { keys: signature.keys, full: signature.full, short: signature.short },
    checks: findings.failing.map((failure) => ({
      name: failure.name,
      conclusion: failure.conclusion,
      url: failure.url ?? '',
      source: failure.source,
      keys: failure.keys,
      firstErrorLines: failure.firstErrorLines,
      ...(failure.details && failure.details.length > 0 ? { details: failure.details } : {}),
      ...(failure.logTruncated ? { logTruncated: true } : {}),
      ...(failure.note ? { note: failure.note } : {})
    })),
    classification: {
      preExisting: findings.classification.preExisting,
      baseBranch: findings.baseFailures?.branch ?? null,
      baseSha: findings.classification.baseSha,
      baseNote: findings.classification.baseNote,
      ...(findings.classification.baseChecks
        ? {
            baseChecks: findings.classification.baseChecks.map((c) => ({
              check: c.check,
              url: c.url ?? ''
            }))
          }
        : {}),
      flaky: findings.classification.flaky.map((f) => ({ check: f.check, url: f.url ?? '' })),
      infrastructure: findings.classification.infrastructure.map((f) => ({
        check: f.check,
        cause: f.cause,
        url: f.url ?? ''
      })),
      reruns: findings.reruns.map((r) => ({
        checks: r.checks,
        why: r.why,
        outcome: r.outcome,
        url: r.url ?? ''
      })),
      blocked: null
    },
    ...(previous?.signature
      ? {
          changes: diffKeys(previous.signature.keys ?? [], signature.keys),
          previous: {
            sha: previous.sha,
            attempt: previous.index,
            signature: previous.signature.full ?? previous.signature.short
          }
        }
      : {})
  }
}

/** The failure summary as the fixer reads it: JSON and markdown files, and the markdown. */
async function writeFailureSummary(
  run: GateRun,
  summary: FailureSummary
): Promise<{ markdown: string; jsonPath: string; markdownPath: string }> {
  const { config, deps } = run
  const markdown = renderFailureSummaryMarkdown(summary, { maskedValues: deps.maskedValues })
  const dir = `${deps.environment.tempDir}/autoloop-ci-gate`
  const jsonPath = `${dir}/${config.program}-attempt-${summary.attempt}.json`
  const markdownPath = `${dir}/${config.program}-attempt-${summary.attempt}.md`
  await deps.writeFile(jsonPath, failureSummaryJson(summary, { maskedValues: deps.maskedValues }))
  await deps.writeFile(markdownPath, markdown)
  return { markdown, jsonPath, markdownPath }
}

/** The failure summary of a blocked commit: no fix can help, and it says what a maintainer must do. */
function blockedSummary(
  run: GateRun,
  index: number,
  observation: GateObservation,
  blocked: Blocked,
  signature: Signature,
  now: number
): FailureSummary {
  const waiting = observation.checks.filter(
    (check) => check.excluded === undefined && check.conclusion === 'action_required'
  )
  return {
    version: 2,
    program: run.config.program,
    sha: observation.sha,
    attempt: index,
    generatedAt: new Date(now).toISOString(),
    signature: { keys: signature.keys, full: signature.full, short: signature.short },
    checks: waiting.map((check) => ({
      name: check.name,
      conclusion: check.conclusion ?? check.status,
      url: check.url ?? '',
      source: 'none' as const,
      keys: [],
      firstErrorLines: []
    })),
    classification: {
      preExisting: [],
      baseBranch: null,
      baseSha: null,
      baseNote: null,
      flaky: [],
      infrastructure: [],
      reruns: [],
      blocked: { cause: blocked.cause, advice: blocked.advice }
    }
  }
}

/** The earlier pause on the same signature, when this one repeats a failure that stuck the loop before. */
function rememberedBefore(ledger: Ledger, signature: { hash: string } | null | undefined) {
  if (!signature) return null
  const remembered = pausedSignatureOf(ledger, signature.hash)
  return remembered && remembered.iterationId !== ledger.iteration?.id ? remembered : null
}

// ---------------------------------------------------------------------------------------
// The fixer

/** The fixer run to start (`dispatch-workflow`), or null when none is configured. */
async function dispatchRequest(run: GateRun): Promise<Dispatch | null> {
  const { config, deps } = run
  if (!config.dispatchWorkflow) return null
  return {
    workflow: config.dispatchWorkflow,
    ref: config.dispatchRef ?? (await deps.github.defaultBranch()),
    state: 'requested',
    requestedAt: new Date(deps.clock.now()).toISOString(),
    runId: null,
    url: null
  }
}

/**
 * Why attempt `index` must not start a fixer run, or null: at most once per attempt (a re-run
 * of this job finds the dispatch in the ledger), never for a paused or completed program
 * (autoloop's scheduler lets a dispatched program through even when it is paused: the gate is
 * the only brake), and only for the latest attempt.
 */
function dispatchRefusal(current: ProgramFiles, index: number): string | null {
  const stopped = stoppedReason(current)
  if (stopped) return `the program is ${stopped}`
  const attempt = current.ledger.attempts.find((a) => a.index === index)
  if (!attempt) return 'the attempt is gone from the ledger'
  if (attempt.dispatch)
    return `attempt ${index} started its fixer already (${attempt.dispatch.state} at ${attempt.dispatch.requestedAt})`
  if (latestAttempt(current.ledger)?.index !== index) return 'a later attempt exists'
  return null
}

/** Sends the dispatch the ledger holds as requested, and records how it went. */
async function sendDispatch(run: GateRun, index: number, requested: Dispatch): Promise<boolean> {
  const { config, deps } = run
  const inputs = { program: config.program, ...config.dispatchInputs }
  let outcome: Dispatch
  try {
    const started = await deps.github.dispatchWorkflow({
      workflow: requested.workflow,
      ref: requested.ref,
      inputs
    })
    outcome = { ...requested, state: 'sent', runId: started.runId, url: started.url }
    if (started.runId === null) {
      const found = await locateFixerRun(deps, outcome, LOCATE_TRIES)
      if (found) outcome = { ...outcome, runId: found.runId, url: found.url }
    }
    deps.log.info(
      `Started the fixer run: ${requested.workflow} on ${requested.ref} with program=${config.program}${outcome.url ? ` (${outcome.url})` : ''}`
    )
  } catch (error) {
    const status = httpStatus(error)
    const why =
      status === 403
        ? 'the token may not start workflows: give the job `permissions: actions: write`'
        : status === 404
          ? `no workflow ${requested.workflow} on ${requested.ref}: check \`dispatch-workflow\` and \`dispatch-ref\``
          : status === 422
            ? `GitHub refused the dispatch (${errorMessage(error)}): the workflow must have a \`workflow_dispatch\` trigger with a \`program\` input, and \`dispatch-inputs\` may only name its inputs`
            : errorMessage(error)
    deps.log.warning(`Could not start the fixer run: ${why}`)
    outcome = { ...requested, state: 'failed', error: why }
  }
  await write(run, (current) => ({
    ledger: current.ledger.attempts.some((a) => a.index === index)
      ? updateAttempt(current.ledger, index, (a) => ({ ...a, dispatch: outcome }))
      : current.ledger,
    value: null
  }))
  return outcome.state === 'sent'
}

// ---------------------------------------------------------------------------------------
// fix-command: fix, push, gate again in the same step

async function runFixCommand(run: GateRun, fix: FixStep): Promise<string> {
  const { config, deps } = run
  const { attempt, signature } = fix
  deps.log.info(
    `Running fix-command for attempt ${attempt.index + 1} (signature: ${forLog(signature.short, { maskedValues: deps.maskedValues })})`
  )
  // A fix command gets at least a minute even when the wall clock is nearly spent: the guard
  // judges its commit afterwards, so a little overrun cannot lose the attempt it paid for.
  const remaining = Math.max(60_000, fix.deadline - deps.clock.now())
  const { exitCode } = await deps.runFixCommand(
    fix.command,
    {
      AUTOLOOP_FAILURE_JSON: fix.jsonPath,
      AUTOLOOP_FAILURE_MD: fix.markdownPath,
      AUTOLOOP_SIGNATURE: signature.full,
      AUTOLOOP_ATTEMPT: String(attempt.index + 1),
      AUTOLOOP_PROGRAM: config.program,
      AUTOLOOP_SHA: attempt.sha
    },
    remaining
  )
  if (exitCode !== 0) deps.log.warning(`fix-command exited with code ${exitCode}`)
  return deps.git.headSha()
}

/** A fix command that committed nothing is a fix attempt with an unchanged signature. */
async function fixCommittedNothing(
  run: GateRun,
  head: GatedHead,
  agentSha: string | null
): Promise<GateResult> {
  const { config, deps } = run
  deps.log.warning(`fix-command committed nothing (HEAD is still ${head.sha.slice(0, 12)})`)
  // The attempt that found nothing new and its pause, in one write.
  const written = await write(run, (current) => {
    const began = appendNoNewCommit(current.ledger, {
      sha: head.sha,
      agentSha,
      runId: deps.environment.runId ?? null,
      runAttempt: deps.environment.runAttempt ?? null,
      now: deps.clock.now(),
      maxFixAttempts: config.maxFixAttempts,
      timeoutMinutes: config.timeoutMinutes
    })
    const observed: Observed = { kind: 'no-new-commit', index: began.attempt.index }
    const settlement = decideOn(run, began.ledger, observed)
    const next = ledgerAfter(
      run,
      { ...current, ledger: began.ledger },
      settlement,
      NOTHING_SEEN,
      null
    )
    return { ledger: next.ledger, value: { settlement, written: next.written } }
  })
  const { settlement } = written.value
  return (await applied(run, settlement, written.value.written, written.files, NOTHING_SEEN, null))
    .result
}
