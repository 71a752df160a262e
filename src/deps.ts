/**
 * Builds the real adapters once the inputs are valid: clock, GitHub client, git.
 */
import * as core from '@actions/core'
import { systemClock } from './clock.js'
import { remoteClock } from './remote-clock.js'
import { readEnvironment } from './environment.js'
import { createGitHubClient } from './github/client.js'
import { RestGitHub } from './github/rest.js'
import { createGit } from './git.js'
import type { Logger } from './log.js'
import type { MainDeps } from './main.js'

export const coreLogger: Logger = {
  debug: (message) => core.debug(message),
  info: (message) => core.info(message),
  warning: (message) => core.warning(message),
  error: (message) => core.error(message),
  group: (title, body) => core.group(title, body)
}

export function realConnect(env: NodeJS.ProcessEnv, cwd: string, log: Logger): MainDeps['connect'] {
  return async (config) => {
    const environment = readEnvironment(env, cwd)
    const clock = environment.clockUrl ? await remoteClock(environment.clockUrl) : systemClock
    const client = createGitHubClient({
      token: config.githubToken,
      baseUrl: environment.apiUrl,
      clock,
      log,
      // Against the fake API (virtual time) 5xx retries need no real backoff.
      retryBackoffMs: environment.clockUrl ? 1 : 1000
    })
    return {
      clock,
      environment,
      github: new RestGitHub(client, environment.repository),
      git: createGit({
        cwd: environment.workspace,
        pushToken: config.pushToken,
        serverUrl: environment.serverUrl
      })
    }
  }
}
