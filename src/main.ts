/**
 * The imperative shell: inputs → command → outputs, job summary, and the one error sink.
 * Everything it talks to arrives in `MainDeps`, so tests and the CLI reuse it unchanged.
 */
import { untrustedTextLogger, type Logger } from './log.js'
import { parseInputs, isProgramConfig, type Config, type ProgramConfig } from './inputs.js'
import { ActionError, errorMessage } from './errors.js'
import { OUTPUT_NAMES, checksOutput, gateSummaryMarkdown, type Outputs } from './outputs.js'
import { runGateCommand, type GateCommandDeps } from './commands/gate-command.js'
import type { CommandResult } from './commands/types.js'
import { runRecordCommand } from './commands/record.js'
import { runResetCommand } from './commands/reset.js'
import { runReconcileCommand } from './commands/reconcile.js'

export interface ActionIO {
  /** The raw value of an input by its kebab-case name ('' when unset). */
  readInput(name: string): string
  setOutput(name: string, value: string): void
  writeSummary(markdown: string): Promise<void>
  setFailed(message: string): void
  /** Registers a value the runner masks in every log line. */
  setSecret(value: string): void
}

/** The adapters of every command, built once the inputs are valid (no I/O before that). */
export type Adapters = Omit<GateCommandDeps, 'log' | 'maskedValues'>

export interface MainDeps {
  io: ActionIO
  log: Logger
  connect(config: Config): Promise<Adapters>
}

function maskedValuesOf(config: Config): string[] {
  return [config.githubToken, config.pushToken].filter((value): value is string => Boolean(value))
}

async function gate(config: ProgramConfig, commandDeps: GateCommandDeps): Promise<CommandResult> {
  const result = await runGateCommand(config, commandDeps)
  const { gate: verdict } = result
  const outputs: Outputs = {
    status: result.status,
    verdict: verdict?.verdict ?? '',
    sha: verdict?.sha ?? '',
    'pr-number': verdict?.pull ? String(verdict.pull.number) : '',
    attempt: result.attempt === null ? '' : String(result.attempt),
    'attempts-remaining': result.attemptsRemaining === null ? '' : String(result.attemptsRemaining),
    signature: result.signature?.full ?? '',
    'pause-reason': result.pauseReason ?? '',
    'failure-summary': result.failureMarkdown ?? '',
    'failure-summary-path': result.failureJsonPath ?? '',
    checks: verdict ? JSON.stringify(checksOutput(verdict.checks)) : '[]'
  }
  const summary = verdict
    ? gateSummaryMarkdown(config.program, verdict, {
        status: result.status,
        pauseReason: result.pauseReason ?? undefined,
        failureMarkdown: result.failureMarkdown ?? undefined,
        steps: result.steps
      })
    : `## autoloop-ci-gate: ${config.program}\n\n${result.message}\n`
  const red = result.status === 'failure' || result.status === 'paused'
  return {
    outputs,
    summary,
    message: result.message,
    ...(red && config.failOnRed ? { failure: `${result.message} (fail-on-red is set)` } : {})
  }
}

async function dispatch(config: Config, deps: MainDeps): Promise<CommandResult> {
  if (config.command !== 'reconcile' && !isProgramConfig(config))
    throw new ActionError(`The \`${config.command}\` command needs \`program\``)
  const adapters = await deps.connect(config)
  const maskedValues = maskedValuesOf(config)
  // Check names, keys, error lines and fix-command output reach the log from many places:
  // every line is cleaned here, once, for every command.
  const commandDeps = {
    ...adapters,
    log: untrustedTextLogger(deps.log, maskedValues),
    maskedValues
  }
  if (config.command === 'reconcile') return runReconcileCommand(config, commandDeps)
  if (!isProgramConfig(config)) throw new ActionError('unreachable: checked above')
  if (config.command === 'gate') return gate(config, commandDeps)
  return config.command === 'record'
    ? runRecordCommand(config, commandDeps)
    : runResetCommand(config, commandDeps)
}

export async function run(deps: MainDeps): Promise<void> {
  const outputs: Outputs = {}
  try {
    const config = parseInputs(deps.io.readInput)
    deps.io.setSecret(config.githubToken)
    if (config.pushToken) deps.io.setSecret(config.pushToken)
    const result = await dispatch(config, deps)
    Object.assign(outputs, result.outputs)
    deps.log.info(result.message)
    await deps.io.writeSummary(result.summary)
    if (result.failure) deps.io.setFailed(result.failure)
  } catch (error) {
    outputs.status ??= 'error'
    deps.io.setFailed(errorMessage(error))
  } finally {
    for (const name of OUTPUT_NAMES) deps.io.setOutput(name, outputs[name] ?? '')
  }
}
