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
import type { GateObservation, GateVerdict } from '../checks/observation.js'
import type { PullInfo } from '../github/port.js'
import { parseIterationFile, parseSelection, type IterationReport } from '../handover.js'
import {
  attemptAt,
  beginAttempt,
  appendNoNewCommit,
  completeAttempt,
  latestAttempt,
  pausedSignatureOf,
  updateAttempt,
  withStateWrite,
  type Attempt,
  type AttemptDetail,
  type AttemptVerdict,
  type BeganAttempt,
  type Dispatch,
  type Ledger,
  type Rerun,
  type SignatureLike
} from '../loop/ledger.js'
import { blockedCause, type Blocked } from '../loop/classify.js'
import {
  deadlineOf,
  decideAfterRed,
  noProgressPause,
  repeatedVerdict,
  type RedDecision
} from '../loop/guard.js'
import { pauseInLedger } from '../loop/pause.js'
import { pauseReason, type PauseKind } from '../loop/pause-reasons.js'
import { recordIteration, reportedOutcome, type RecordOutcome } from '../loop/record-outcome.js'
import { readProgram, updateProgram, type ProgramFiles } from '../state/program-state.js'
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
import { forLog, redactSecrets } from '../text/untrusted.js'
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
    if (noFix) return { ...(await pauseWithoutFix(run, noFix.latest, noFix.blocked)), steps }
    const pull = await findOrOpenPull(config, deps, knownPull)
    if (pull) knownPull = pull.number
    const began = await begin(run, head, agentSha, pull)
    if ('stopped' in began)
      return emptyResult(
        'skipped',
        `Program ${config.program} was ${began.stopped} by another run while this gate started; nothing was recorded.`
      )
    if (began.kind === 'already-gated') return recordWithoutCommit(run, began, head)
    const result =
      began.kind === 'no-new-commit'
        ? await settleNoNewCommit(run, began)
        : await observeAndSettle(run, began, head, pull)
    steps.push({
      attempt: result.attempt?.index ?? began.attempt.index,
      sha: head.sha,
      verdict: result.verdict ?? 'red',
      signature: result.signature?.short ?? null
    })
    if (!result.fixCommand) return { ...result, steps }
    const after = await runFixCommand(run, result)
    if (after === head.sha) return { ...(await fixCommittedNothing(run, head, agentSha)), steps }
    head = await resolveHead({ ...config, sha: after }, deps)
  }
}

/**
 * A new commit to gate needs the agent's iteration file (when `iteration-file` is set): it is
 * an error, before anything is written, when the agent did not write it.
 */
function requireReportForNewCommit(run: GateRun, files: ProgramFiles, head: GatedHead): void {
  if (run.report !== null) return
  const kind = beginAttempt(files.ledger, {
    sha: head.sha,
    runId: run.deps.environment.runId ?? null,
    now: run.deps.clock.now(),
    maxFixAttempts: run.config.maxFixAttempts,
    timeoutMinutes: run.config.timeoutMinutes
  }).kind
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
  const written = await updateProgram(
    deps,
    config.program,
    { maxBytes: config.stateMaxBytes },
    (current) => {
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
    }
  )
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
  const kind = beginAttempt(files.ledger, {
    sha: head.sha,
    runId: deps.environment.runId ?? null,
    now: deps.clock.now(),
    maxFixAttempts: config.maxFixAttempts,
    timeoutMinutes: config.timeoutMinutes
  }).kind
  const latest = latestAttempt(files.ledger)
  if (kind !== 'no-new-commit' || !latest) return null
  const blocked = await whyNoFix(deps, {
    branch: config.branch,
    latest,
    safeOutputsResult: config.safeOutputsResult
  })
  return blocked ? { latest, blocked } : null
}

/**
 * Paused `ci-blocked` on the red attempt `latest` itself: no attempt is added, none spent;
 * the attempt keeps its failures, with the cause as its note.
 */
async function pauseWithoutFix(
  run: GateRun,
  latest: Attempt,
  blocked: Blocked
): Promise<GateResult> {
  const { config, deps } = run
  deps.log.warning(`${config.program}: no fix arrived: ${blocked.cause}`)
  return pause(run, latest.index, null, {
    kind: 'blocked',
    reason: pauseReason('blocked', blocked.cause),
    verdict: 'blocked',
    record: repeatedVerdict(
      latest,
      latest.state === 'no-checks' ? 'no-checks' : 'red',
      deps.clock.now(),
      blocked.cause
    ),
    signature: signatureFromRecord(latest.signature),
    blocked
  })
}

/** A signature as the ledger stored it, in the form the pause comment shows. */
function signatureFromRecord(stored: SignatureLike | null | undefined): Signature | null {
  return stored
    ? {
        keys: [...(stored.keys ?? [])],
        full: stored.full ?? stored.short,
        short: stored.short,
        hash: stored.hash
      }
    : null
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
  const written = await updateProgram(
    deps,
    config.program,
    { maxBytes: config.stateMaxBytes },
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
  const iteration = ledger.iteration as NonNullable<Ledger['iteration']>
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
// Settling a verdict

interface Settled extends GateResult {
  /** Set when `fix-command` should run next: the failure summary's files. */
  fixCommand?: { jsonPath: string; markdownPath: string; deadline: number }
}

async function policyOf(run: GateRun): Promise<ReducePolicy> {
  run.policy ??= await checkPolicy(run.config, run.deps)
  return run.policy
}

async function observeAndSettle(
  run: GateRun,
  began: BeganAttempt & { files: ProgramFiles },
  head: GatedHead,
  pull: PullInfo | null
): Promise<Settled> {
  const { config, deps } = run
  const iteration = began.ledger.iteration as NonNullable<Ledger['iteration']>
  const window = { graceFrom: Date.parse(began.attempt.startedAt), deadline: deadlineOf(iteration) }
  const policy = await policyOf(run)
  const observation = await waitForChecks(config, deps, head.sha, pull, policy, window)
  const index = began.attempt.index
  const agentSha = began.attempt.agentSha ?? null
  const settled = await settleUnlessRed(run, index, head, agentSha, observation, null)
  if (settled) return settled
  const findings = await findRedFindings(
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
  // After re-runs the checks may say something else: green, still running at the wall clock,
  // nothing but skipped checks, a run waiting for approval.
  if (findings.observation !== observation) {
    const after = await settleUnlessRed(run, index, head, agentSha, findings.observation, findings)
    if (after) return after
  }
  return settleRed(run, index, findings)
}

/**
 * An observation that needs no classification settled: green, ci-timeout, or blocked (no
 * checks, a run waiting for approval); null for a red one, whose failures are classified.
 */
async function settleUnlessRed(
  run: GateRun,
  index: number,
  head: GatedHead,
  agentSha: string | null,
  observation: GateObservation,
  findings: RedFindings | null
): Promise<Settled | null> {
  const { deps } = run
  if (observation.verdict === 'green') return settleGreen(run, index, observation, findings)
  if (observation.verdict === 'ci-timeout') return pauseOnTimeout(run, index, observation)
  const blocked = await blockedOf(run, observation, head, agentSha)
  if (!blocked) return null
  deps.log.warning(`No fix can help ${head.sha.slice(0, 12)}: ${blocked.cause}`)
  const now = deps.clock.now()
  const signature = signatureOf([buildKey('blocked', blocked.cause)])
  const summary = await writeFailureSummary(
    run,
    blockedSummary(run, index, observation, blocked, signature, now)
  )
  return {
    ...(await pause(run, index, observation, {
      kind: 'blocked',
      reason: pauseReason('blocked', blocked.cause),
      verdict: observation.verdict === 'no-checks' ? 'no-checks' : 'blocked',
      record: { state: 'blocked', now, note: blocked.advice },
      signature: null,
      blocked
    })),
    failureMarkdown: summary.markdown,
    failureJsonPath: summary.jsonPath
  }
}

/** Checks still running at the iteration's wall-clock cap: paused `ci-timeout`. */
async function pauseOnTimeout(
  run: GateRun,
  index: number,
  observation: GateObservation
): Promise<Settled> {
  const signature = signatureOf([buildKey('ci-timeout')])
  return pause(run, index, observation, {
    kind: 'timeout',
    reason: pauseReason('timeout'),
    verdict: 'ci-timeout',
    record: { state: 'ci-timeout', now: run.deps.clock.now(), signature },
    signature
  })
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
  const { config, deps } = run
  await updateProgram(deps, config.program, { maxBytes: config.stateMaxBytes }, (current) => {
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

/** Green: the iteration ends, and is recorded when the agent handed over its metric. */
async function settleGreen(
  run: GateRun,
  index: number,
  observation: GateObservation,
  findings: RedFindings | null,
  preExisting: string[] = []
): Promise<Settled> {
  const { config, deps } = run
  const exceptPreExisting = preExisting.length > 0
  const state = exceptPreExisting ? 'green-except-pre-existing' : 'green'
  const classification = findings?.classification
  const report = run.report
  if (report === null)
    deps.log.warning(
      `The iteration file ${config.iterationFile} is missing: CI is green, but the iteration is not recorded (the agent did not write it). Record it with the record command.`
    )
  const now = deps.clock.now()
  const written = await updateProgram(
    deps,
    config.program,
    { maxBytes: config.stateMaxBytes },
    (current) => {
      let ledger = completeAttempt(current.ledger, index, {
        state,
        now,
        ...(classification ? { classification } : {}),
        ...(findings ? { reruns: findings.reruns } : {})
      })
      if (findings?.baseFailures) ledger = { ...ledger, baseFailures: findings.baseFailures }
      if (!report) return { ledger, value: null as RecordOutcome | null }
      const { outcome, reason } = reportedOutcome(report, {
        newCommit: true,
        name: config.branch
      })
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
      return { ledger: recorded.ledger, value: recorded.outcome }
    }
  )
  const recorded = written.value
  const attempt = attemptAt(written.files.ledger, index)
  const flakyChecks = classification?.flaky ?? []
  const caveats = exceptPreExisting || flakyChecks.length > 0
  if (recorded?.recorded || caveats) {
    const iterationMarker = recorded?.entry ? commentMarker('iteration', recorded.runKey) : null
    // Without a recorded iteration the caveats get a comment of their own (one per attempt).
    const caveatsMarker = commentMarker(
      'green',
      `${(written.files.ledger.iteration as NonNullable<Ledger['iteration']>).id}/${index}`
    )
    await announce(deps, {
      program: config.program,
      machine: written.files.machine,
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
  const verdict: GateVerdict = exceptPreExisting ? 'green-except-pre-existing' : 'green'
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
    verdict,
    observation,
    attempt,
    attemptsRemaining: Math.max(0, config.maxFixAttempts - index),
    preExisting,
    classification: classification ?? null,
    recorded
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

function errorLinesOf(findings: RedFindings, masked: readonly string[]): string[] {
  return findings.failing
    .flatMap((failure) =>
      failure.firstErrorLines.slice(0, 4).map((line) => `${failure.name}: ${line}`)
    )
    .slice(0, 12)
    .map((line) => redactSecrets(line, masked))
}

/** The failure details of the signature's keys (already redacted by gathering), check by check. */
function detailsOf(findings: RedFindings, signature: Signature): AttemptDetail[] {
  const own = new Set(signature.keys)
  return findings.failing.flatMap((failure) =>
    (failure.details ?? [])
      .filter((detail) => own.has(detail.key))
      .map((detail) => ({ check: failure.name, key: detail.key, lines: detail.lines }))
  )
}

async function settleRed(run: GateRun, index: number, findings: RedFindings): Promise<Settled> {
  const { config, deps } = run
  const { observation, classification } = findings
  const now = deps.clock.now()
  const preExisting = classification.preExisting
  if (findings.newKeys.length === 0 && preExisting.length > 0) {
    if (config.preExistingFailures === 'allow') {
      deps.log.warning(
        `Every failure on ${observation.sha} also fails on the base branch head: accepted as green except pre-existing failures (${preExisting.join(', ')})`
      )
      return settleGreen(run, index, observation, findings, preExisting)
    }
    const signature = signatureOf(preExisting)
    // The fixer is not started, but the failure summary still says whose failures they are.
    const current = await readProgram(deps.store, config.program, {
      maxBytes: config.stateMaxBytes,
      now
    })
    const summary = await writeFailureSummary(
      run,
      summaryOf(run, attemptAt(current.ledger, index), findings, signature, current.ledger, now)
    )
    return {
      ...(await pause(run, index, observation, {
        kind: 'base-red',
        reason: pauseReason('base-red', signature.short),
        verdict: 'red',
        record: recordOf(findings, signature, now, deps.maskedValues),
        signature,
        findings
      })),
      failureMarkdown: summary.markdown,
      failureJsonPath: summary.jsonPath
    }
  }
  const signature = signatureOf(findings.newKeys)
  const current = await readProgram(deps.store, config.program, {
    maxBytes: config.stateMaxBytes,
    now
  })
  const ledger = current.ledger
  const attempt = attemptAt(ledger, index)
  const decision: RedDecision = decideAfterRed(ledger, { index, signature, now })
  const { markdown, jsonPath, markdownPath } = await writeFailureSummary(
    run,
    summaryOf(run, attempt, findings, signature, ledger, now)
  )
  for (const failure of findings.failing)
    deps.log.info(
      `${failure.name}: ${failure.keys.length} key(s) from ${failure.source}${failure.note ? ` (${failure.note})` : ''}`
    )
  if (preExisting.length > 0)
    deps.log.info(`Pre-existing on the base branch head (not counted): ${preExisting.join(', ')}`)
  deps.log.info(`Failure signature: ${forLog(signature.full, { maskedValues: deps.maskedValues })}`)
  const record = recordOf(findings, signature, now, deps.maskedValues)
  const base = {
    ...emptyResult('failure', `CI is red on ${observation.sha}`),
    verdict: 'red' as const,
    observation,
    signature,
    failureMarkdown: markdown,
    failureJsonPath: jsonPath,
    preExisting,
    classification
  }
  if (decision.kind === 'pause') {
    deps.log.warning(`Pausing ${config.program}: ${decision.reason}`)
    return {
      ...base,
      ...(await pause(run, index, observation, {
        kind: decision.pauseKind,
        reason: decision.reason,
        verdict: 'red',
        record,
        signature,
        findings,
        remember: decision.pauseKind !== 'timeout'
      })),
      failureMarkdown: markdown,
      failureJsonPath: jsonPath
    }
  }
  const requested = await dispatchRequest(run)
  const written = await updateProgram(
    deps,
    config.program,
    { maxBytes: config.stateMaxBytes },
    (files) => {
      const completed = {
        ...completeAttempt(files.ledger, index, record),
        baseFailures: findings.baseFailures ?? files.ledger.baseFailures
      }
      if (!requested) return { ledger: completed, value: null }
      // The dispatch is written with the verdict, before it is sent: a re-run never sends it again.
      const refusal = dispatchRefusal(files, index)
      return {
        ledger: refusal
          ? completed
          : updateAttempt(completed, index, (a) => ({ ...a, dispatch: requested })),
        value: refusal
      }
    }
  )
  if (requested && written.value) deps.log.info(`Not starting the fixer run: ${written.value}`)
  const dispatched =
    requested && written.value === null ? await sendDispatch(run, index, requested) : false
  const left = decision.attemptsRemaining
  return {
    ...base,
    message: `CI is red on ${observation.sha}: ${dispatched ? 'the fixer run was started' : config.fixCommand ? 'running fix-command' : 'fix it and gate again'} (${left} fix attempt(s) left)`,
    attempt: attemptAt(written.files.ledger, index),
    attemptsRemaining: left,
    dispatched,
    ...(config.fixCommand
      ? {
          fixCommand: {
            jsonPath,
            markdownPath,
            deadline: deadlineOf(written.files.ledger.iteration as NonNullable<Ledger['iteration']>)
          }
        }
      : {})
  }
}

function recordOf(
  findings: RedFindings,
  signature: Signature,
  now: number,
  masked: readonly string[]
): AttemptVerdict {
  return {
    state: 'red',
    now,
    signature,
    failingChecks: findings.failing.map((f) => ({
      name: f.name,
      conclusion: f.conclusion,
      url: f.url
    })),
    errorLines: errorLinesOf(findings, masked),
    details: detailsOf(findings, signature),
    classification: findings.classification,
    reruns: findings.reruns
  }
}

/** The fixer pushed nothing: the previous attempt's signature again, so the loop is stuck. */
async function settleNoNewCommit(
  run: GateRun,
  began: BeganAttempt & { files: ProgramFiles }
): Promise<Settled> {
  const { config, deps } = run
  const previous = [...began.ledger.attempts].reverse().find((a) => a.index < began.attempt.index)
  const note = `no new commit since attempt ${previous?.index ?? 0}: the fixer pushed nothing`
  deps.log.warning(`${config.program}: ${note}`)
  const judged = noProgressPause(began.ledger, began.attempt.index, deps.clock.now(), note)
  return pause(run, began.attempt.index, null, {
    kind: judged.kind,
    reason: judged.reason,
    verdict: 'red',
    record: judged.verdict,
    signature: signatureFromRecord(judged.verdict.signature),
    remember: judged.remember !== null
  })
}

interface PauseRequest {
  kind: PauseKind
  reason: string
  verdict: GateVerdict
  record: AttemptVerdict
  signature: Signature | null
  findings?: RedFindings
  blocked?: Blocked
  /** Keep the signature across resets (see the ledger's paused signatures). */
  remember?: boolean
}

/** Writes the pause (ledger, Machine State) and says it on the program issue. */
async function pause(
  run: GateRun,
  index: number,
  observation: GateObservation | null,
  request: PauseRequest
): Promise<Settled> {
  const { config, deps } = run
  const now = deps.clock.now()
  const written = await updateProgram(
    deps,
    config.program,
    { maxBytes: config.stateMaxBytes },
    (current) => {
      const base = request.findings?.baseFailures
      const ledger = pauseInLedger(
        base ? { ...current.ledger, baseFailures: base } : current.ledger,
        current.machine,
        {
          index,
          verdict: request.record,
          kind: request.kind,
          reason: request.reason,
          remember:
            request.remember && request.signature
              ? (request.record.signature ?? request.signature)
              : null,
          now
        }
      )
      return { ledger, value: null }
    }
  )
  const ledger = written.files.ledger
  const attempt = attemptAt(ledger, index)
  await announce(deps, {
    program: config.program,
    machine: written.files.machine,
    issue: config.issue,
    comment: {
      marker: commentMarker('pause', (ledger.iteration as NonNullable<Ledger['iteration']>).id),
      body: renderPauseComment({
        program: config.program,
        iterationId: (ledger.iteration as NonNullable<Ledger['iteration']>).id,
        reason: request.reason,
        signature: request.signature,
        attempts: ledger.attempts,
        runUrlOf: (runId) => runUrl(deps.environment, runId),
        maskedValues: deps.maskedValues,
        branch: config.branch,
        ...(request.blocked ? { blocked: request.blocked } : {}),
        remembered: rememberedBefore(ledger, request.record.signature ?? request.signature)
      })
    }
  })
  return {
    ...emptyResult('paused', `Paused ${config.program}: ${request.reason}`),
    verdict: request.verdict,
    observation,
    attempt,
    attemptsRemaining: budgetLeftAfter(request.kind, ledger, index),
    signature: request.signature,
    pauseReason: written.files.machine.pauseReason ?? request.reason,
    preExisting: request.findings?.classification.preExisting ?? [],
    classification: request.findings?.classification ?? null,
    blocked: request.blocked ?? null
  }
}

/**
 * The fix attempts a pause leaves: none after a pause of the fix loop (stuck, exhausted,
 * wall clock); after a `ci-blocked` or `ci-base-red` pause, which spends none, the budget
 * that was left (`max-fix-attempts` minus the fixes made so far).
 */
function budgetLeftAfter(kind: PauseKind, ledger: Ledger, index: number): number {
  if (kind !== 'blocked' && kind !== 'base-red') return 0
  const budget = ledger.iteration?.maxFixAttempts ?? 0
  return Math.max(0, budget - index)
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
  await updateProgram(deps, config.program, { maxBytes: config.stateMaxBytes }, (current) => ({
    ledger: current.ledger.attempts.some((a) => a.index === index)
      ? updateAttempt(current.ledger, index, (a) => ({ ...a, dispatch: outcome }))
      : current.ledger,
    value: null
  }))
  return outcome.state === 'sent'
}

// ---------------------------------------------------------------------------------------
// fix-command: fix, push, gate again in the same step

async function runFixCommand(run: GateRun, result: Settled): Promise<string> {
  const { config, deps } = run
  const fix = result.fixCommand as NonNullable<Settled['fixCommand']>
  const attempt = result.attempt as Attempt
  deps.log.info(
    `Running fix-command for attempt ${attempt.index + 1} (signature: ${forLog(result.signature?.short ?? '', { maskedValues: deps.maskedValues })})`
  )
  // A fix command gets at least a minute even when the wall clock is nearly spent: the guard
  // judges its commit afterwards, so a little overrun cannot lose the attempt it paid for.
  const remaining = Math.max(60_000, fix.deadline - deps.clock.now())
  const { exitCode } = await deps.runFixCommand(
    config.fixCommand as string,
    {
      AUTOLOOP_FAILURE_JSON: fix.jsonPath,
      AUTOLOOP_FAILURE_MD: fix.markdownPath,
      AUTOLOOP_SIGNATURE: result.signature?.full ?? '',
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
  const written = await updateProgram(
    deps,
    config.program,
    { maxBytes: config.stateMaxBytes },
    (current) => {
      const began = appendNoNewCommit(current.ledger, {
        sha: head.sha,
        agentSha,
        runId: deps.environment.runId ?? null,
        runAttempt: deps.environment.runAttempt ?? null,
        now: deps.clock.now(),
        maxFixAttempts: config.maxFixAttempts,
        timeoutMinutes: config.timeoutMinutes
      })
      return { ledger: began.ledger, value: began }
    }
  )
  return settleNoNewCommit(run, {
    ...written.value,
    ledger: written.files.ledger,
    files: written.files
  })
}
