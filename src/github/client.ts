/**
 * The one place Octokit is built: token, base URL (GitHub Enterprise Server or the fake API
 * through GITHUB_API_URL), throttling for primary and secondary rate limits (honouring
 * `retry-after`), and retries of 5xx answers and dropped connections.
 *
 * Waits on rate limits go through the injected clock, so tests never sleep.
 */
import { Octokit } from '@octokit/rest'
import { throttling } from '@octokit/plugin-throttling'
import { retry } from '@octokit/plugin-retry'
import Bottleneck from 'bottleneck/light.js'
import type { Clock } from '../clock.js'
import type { Logger } from '../log.js'

const ClientOctokit = Octokit.plugin(throttling, retry)
export type GitHubClient = InstanceType<typeof ClientOctokit>

export interface ClientOptions {
  token: string
  baseUrl: string
  clock: Clock
  log: Logger
  /** How often a request is retried after hitting a rate limit. */
  rateLimitRetries?: number
  /** Milliseconds per unit of plugin-retry's backoff (1, 4, 9 …); 1000 in production. */
  retryBackoffMs?: number
  /**
   * Real milliseconds between two writes; GitHub asks for 1000 (the throttling plugin's
   * default). Only the fake API, which runs on virtual time, sets 0.
   */
  writeSpacingMs?: number
  userAgent?: string
}

export function createGitHubClient(options: ClientOptions): GitHubClient {
  const { clock, log } = options
  const rateLimitRetries = options.rateLimitRetries ?? 4
  const waitOut = async (
    kind: string,
    retryAfterSeconds: number,
    route: string,
    retryCount: number
  ) => {
    if (retryCount >= rateLimitRetries) {
      log.warning(`${kind} rate limit on ${route}: giving up after ${retryCount} retries`)
      return false
    }
    const seconds = Math.max(1, retryAfterSeconds)
    log.warning(
      `${kind} rate limit on ${route}: waiting ${seconds} s before retry ${retryCount + 1}`
    )
    await clock.sleep(seconds * 1000)
    return true
  }
  return new ClientOctokit({
    auth: options.token,
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    userAgent: options.userAgent ?? 'autoloop-ci-gate',
    log: {
      debug: (message: string) => log.debug(message),
      info: (message: string) => log.debug(message),
      warn: (message: string) => log.warning(message),
      // Octokit logs every failed request, 304s included; the caller decides what an error
      // means (a 304 is a cache hit, a 404 often an answer), so these stay in the debug log.
      error: (message: string) => log.debug(message)
    },
    throttle: {
      // The wait happens in the handlers through the injected clock; the plugin then
      // retries at once.
      retryAfterBaseValue: 0,
      ...(options.writeSpacingMs !== undefined
        ? {
            write: new Bottleneck.Group({ maxConcurrent: 1, minTime: options.writeSpacingMs }),
            notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: options.writeSpacingMs })
          }
        : {}),
      onRateLimit: (
        retryAfter: number,
        request: { method: string; url: string },
        _octokit: unknown,
        retryCount: number
      ) => waitOut('Primary', retryAfter, `${request.method} ${request.url}`, retryCount),
      onSecondaryRateLimit: (
        retryAfter: number,
        request: { method: string; url: string },
        _octokit: unknown,
        retryCount: number
      ) => waitOut('Secondary', retryAfter, `${request.method} ${request.url}`, retryCount)
    },
    retry: {
      retryAfterBaseValue: options.retryBackoffMs ?? 1000,
      // 429 belongs to the throttling plugin, which honours retry-after.
      doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451]
    }
  })
}
