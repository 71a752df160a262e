/**
 * The `gate` command as the loop controller of an iteration (SPEC §5): every gate is an
 * attempt in the program's ledger, written `in-flight` before waiting; a red verdict goes
 * through the guards; a pause is written to Machine State and said on the program issue;
 * with `fix-command`, one step runs fix → push → gate until green or a guard stops it.
 */
import type { ProgramConfig } from '../inputs.js'
import type { Environment } from '../environment.js'
import type { StateStore } from '../state/store.js'
import { createStateFile, readMachineState, updateMachineState } from '../state/markdown.js'
import type { MachineState } from '../state/schema.js'
import {
  beginAttempt,
  completeAttempt,
  finishIteration,
  readLedger,
  writeLedger,
  type Attempt,
  type Ledger
} from '../loop/ledger.js'
import { decideAfterRed, deadlineOf, pausePatch, type RedDecision } from '../loop/guard.js'
import { signatureOf, type Signature } from '../signature/signature.js'
import { buildKey } from '../signature/normalise.js'
import { gatherFailures, type FailureSources, type GatheredFailure } from '../failures/gather.js'
import {
  diffKeys,
  failureSummaryJson,
  renderFailureSummaryMarkdown,
  type FailureSummary
} from '../summary/failure-summary.js'
import { forLog, redactSecrets, removeMarkers } from '../text/untrusted.js'
import type { IssuesPort } from '../issue/program-issue.js'
import { upsertMarkedComment, upsertStatusComment } from '../issue/program-issue.js'
import { commentMarker, renderPauseComment, renderStatusComment } from '../issue/comments.js'
import { pushAndWait, type GateDeps, type GateVerdict } from './gate.js'
import { updateProgramState } from './types.js'
import { ActionError, errorMessage } from '../errors.js'

export interface FixCommandResult {
  exitCode: number
}

export interface GateCommandDeps extends GateDeps {
  store: StateStore
  failures: FailureSources
  issues: IssuesPort
  environment: Environment
  /** Runs `fix-command` in the workspace with extra environment variables. */
  runFixCommand(
    command: string,
    env: Record<string, string>,
    timeoutMs: number
  ): Promise<FixCommandResult>
  writeFile(path: string, text: string): Promise<void>
  random?: () => number
  /** Values the runner masks (tokens); redacted from everything written. */
  maskedValues: readonly string[]
}

export type GateStatus = 'success' | 'failure' | 'paused' | 'skipped'

export interface GateResult {
  status: GateStatus
  message: string
  gate: GateVerdict | null
  attempt: number | null
  attemptsRemaining: number | null
  signature: Signature | null
  pauseReason: string | null
  failureMarkdown: string | null
  failureJsonPath: string | null
  /** Every attempt this step gated, in order (more than one with fix-command). */
  steps: GateStep[]
}

export interface GateStep {
  attempt: number
  sha: string
  verdict: GateVerdict['verdict']
  signature: string | null
}

const NO_CHECKS_KEY = buildKey('no-checks')

function stateOf(text: string | null, program: string): string {
  return text ?? createStateFile(program)
}

/** One attempt's findings, turned into what the ledger, the summary and the outputs need. */
interface RedFindings {
  signature: Signature
  gathered: GatheredFailure[]
}

async function findingsOf(gate: GateVerdict, deps: GateCommandDeps): Promise<RedFindings> {
  if (gate.verdict === 'no-checks') {
    return { signature: signatureOf([NO_CHECKS_KEY]), gathered: [] }
  }
  const failing = gate.checks.filter(
    (check) => check.excluded === undefined && check.state === 'failed'
  )
  const clean = (key: string) => untrustedKey(key, deps.maskedValues)
  const gathered = (await gatherFailures(failing, deps.failures, { log: deps.log })).map(
    (failure) => ({ ...failure, keys: failure.keys.map(clean) })
  )
  const missing = gate.reasons
    .filter((reason) => reason.startsWith('required check never reported: '))
    .map((reason) =>
      buildKey('required-missing', reason.slice('required check never reported: '.length))
    )
  const keys = [...gathered.flatMap((failure) => failure.keys), ...missing]
  const found = keys.length > 0 ? keys : [buildKey('red', gate.reasons.join('; '))]
  return { signature: signatureOf(found.map(clean)), gathered }
}

/**
 * Keys quote CI text (status descriptions, error lines, check names) and go to the ledger on
 * a branch, the failure summary, the outputs and comments: secrets and masked values are
 * redacted and marker text removed before anything is built from them.
 */
function untrustedKey(key: string, maskedValues: readonly string[]): string {
  return removeMarkers(redactSecrets(key, maskedValues)).replace(/\s+/g, ' ').trim()
}

function errorLinesOf(gathered: readonly GatheredFailure[], masked: readonly string[]): string[] {
  return gathered
    .flatMap((failure) =>
      failure.firstErrorLines.slice(0, 3).map((line) => `${failure.name}: ${line}`)
    )
    .slice(0, 10)
    .map((line) => redactSecrets(line, masked))
}

function previousAttempt(ledger: Ledger, index: number): Attempt | undefined {
  return [...ledger.attempts]
    .reverse()
    .find((attempt) => attempt.index < index && attempt.signature)
}

/** A pause or completion written by another run between this gate's start and its first write. */
class StoppedMeanwhile extends Error {}

function skippedResult(message: string, pauseReason: string | null): GateResult {
  return {
    status: 'skipped',
    message,
    gate: null,
    attempt: null,
    attemptsRemaining: null,
    signature: null,
    pauseReason,
    failureMarkdown: null,
    failureJsonPath: null,
    steps: []
  }
}

export async function runGateCommand(
  config: ProgramConfig,
  deps: GateCommandDeps
): Promise<GateResult> {
  const { store, clock, log, environment } = deps
  const program = config.program
  const update = (apply: (text: string) => string) =>
    updateProgramState(deps, program, (text) => ({
      text: apply(stateOf(text, program)),
      value: null
    }))

  const initial = stateOf((await store.read(program))?.text ?? null, program)
  const machine = readMachineState(initial)
  readLedger(initial) // a malformed ledger stops the gate here, before anything is pushed
  if (machine.paused || machine.completed) {
    const why = machine.completed
      ? `completed${machine.completedReason ? ` (${machine.completedReason})` : ''}`
      : `paused: ${machine.pauseReason ?? 'no reason given'}`
    return skippedResult(
      `Program ${program} is ${why}; the gate does nothing. Run the reset command (or push a fix and let reconcile resume it) to continue.`,
      machine.paused ? machine.pauseReason : null
    )
  }

  let knownPull = machine.pr ?? undefined
  let stoppedMeanwhile: string | undefined
  const steps: GateStep[] = []
  for (;;) {
    let began: { ledger: Ledger; attempt: Attempt; reused: boolean } | undefined
    let gate: GateVerdict
    try {
      gate = await pushAndWait(
        config,
        deps,
        async (sha, pull) => {
          // The attempt is written in-flight, with this run's id, before waiting.
          await update((text) => {
            const current = readMachineState(text)
            if (current.paused || current.completed) {
              // Paused by another run since this one started: record nothing.
              stoppedMeanwhile = current.paused
                ? `paused: ${current.pauseReason ?? ''}`
                : 'completed'
              return text
            }
            stoppedMeanwhile = undefined
            const next = beginAttempt(readLedger(text), {
              sha,
              runId: environment.runId ?? null,
              runAttempt: environment.runAttempt ?? null,
              now: clock.now()
            })
            began = next
            const withMachine = updateMachineState(text, {
              branch: config.branch,
              ...(pull ? { pr: pull.number } : {}),
              ...(config.issue !== undefined ? { issue: config.issue } : {})
            })
            return writeLedger(withMachine, next.ledger)
          })
          if (stoppedMeanwhile !== undefined) throw new StoppedMeanwhile(stoppedMeanwhile)
          if (!began) throw new ActionError('the ledger could not be written')
          const { attempt, ledger, reused } = began
          log.info(
            reused
              ? `Re-gating ${sha.slice(0, 12)}: attempt ${attempt.index} of this iteration is re-used, not counted again`
              : `Attempt ${attempt.index} of iteration ${ledger.iteration.id} (${attempt.index === 0 ? 'first gate' : `fix ${attempt.index} of ${config.maxFixAttempts}`})`
          )
          return {
            graceFrom: Date.parse(attempt.startedAt),
            deadline: deadlineOf(ledger, config.timeoutMinutes)
          }
        },
        knownPull
      )
    } catch (error) {
      if (!(error instanceof StoppedMeanwhile)) throw error
      return skippedResult(
        `Program ${program} was ${error.message} by another run while this gate pushed; nothing was recorded.`,
        null
      )
    }
    if (!began) throw new ActionError('internal error: the gate finished without an attempt')
    const { attempt } = began as { attempt: Attempt }
    if (gate.pull) knownPull = gate.pull.number
    const outcome = await settleAttempt(
      config,
      deps,
      gate,
      (began as { ledger: Ledger }).ledger,
      attempt.index,
      update
    )
    const step = (result: GateResult): GateStep => ({
      attempt: attempt.index,
      sha: gate.sha,
      verdict: gate.verdict,
      signature: result.signature?.short ?? null
    })
    if (outcome.kind === 'done')
      return { ...outcome.result, steps: [...steps, step(outcome.result)] }
    steps.push(step(outcome.summaryResult))

    // fix-command: run it, push what it committed, gate again.
    const command = config.fixCommand as string
    const before = gate.sha
    log.info(
      `Running fix-command for attempt ${attempt.index + 1} (signature: ${forLog(outcome.signature.short, { maskedValues: deps.maskedValues })})`
    )
    const remaining = Math.max(60_000, outcome.deadline - clock.now())
    const env = {
      AUTOLOOP_FAILURE_JSON: outcome.jsonPath,
      AUTOLOOP_FAILURE_MD: outcome.markdownPath,
      AUTOLOOP_SIGNATURE: outcome.signature.full,
      AUTOLOOP_ATTEMPT: String(attempt.index + 1),
      AUTOLOOP_PROGRAM: program,
      AUTOLOOP_SHA: before
    }
    const { exitCode } = await deps.runFixCommand(command, env, remaining)
    if (exitCode !== 0) log.warning(`fix-command exited with code ${exitCode}`)
    const after = await deps.git.headSha()
    if (after === before) {
      // A fix that commits nothing is an attempt with an unchanged signature: stuck.
      const reason = `stuck in CI fix loop: ${outcome.signature.short}`
      log.warning(`fix-command committed nothing (HEAD is still ${before.slice(0, 12)}): pausing`)
      const paused = await pauseAfter(config, deps, gate, outcome.summaryResult, reason, update)
      return { ...paused, steps }
    }
    if (!config.push)
      throw new ActionError(
        'fix-command needs `push: true`: its commits must reach the branch to be gated',
        {
          fix: 'remove `push: false`, or drive the fix loop from the workflow instead of fix-command.'
        }
      )
  }
}

type Update = (apply: (text: string) => string) => Promise<{ text: string }>

type Settled =
  | { kind: 'done'; result: GateResult }
  | {
      kind: 'fix'
      signature: Signature
      jsonPath: string
      markdownPath: string
      deadline: number
      summaryResult: GateResult
    }

async function settleAttempt(
  config: ProgramConfig,
  deps: GateCommandDeps,
  gate: GateVerdict,
  ledger: Ledger,
  index: number,
  update: Update
): Promise<Settled> {
  const { clock, log } = deps
  const now = clock.now()
  if (gate.verdict === 'green') {
    await update((text) => {
      const ledger = readLedger(text)
      return ledger
        ? writeLedger(text, completeAttempt(ledger, index, { state: 'green', now }))
        : text
    })
    return {
      kind: 'done',
      result: {
        status: 'success',
        message: `CI is green on ${gate.sha}`,
        gate,
        attempt: index,
        attemptsRemaining: Math.max(0, config.maxFixAttempts - index),
        signature: null,
        pauseReason: null,
        failureMarkdown: null,
        failureJsonPath: null,
        steps: []
      }
    }
  }

  if (gate.verdict === 'ci-timeout') {
    const signature = signatureOf([buildKey('ci-timeout')])
    const base: GateResult = {
      status: 'paused',
      message: '',
      gate,
      attempt: index,
      attemptsRemaining: 0,
      signature,
      pauseReason: 'ci-timeout',
      failureMarkdown: null,
      failureJsonPath: null,
      steps: []
    }
    return {
      kind: 'done',
      result: await pauseAfter(config, deps, gate, base, 'ci-timeout', update, {
        index,
        state: 'ci-timeout',
        signature
      })
    }
  }

  // red or no-checks
  const findings = await findingsOf(gate, deps)
  const { signature, gathered } = findings
  const decision: RedDecision = decideAfterRed(ledger, {
    index,
    signature,
    now,
    maxFixAttempts: config.maxFixAttempts,
    timeoutMinutes: config.timeoutMinutes
  })
  const previous = previousAttempt(ledger, index)
  const summary: FailureSummary = {
    version: 1,
    program: config.program,
    sha: gate.sha,
    attempt: index,
    generatedAt: new Date(now).toISOString(),
    signature: { keys: signature.keys, full: signature.full, short: signature.short },
    checks: gathered.map((failure) => ({
      name: failure.name,
      conclusion: failure.conclusion,
      url: failure.url ?? '',
      source: failure.source,
      keys: failure.keys,
      firstErrorLines: failure.firstErrorLines,
      ...(failure.logTruncated ? { logTruncated: true } : {}),
      ...(failure.note ? { note: failure.note } : {})
    })),
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
  if (gate.verdict === 'no-checks' && gate.explanation) log.warning(gate.explanation)
  const markdown = renderFailureSummaryMarkdown(summary, { maskedValues: deps.maskedValues })
  const dir = `${deps.environment.tempDir}/autoloop-ci-gate`
  const jsonPath = `${dir}/${config.program}-attempt-${index}.json`
  const markdownPath = `${dir}/${config.program}-attempt-${index}.md`
  await deps.writeFile(jsonPath, failureSummaryJson(summary, { maskedValues: deps.maskedValues }))
  await deps.writeFile(markdownPath, markdown)
  for (const failure of gathered)
    log.info(
      `${failure.name}: ${failure.keys.length} key(s) from ${failure.source}${failure.note ? ` (${failure.note})` : ''}`
    )
  log.info(`Failure signature: ${forLog(signature.full, { maskedValues: deps.maskedValues })}`)

  const attemptRecord = {
    index,
    state: gate.verdict === 'no-checks' ? ('no-checks' as const) : ('red' as const),
    signature,
    failingChecks: gathered.map((f) => ({ name: f.name, conclusion: f.conclusion, url: f.url })),
    errorLines: errorLinesOf(gathered, deps.maskedValues)
  }
  const result: GateResult = {
    status: 'failure',
    message: `CI is ${gate.verdict} on ${gate.sha}`,
    gate,
    attempt: index,
    attemptsRemaining: decision.kind === 'fix' ? decision.attemptsRemaining : 0,
    signature,
    pauseReason: null,
    failureMarkdown: markdown,
    failureJsonPath: jsonPath,
    steps: []
  }
  if (decision.kind === 'pause') {
    log.warning(`Pausing ${config.program}: ${decision.reason}`)
    return {
      kind: 'done',
      result: await pauseAfter(config, deps, gate, result, decision.reason, update, attemptRecord)
    }
  }
  await update((text) => {
    const stored = readLedger(text)
    return stored
      ? writeLedger(text, completeAttempt(stored, index, { ...attemptRecord, now }))
      : text
  })
  if (config.fixCommand) {
    return {
      kind: 'fix',
      signature,
      jsonPath,
      markdownPath,
      deadline: deadlineOf(ledger, config.timeoutMinutes),
      summaryResult: result
    }
  }
  return {
    kind: 'done',
    result: {
      ...result,
      message: `${result.message}: fix it and gate again (${decision.attemptsRemaining} fix attempt(s) left)`
    }
  }
}

interface AttemptRecord {
  index: number
  state: 'red' | 'no-checks' | 'ci-timeout'
  signature: Signature
  failingChecks?: { name: string; conclusion: string; url: string | null }[]
  errorLines?: string[]
}

/** Writes the pause (ledger, Machine State) and says it on the program issue. */
async function pauseAfter(
  config: ProgramConfig,
  deps: GateCommandDeps,
  gate: GateVerdict,
  result: GateResult,
  reason: string,
  update: Update,
  record?: AttemptRecord
): Promise<GateResult> {
  const now = deps.clock.now()
  const written = await update((text) => {
    let ledger = readLedger(text)
    if (ledger && record) ledger = completeAttempt(ledger, record.index, { ...record, now })
    if (ledger) ledger = finishIteration(ledger, 'paused', now)
    const machine = readMachineState(text)
    const paused = updateMachineState(text, pausePatch(machine, { reason, now }))
    return ledger ? writeLedger(paused, ledger) : paused
  })
  await announcePause(config, deps, written.text, reason, result.signature)
  return {
    ...result,
    status: 'paused',
    pauseReason: readMachineState(written.text).pauseReason ?? reason,
    message: `Paused ${config.program}: ${reason}`,
    gate
  }
}

async function announcePause(
  config: ProgramConfig,
  deps: GateCommandDeps,
  text: string,
  reason: string,
  signature: Signature | null
): Promise<void> {
  const machine: MachineState = readMachineState(text)
  const issue = config.issue ?? machine.issue ?? undefined
  if (issue === undefined) {
    deps.log.warning(
      `No program issue (input \`issue\` or the state file's Issue row): the pause is recorded in the state file only`
    )
    return
  }
  const ledger = readLedger(text)
  const iterationId = ledger?.iteration.id ?? `${config.program}-${deps.clock.now()}`
  const { environment } = deps
  const repository = `${environment.repository.owner}/${environment.repository.repo}`
  try {
    await upsertStatusComment(
      deps.issues,
      issue,
      renderStatusComment({
        program: config.program,
        state: machine,
        stateFile: { label: `${config.program}.md (${deps.store.description})`, url: null },
        serverUrl: environment.serverUrl,
        repository
      })
    )
    await upsertMarkedComment(
      deps.issues,
      issue,
      commentMarker('pause', iterationId),
      renderPauseComment({
        program: config.program,
        iterationId,
        reason,
        signature,
        attempts: ledger?.attempts ?? [],
        runUrlOf: (runId) =>
          runId ? `${environment.serverUrl}/${repository}/actions/runs/${runId}` : null,
        maskedValues: deps.maskedValues,
        branch: config.branch
      })
    )
  } catch (error) {
    // The pause is in the state file already; a comment that cannot be written is loud
    // in the log but does not undo it.
    deps.log.warning(`Could not comment on issue #${issue}: ${errorMessage(error)}`)
  }
}
