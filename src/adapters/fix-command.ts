/**
 * The fix-command runner (README: "As a plain step", "Security"). The command runs code an
 * agent wrote, so:
 * - it runs in its own process group, and when it ends or its time is up the whole group is
 *   stopped (SIGTERM, then SIGKILL after a grace period): a test suite it started cannot
 *   outlive it, and a hung one cannot run until the job's limit;
 * - its environment holds no token: every `INPUT_*` (the action's inputs, `github-token` and
 *   `push-token` among them), every `ACTIONS_*` (the runner's own tokens and URLs),
 *   `GITHUB_TOKEN`, `GH_TOKEN`, and any variable whose value carries one of the tokens are
 *   left out, unless `fix-command-env` names them.
 */
import { spawn } from 'node:child_process'
import { constants } from 'node:os'
import type { Logger } from '../ports.js'

/** Variables that carry a credential by name; `INPUT_*` and `ACTIONS_*` are dropped by prefix. */
const TOKEN_VARIABLES = [
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN'
]
const DROPPED_PREFIXES = ['INPUT_', 'ACTIONS_']

/**
 * The fix command's environment: `env` without the variables named in the module comment,
 * except those `passOn` names.
 */
export function fixCommandEnvironment(
  env: NodeJS.ProcessEnv,
  options: { passOn: readonly string[]; secrets: readonly string[] }
): Record<string, string> {
  const passOn = new Set(options.passOn)
  const secrets = options.secrets.filter(Boolean)
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue
    const upper = name.toUpperCase()
    const dropped =
      DROPPED_PREFIXES.some((prefix) => upper.startsWith(prefix)) ||
      TOKEN_VARIABLES.includes(upper) ||
      secrets.some((secret) => value.includes(secret))
    if (!dropped || passOn.has(name)) kept[name] = value
  }
  return kept
}

/** A timer that can be cancelled; real time in the action (a child process runs on it). */
export type StartTimer = (ms: number, fire: () => void) => () => void

const realTimer: StartTimer = (ms, fire) => {
  const timer = setTimeout(fire, ms)
  return () => clearTimeout(timer)
}

export interface FixCommandRunnerOptions {
  cwd: string
  /** The environment the command gets (see `fixCommandEnvironment`). */
  env: Record<string, string>
  log: Logger
  /** Time between SIGTERM and SIGKILL; 5 s by default. */
  graceMs?: number
  timer?: StartTimer
}

export type FixCommandRunner = (
  command: string,
  extraEnv: Record<string, string>,
  timeoutMs: number
) => Promise<{ exitCode: number; timedOut: boolean }>

/** Sends `signal` to every process of the group led by `pid`; false when none is left. */
function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal)
    return true
  } catch {
    return false
  }
}

/**
 * Runs `bash -c command` in `cwd`, forwarding its output to the log line by line. It
 * resolves once the command has ended and every process it started is gone (their output
 * read to the end): at the command's exit, or at `timeoutMs`, the group gets SIGTERM, then
 * SIGKILL after the grace period.
 */
export function fixCommandRunner(options: FixCommandRunnerOptions): FixCommandRunner {
  const graceMs = options.graceMs ?? 5_000
  const startTimer = options.timer ?? realTimer
  return (command, extraEnv, timeoutMs) =>
    new Promise((resolve) => {
      const child = spawn('bash', ['-c', command], {
        cwd: options.cwd,
        env: { ...options.env, ...extraEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true
      })
      const pid = child.pid as number
      let timedOut = false
      let exitCode: number | null = null
      let cancelKill: (() => void) | null = null
      const forward = (chunk: Buffer) => {
        for (const line of chunk.toString().split('\n')) if (line) options.log.info(`  | ${line}`)
      }
      child.stdout.on('data', forward)
      child.stderr.on('data', forward)
      const stopGroup = () => {
        if (cancelKill || !signalGroup(pid, 'SIGTERM')) return
        cancelKill = startTimer(graceMs, () => signalGroup(pid, 'SIGKILL'))
      }
      const cancelTimeout = startTimer(timeoutMs, () => {
        timedOut = true
        options.log.warning(
          `fix-command still running after ${Math.round(timeoutMs / 1000)} s: stopping it and every process it started`
        )
        stopGroup()
      })
      // The command is done when bash exits; anything it left running is stopped then.
      child.on('exit', (code, signal) => {
        exitCode = code ?? 128 + (signal ? constants.signals[signal] : 0)
        cancelTimeout()
        stopGroup()
      })
      child.on('error', (error) => {
        exitCode ??= 127
        options.log.warning(`fix-command could not start: ${error.message}`)
      })
      // 'close' comes when every holder of the output pipes is gone: the whole group.
      child.on('close', (code) => {
        cancelTimeout()
        cancelKill?.()
        resolve({ exitCode: exitCode ?? code ?? 1, timedOut })
      })
    })
}
