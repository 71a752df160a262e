/**
 * Builds the real adapters once the inputs are valid: clock, GitHub client, git, the state
 * store, the fix-command runner.
 */
import * as core from '@actions/core'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { systemClock } from './clock.js'
import { remoteClock } from './remote-clock.js'
import { readEnvironment } from './environment.js'
import { createGitHubClient } from './github/client.js'
import { RestGitHub } from './github/rest.js'
import { createGit } from './git.js'
import { ContentsApiStore, LocalDirStore, type StateStore } from './state/store.js'
import type { Config } from './inputs.js'
import type { Logger } from './log.js'
import { forLog } from './text/untrusted.js'
import type { Adapters, MainDeps } from './main.js'

export const DEFAULT_STATE_DIR = '/tmp/gh-aw/repo-memory/autoloop'

/**
 * The runner's log. Messages may quote CI text (check names, signatures, a fix command's
 * output), so every line is passed through `forLog`: it can issue no workflow command and
 * carries no token-like string.
 */
export const coreLogger: Logger = {
  debug: (message) => core.debug(forLog(message)),
  info: (message) => core.info(forLog(message)),
  warning: (message) => core.warning(forLog(message)),
  error: (message) => core.error(forLog(message)),
  group: (title, body) => core.group(forLog(title), body)
}

/** `state-dir` when given, else gh-aw's repo-memory folder when it exists, else the state branch. */
export function chooseStore(
  config: Config,
  github: RestGitHub,
  exists: (path: string) => boolean
): StateStore {
  const dir = config.stateDir ?? (exists(DEFAULT_STATE_DIR) ? DEFAULT_STATE_DIR : undefined)
  return dir ? new LocalDirStore(dir) : new ContentsApiStore(github, { branch: config.stateBranch })
}

function runShell(cwd: string, log: Logger) {
  return (command: string, env: Record<string, string>, timeoutMs: number) =>
    new Promise<{ exitCode: number }>((resolve) => {
      const child = spawn('bash', ['-c', command], {
        cwd,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe']
      })
      const forward = (chunk: Buffer) => {
        for (const line of chunk.toString().split('\n')) if (line) log.info(`  | ${line}`)
      }
      child.stdout.on('data', forward)
      child.stderr.on('data', forward)
      const timer = setTimeout(() => {
        log.warning(
          `fix-command still running after ${Math.round(timeoutMs / 1000)} s: stopping it`
        )
        child.kill('SIGTERM')
      }, timeoutMs)
      child.on('close', (code) => {
        clearTimeout(timer)
        resolve({ exitCode: code ?? 1 })
      })
    })
}

export function realConnect(env: NodeJS.ProcessEnv, cwd: string, log: Logger): MainDeps['connect'] {
  return async (config): Promise<Adapters> => {
    const environment = readEnvironment(env, cwd)
    const clock = environment.clockUrl ? await remoteClock(environment.clockUrl) : systemClock
    const client = createGitHubClient({
      token: config.githubToken,
      baseUrl: environment.apiUrl,
      clock,
      log,
      // Against the fake API (virtual time) 5xx retries need no real backoff.
      retryBackoffMs: environment.clockUrl ? 1 : 1000,
      ...(environment.clockUrl ? { writeSpacingMs: 0 } : {})
    })
    const github = new RestGitHub(client, environment.repository)
    return {
      clock,
      environment,
      github,
      failures: github,
      issues: github,
      store: chooseStore(config, github, existsSync),
      git: createGit({
        cwd: environment.workspace,
        pushToken: config.pushToken,
        serverUrl: environment.serverUrl
      }),
      runner: {
        runId: environment.runId,
        runAttempt: environment.runAttempt,
        serverUrl: environment.serverUrl
      },
      runFixCommand: runShell(environment.workspace, log),
      async writeFile(path, text) {
        await mkdir(dirname(path), { recursive: true })
        await writeFile(path, text)
      }
    }
  }
}
