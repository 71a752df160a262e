/**
 * The composition root: builds the real adapters once the inputs are valid (GitHub client,
 * git, the state store, the fix-command runner) around the clock and logger it is given.
 * The action passes the system clock; tests pass the fake API's clock, so nothing here
 * knows about tests.
 */
import * as core from '@actions/core'
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Clock } from './ports.js'
import { readEnvironment, repositoryName } from './core/environment.js'
import { createGitHubClient, type ClientOptions } from './adapters/github/client.js'
import { RestGitHub } from './adapters/github/rest.js'
import { createGit } from './adapters/git.js'
import { type StateStore } from './ports.js'
import { ContentsApiStore, LocalDirStore } from './adapters/store.js'
import { gitMemoryBranchReader } from './adapters/memory-branch.js'
import { checkoutWorkflowFolder } from './adapters/workflow-folder.js'
import type { Config } from './core/inputs.js'
import type { Logger } from './ports.js'
import { forLog } from './core/text/untrusted.js'
import { fixCommandEnvironment, fixCommandRunner } from './adapters/fix-command.js'
import type { Adapters, MainDeps } from './main.js'

/** Where gh-aw's repo-memory job checks out the `memory/autoloop` branch. */
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

export interface ConnectOptions {
  /** The runner environment (GITHUB_*, RUNNER_TEMP, …). */
  env: NodeJS.ProcessEnv
  /** The working directory when GITHUB_WORKSPACE is unset. */
  cwd: string
  log: Logger
  clock: Clock
  /** Client tuning beyond GitHub's defaults (a shorter retry backoff, another `fetch`). */
  client?: Pick<ClientOptions, 'retryBackoffMs' | 'fetch'>
  /** Whether a folder exists (gh-aw's repo-memory folder is used when it does). */
  exists?: (path: string) => boolean
}

export function realConnect(options: ConnectOptions): MainDeps['connect'] {
  const { env, log, clock } = options
  return async (config): Promise<Adapters> => {
    const environment = readEnvironment(env, options.cwd)
    const client = createGitHubClient({
      token: config.githubToken,
      baseUrl: config.githubApiUrl ?? environment.apiUrl,
      clock,
      log,
      ...options.client
    })
    const github = new RestGitHub(client, environment.repository)
    const store = chooseStore(config, github, options.exists ?? existsSync)
    return {
      clock,
      environment,
      github,
      failures: github,
      issues: github,
      store,
      repoContents: github,
      checkoutWorkflows: checkoutWorkflowFolder(environment.workspace),
      ...(store instanceof ContentsApiStore
        ? {
            memoryBranch: gitMemoryBranchReader({
              remoteUrl: `${environment.serverUrl}/${repositoryName(environment)}.git`,
              serverUrl: environment.serverUrl,
              token: config.githubToken,
              tempDir: environment.tempDir
            })
          }
        : {}),
      git: createGit({
        cwd: environment.workspace,
        pushToken: config.pushToken,
        serverUrl: environment.serverUrl
      }),
      runFixCommand: fixCommandRunner({
        cwd: environment.workspace,
        env: fixCommandEnvironment(env, {
          passOn: config.fixCommandEnv,
          secrets: [config.githubToken, config.pushToken ?? '']
        }),
        log
      }),
      async writeFile(path, text) {
        await mkdir(dirname(path), { recursive: true })
        await writeFile(path, text)
      },
      async readFile(path) {
        try {
          return await readFile(path, 'utf8')
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
          throw error
        }
      }
    }
  }
}
