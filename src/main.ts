/**
 * The imperative shell: inputs → command → outputs, job summary, and the one error sink.
 * Everything it talks to arrives in `MainDeps`, so tests and the CLI reuse it unchanged.
 */
import type { Clock } from './clock.js'
import type { Logger } from './log.js'
import type { Environment } from './environment.js'
import type { GitHubPort } from './github/port.js'
import type { GitPort } from './git.js'
import { parseInputs, isProgramConfig, type Config, type ProgramConfig } from './inputs.js'
import { ActionError, errorMessage } from './errors.js'
import { OUTPUT_NAMES, checksOutput, gateSummaryMarkdown, type Outputs } from './outputs.js'
import { pushAndWait } from './commands/gate.js'

export interface ActionIO {
  /** The raw value of an input by its kebab-case name ('' when unset). */
  readInput(name: string): string
  setOutput(name: string, value: string): void
  writeSummary(markdown: string): Promise<void>
  setFailed(message: string): void
  /** Registers a value the runner masks in every log line. */
  setSecret(value: string): void
}

export interface MainDeps {
  io: ActionIO
  log: Logger
  /** Built after the inputs are valid: no I/O happens before that. */
  connect(
    config: Config
  ): Promise<{ clock: Clock; github: GitHubPort; git: GitPort; environment: Environment }>
}

interface CommandResult {
  outputs: Outputs
  summary: string
  /** Set when the step must fail although the action worked (fail-on-red). */
  failure?: string
}

async function gate(config: ProgramConfig, deps: MainDeps): Promise<CommandResult> {
  const { clock, github, git, environment } = await deps.connect(config)
  const verdict = await pushAndWait(
    config,
    {
      github,
      git,
      clock,
      log: deps.log,
      runner: {
        runId: environment.runId,
        runAttempt: environment.runAttempt,
        serverUrl: environment.serverUrl
      }
    },
    (_sha, now) => ({ graceFrom: now, deadline: now + config.timeoutMinutes * 60_000 }),
    undefined
  )
  const status = verdict.verdict === 'green' ? 'success' : 'failure'
  const outputs: Outputs = {
    status,
    verdict: verdict.verdict,
    sha: verdict.sha,
    'pr-number': verdict.pull ? String(verdict.pull.number) : '',
    attempt: '0',
    'attempts-remaining': String(config.maxFixAttempts),
    checks: JSON.stringify(checksOutput(verdict.checks))
  }
  deps.log.info(
    `Verdict for ${verdict.sha}: ${verdict.verdict}${verdict.reasons.length ? ` (${verdict.reasons.join('; ')})` : ''}`
  )
  return {
    outputs,
    summary: gateSummaryMarkdown(config.program, verdict, { status }),
    ...(status !== 'success' && config.failOnRed
      ? { failure: `CI is ${verdict.verdict} on ${verdict.sha} and fail-on-red is set` }
      : {})
  }
}

async function dispatch(config: Config, deps: MainDeps): Promise<CommandResult> {
  if (config.command === 'gate' && isProgramConfig(config)) return gate(config, deps)
  throw new ActionError(`The \`${config.command}\` command is not available in this version`, {
    fix: 'use `command: gate`, or upgrade autoloop-ci-gate.'
  })
}

export async function run(deps: MainDeps): Promise<void> {
  const outputs: Outputs = {}
  try {
    const config = parseInputs(deps.io.readInput)
    deps.io.setSecret(config.githubToken)
    if (config.pushToken) deps.io.setSecret(config.pushToken)
    const result = await dispatch(config, deps)
    Object.assign(outputs, result.outputs)
    await deps.io.writeSummary(result.summary)
    if (result.failure) deps.io.setFailed(result.failure)
  } catch (error) {
    outputs.status ??= 'error'
    deps.io.setFailed(errorMessage(error))
  } finally {
    for (const name of OUTPUT_NAMES) deps.io.setOutput(name, outputs[name] ?? '')
  }
}
