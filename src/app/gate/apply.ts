/**
 * The gate's writes and what follows them (README: "The fix loop"): the attempt written in
 * flight before waiting; then for each settlement one read-decide-write of the program's files
 * (`updateProgram`, decided again on the files of the run that wins a conflict), the failure
 * summary files, the comment on the program issue, and the fixer run (`dispatch-workflow`,
 * recorded before it is sent) or `fix-command`.
 */
import { runUrl } from '../../core/environment.js'
import type { IterationReport } from '../../statefile/handover.js'
import type { GateObservation } from '../../core/checks/observation.js'
import type { PullInfo } from '../../core/github.js'
import {
  attemptAt,
  appendNoNewCommit,
  beginAttempt,
  completeAttempt,
  latestAttempt,
  pausedSignatureOf,
  updateAttempt,
  withStateWrite,
  type Attempt,
  type BeganAttempt,
  type Dispatch,
  type Ledger
} from '../../core/ledger.js'
import { deadlineOf } from '../../core/rules/guard.js'
import { waitsOf } from '../../core/waits.js'
import { pauseInLedger } from '../../core/rules/pause.js'
import {
  budgetBefore,
  type Observed,
  type Pause,
  type Settlement
} from '../../core/rules/decide.js'
import {
  recordIteration,
  reportedOutcome,
  type RecordOutcome
} from '../../statefile/record-outcome.js'
import type { ProgramFiles } from '../program-files.js'
import type { MachineStatePatch } from '../../core/schema.js'
import { signatureOf, type Signature } from '../../core/signature/signature.js'
import { buildKey } from '../../core/signature/normalise.js'
import {
  failureSummaryJson,
  renderFailureSummaryMarkdown,
  type FailureSummary
} from '../../render/failure-summary.js'
import {
  commentMarker,
  renderGreenWithCaveatsComment,
  renderIterationComment,
  renderPauseComment
} from '../../render/comments.js'
import { forLog } from '../../core/text/untrusted.js'
import { skippedReport, type GateReport } from '../outputs.js'
import { errorMessage, httpStatus } from '../../core/errors.js'
import { announce } from '../announce.js'
import { LOCATE_TRIES, locateFixerRun } from '../fixer-check.js'
import type { RedFindings } from '../../core/checks/findings.js'
import { NOTHING_SEEN, type GatedHead, type Seen } from './observe.js'
import { decideOn, iterationOf, stoppedReason, write, type GateRun } from './run.js'
import { blockedSummary, summaryOf } from '../../render/summary-of.js'
export type Began = (BeganAttempt & { files: ProgramFiles }) | { stopped: string }

/** The attempt, written in flight with this run's id before waiting (and Branch, PR, Issue rows). */
export async function begin(
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
      const waited = withWaits(run, began, head, pull)
      const rows: MachineStatePatch = {}
      if (current.machine.branch !== config.branch) rows.branch = config.branch
      if (pull && current.machine.pr !== pull.number) rows.pr = pull.number
      if (config.issue !== undefined && current.machine.issue !== config.issue)
        rows.issue = config.issue
      const ledger =
        Object.keys(rows).length > 0
          ? withStateWrite(waited.ledger, { machineState: rows }, deps.clock.now())
          : waited.ledger
      return { ledger, value: waited }
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

/**
 * The attempt as `wait` has it: with `wait: false` it carries what `settle` settles it with
 * (`Waits`); the polling gate settles it itself, so an attempt it re-uses loses them.
 */
function withWaits(
  run: GateRun,
  began: BeganAttempt,
  head: GatedHead,
  pull: PullInfo | null
): BeganAttempt {
  const { config, deps } = run
  if (began.kind === 'no-new-commit' || (config.wait && !began.attempt.waits)) return began
  const report = run.report
  const waits = config.wait
    ? undefined
    : waitsOf(config, {
        runId: deps.environment.runId ?? null,
        pushed: head.pushed,
        pr: pull?.number ?? null,
        pullBase: pull?.baseRef ?? null,
        report: report
          ? {
              metric: report.metric,
              improved: report.improved,
              change: report.change,
              ...(report.error ? { error: report.error } : {})
            }
          : null
      })
  const ledger = updateAttempt(began.ledger, began.attempt.index, (attempt) => {
    const rest = { ...attempt }
    delete rest.waits
    return waits ? { ...rest, waits } : rest
  })
  return { ...began, ledger, attempt: attemptAt(ledger, began.attempt.index) }
}

/**
 * An attempt that waits for `settle` (README: "Settling on events"): nothing is decided yet,
 * so it has the budget it had before it; still running then is `ci-timeout`.
 */
export function waitingReport(
  ledger: Ledger,
  attempt: Attempt,
  message: string,
  waitingFor: readonly string[] = []
): GateReport {
  return {
    settlement: {
      kind: 'waiting',
      index: attempt.index,
      attemptsRemaining: budgetBefore(ledger, attempt.index),
      deadline: deadlineOf(iterationOf(ledger)),
      waitingFor
    },
    message,
    steps: [],
    attempt
  }
}

/** `wait: false`: the attempt is begun and waits; `settle` settles it once CI has finished. */
export function begunAndWaiting(began: BeganAttempt, head: GatedHead): GateReport {
  const deadline = deadlineOf(iterationOf(began.ledger))
  return waitingReport(
    began.ledger,
    began.attempt,
    `Attempt ${began.attempt.index} on ${head.sha.slice(0, 12)} is begun and waits for CI (wait: false): the settle command settles it when GitHub says CI finished, and reconcile if no event comes, by ${new Date(deadline).toISOString()} at the latest`
  )
}

/**
 * No new commit since the last gate, whose iteration ended: the agent's iteration, if it
 * handed one over, is recorded as it reported it (`rejected`, or `error`; an improvement
 * without a commit is an error too).
 */
export async function recordWithoutCommit(
  run: GateRun,
  began: BeganAttempt & { files: ProgramFiles },
  head: GatedHead
): Promise<GateReport> {
  const { config, deps } = run
  const nothingNew = `${head.sha.slice(0, 12)} was gated already and its iteration ended ${began.ledger.iteration?.outcome ?? ''}: there is no new commit to gate`
  const report = run.report
  if (!report) return skippedReport(`${nothingNew}.`, { attempt: began.attempt })
  const { outcome } = reportedOutcome(report, { newCommit: false, name: config.branch })
  const written = await write(run, (current) => {
    const recorded = recordReported(run, report, current, false, deps.clock.now())
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
  return skippedReport(
    `${nothingNew}; ${recorded.recorded ? `recorded iteration ${recorded.iteration} as ${outcome}` : `run ${recorded.runKey} had recorded it already`}.`,
    { attempt: began.attempt, pauseReason: recorded.pauseReason, recorded }
  )
}

/** The agent's iteration, recorded as it reported it, on `files`. */
function recordReported(
  run: GateRun,
  report: IterationReport,
  files: ProgramFiles,
  newCommit: boolean,
  now: number
): ReturnType<typeof recordIteration> {
  const { config, deps } = run
  const { outcome, reason } = reportedOutcome(report, { newCommit, name: config.branch })
  return recordIteration(files, {
    outcome,
    metric: report.metric ?? undefined,
    change: report.change,
    reason,
    commit: undefined,
    runId: deps.environment.runId ?? null,
    runUrl: runUrl(deps.environment),
    now,
    maskedValues: deps.maskedValues
  })
}

/** `fix-command` runs next, on these failure summary files, until the wall clock. */
export interface FixStep {
  command: string
  attempt: Attempt
  signature: Signature
  jsonPath: string
  markdownPath: string
  deadline: number
}

export interface Settled {
  result: GateReport
  /** Set when `fix-command` runs next. */
  fix: FixStep | null
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
export async function settle(
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
      const already = settledMeanwhile(current.ledger, observed)
      if (already)
        return { ledger: current.ledger, value: { settlement: already, written: { kind: 'none' } } }
      const settlement = decideOn(run, current.ledger, observed)
      const next = ledgerAfter(run, current, settlement, seen, requested)
      return { ledger: next.ledger, value: { settlement, written: next.written } }
    }
  )
  const { settlement } = written.value
  return applied(run, settlement, written.value.written, written.files, seen, requested)
}

/**
 * An attempt that waits on events is settled once: by whichever `settle` (or `reconcile`, or
 * a polling gate that re-used it) writes first. Any later one finds it settled and writes
 * nothing: one verdict, one dispatch, one comment.
 */
function settledMeanwhile(ledger: Ledger, observed: Observed): Settlement | null {
  if (observed.kind !== 'checks') return null
  const attempt = ledger.attempts.find((a) => a.index === observed.index)
  if (!attempt?.waits || attempt.state === 'in-flight') return null
  return {
    kind: 'skipped',
    reason: `Attempt ${observed.index} on ${attempt.sha.slice(0, 12)} was settled by another run meanwhile (${attempt.state}): nothing more to do.`
  }
}

/** The ledger a settlement writes (pure: the files as read, the settlement, what was seen). */
function ledgerAfter(
  run: GateRun,
  current: ProgramFiles,
  settlement: Settlement,
  seen: Seen,
  requested: Dispatch | null
): { ledger: Ledger; written: Written } {
  const { deps } = run
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
      const recorded = recordReported(run, report, { ...current, ledger }, true, now)
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
      return { result: skippedReport(settlement.reason), fix: null }
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
): Promise<GateReport> {
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
    settlement,
    message,
    steps: [],
    observation,
    attempt,
    classification: classification ?? null,
    recorded
  }
}

/** A pause, written: the failure summary (when it has one), said on the program issue. */
async function announcePause(
  run: GateRun,
  pause: Pause,
  files: ProgramFiles,
  seen: Seen
): Promise<GateReport> {
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
        config.program,
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
      summaryOf(config.program, attempt, findings, pause.signature, ledger, now)
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
    settlement: { kind: 'paused', pause },
    message: `Paused ${config.program}: ${pause.reason}`,
    steps: [],
    observation,
    attempt,
    pauseReason: files.machine.pauseReason ?? pause.reason,
    classification: findings?.classification ?? null,
    failureSummary: summary
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
    summaryOf(config.program, attempt, findings, signature, files.ledger, deps.clock.now())
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
      settlement,
      message: `CI is red on ${observation.sha}: ${dispatched ? 'the fixer run was started' : fixCommand ? 'running fix-command' : 'fix it and gate again'} (${left} fix attempt(s) left)`,
      steps: [],
      observation,
      attempt,
      failureSummary: { markdown, jsonPath },
      dispatched,
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

export async function runFixCommand(run: GateRun, fix: FixStep): Promise<string> {
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
export async function fixCommittedNothing(
  run: GateRun,
  head: GatedHead,
  agentSha: string | null
): Promise<GateReport> {
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
