/**
 * The imperative shell: inputs → command → outputs, job summary, and the one error sink.
 * Everything it talks to arrives in `MainDeps`, so the action, the CLI and the tests run it
 * unchanged.
 */
import { type Logger } from './ports.js'
import { untrustedTextLogger } from './adapters/log.js'
import { parseInputs, type Config } from './core/inputs.js'
import { errorMessage } from './core/errors.js'
import { credentialForms } from './adapters/credentials.js'
import { OUTPUT_NAMES, type Outputs } from './app/outputs.js'
import type { CommandDeps, CommandResult } from './app/command-deps.js'
import { runGateCommand } from './app/gate/index.js'
import { runRecordCommand } from './app/record.js'
import { runResetCommand } from './app/reset.js'
import { runSettleCommand } from './app/settle.js'
import { runReconcileCommand } from './app/reconcile.js'
import { runDoctorCommand } from './app/doctor.js'

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
export type Adapters = Omit<CommandDeps, 'log' | 'maskedValues'>

export interface MainDeps {
  io: ActionIO
  log: Logger
  connect(config: Config): Promise<Adapters>
}

/** Every form of every token (raw, `x-access-token:…`, its base64 header value). */
function maskedValuesOf(config: Config): string[] {
  return [config.githubToken, config.pushToken]
    .filter((value): value is string => Boolean(value))
    .flatMap(credentialForms)
}

async function dispatch(config: Config, deps: MainDeps): Promise<CommandResult> {
  const adapters = await deps.connect(config)
  const maskedValues = maskedValuesOf(config)
  // Check names, keys, error lines and fix-command output reach the log from many places:
  // this logger cleans every line of every command, so no call site has to.
  const commandDeps: CommandDeps = {
    ...adapters,
    log: untrustedTextLogger(deps.log, maskedValues),
    maskedValues
  }
  switch (config.command) {
    case 'gate':
      return runGateCommand(config, commandDeps)
    case 'reconcile':
      return runReconcileCommand(config, commandDeps)
    case 'record':
      return runRecordCommand(config, commandDeps)
    case 'reset':
      return runResetCommand(config, commandDeps)
    case 'doctor':
      return runDoctorCommand(config, commandDeps)
    case 'settle':
      return runSettleCommand(config, commandDeps)
  }
}

export async function run(deps: MainDeps): Promise<void> {
  const outputs: Outputs = {}
  try {
    const config = parseInputs(deps.io.readInput)
    for (const secret of maskedValuesOf(config)) deps.io.setSecret(secret)
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
