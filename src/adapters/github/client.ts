/**
 * The one place Octokit is built: token, base URL (GitHub Enterprise Server or the fake API
 * through GITHUB_API_URL), throttling for primary and secondary rate limits and 429 answers
 * (honouring `retry-after`), and retries of 5xx answers and dropped connections.
 *
 * Waits on rate limits and retry backoffs go through the injected clock, so tests never sleep.
 */
import { Octokit } from '@octokit/rest'
import { throttling } from '@octokit/plugin-throttling'
import type { Clock, Logger } from '../../ports.js'

const ClientOctokit = Octokit.plugin(throttling)
export type GitHubClient = InstanceType<typeof ClientOctokit>

export interface ClientOptions {
  token: string
  baseUrl: string
  clock: Clock
  log: Logger
  /** How often a request is retried after hitting a rate limit. */
  rateLimitRetries?: number
  /** How often a JSON answer with a body that is not JSON is asked for again; default 3. */
  malformedRetries?: number
  /** Milliseconds per unit of the backoff between failed tries (1, 4, 9); 1000 by default. */
  retryBackoffMs?: number
  userAgent?: string
  /**
   * The `fetch` requests go through; the runtime's own by default. Tests give the fake API's
   * in-memory one (README: "Development").
   */
  fetch?: typeof fetch
}

/**
 * GitHub asks integrations to leave at least a second between two writes, and more between
 * writes that notify people (comments); these are the throttling plugin's own spacings.
 */
export const WRITE_SPACING_MS = 1000
export const NOTIFYING_WRITE_SPACING_MS = 3000

/**
 * What the throttling plugin calls to space requests: `group.key(id).schedule(options, job)`.
 * The plugin's own groups wait on real timers; these wait on the injected clock, so writes stay
 * a second apart against GitHub and cost no real time against a clock that tests move.
 */
function clockSpacedGroup(clock: Clock, spacingMs: number) {
  let last = -Infinity
  let queue: Promise<unknown> = Promise.resolve()
  const limiter = {
    schedule<A extends unknown[], R>(
      _options: unknown,
      job: (...args: A) => Promise<R>,
      ...args: A
    ): Promise<R> {
      const turn = queue.then(async () => {
        const wait = last + spacingMs - clock.now()
        if (wait > 0) await clock.sleep(wait)
        last = clock.now()
      })
      queue = turn.catch(() => undefined)
      return turn.then(() => job(...args))
    }
  }
  return { key: () => limiter }
}

/**
 * For the plugin's `global`, `auth` and `search` groups: no spacing. The action never has more
 * than a few requests in flight (reconcile's pool is 8), and the plugin's own Bottleneck
 * group adds several milliseconds to every request.
 */
function immediateGroup() {
  const limiter = {
    schedule<A extends unknown[], R>(
      _options: unknown,
      job: (...args: A) => Promise<R>,
      ...args: A
    ): Promise<R> {
      return Promise.resolve().then(() => job(...args))
    }
  }
  return { key: () => limiter }
}

/**
 * Answers that are never retried: 429 belongs to the rate-limit handling, which honours
 * `retry-after`; a 409 is a conflict (a file's sha moved), which the same request cannot get
 * past (the compare-and-swap re-reads); the others say the request itself is wrong.
 */
const NOT_RETRIED = new Set([400, 401, 403, 404, 409, 410, 422, 429, 451])
/** Tries after the first, unless a request says otherwise with `request: { retries }`. */
const SERVER_ERROR_RETRIES = 3

/** A request that reached (or tried to reach) GitHub and failed with a status worth a retry. */
function isServerError(error: unknown): boolean {
  const { status, request } = error as { status?: unknown; request?: unknown }
  return (
    request !== undefined && typeof status === 'number' && status >= 400 && !NOT_RETRIED.has(status)
  )
}

/**
 * The throttling plugin's retry queue (`retryLimiter`): runs a request and, when a `failed`
 * handler asks for a retry (rate limits, after the wait in `waitOut`), runs it again after the
 * delay it names, on the injected clock. The plugin's default Bottleneck queue adds several
 * milliseconds of timers to every request.
 */
type FailedHandler = (
  error: unknown,
  info: { args: unknown[]; retryCount: number }
) => unknown | Promise<unknown>

function clockRetryQueue(clock: Clock) {
  const handlers: FailedHandler[] = []
  return {
    on(event: string, handler: FailedHandler): void {
      if (event === 'failed') handlers.push(handler)
    },
    async schedule<A extends unknown[], R>(
      job: (...args: A) => Promise<R>,
      ...args: A
    ): Promise<R> {
      for (let retryCount = 0; ; retryCount++) {
        try {
          return await job(...args)
        } catch (error) {
          let delay: unknown
          for (const handler of handlers) {
            const answer = await handler(error, { args, retryCount })
            if (delay === undefined) delay = answer
          }
          if (typeof delay !== 'number') throw error
          if (delay > 0) await clock.sleep(delay)
        }
      }
    }
  }
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
  // The plugin's types name Bottleneck groups; it only ever calls key().schedule(), so these
  // groups are given outside the constructor's literal, whose types would refuse them.
  const throttle = {
    // The wait happens in the handlers through the injected clock; the plugin then
    // retries at once.
    retryAfterBaseValue: 0,
    global: immediateGroup() as never,
    auth: immediateGroup() as never,
    search: immediateGroup() as never,
    write: clockSpacedGroup(clock, WRITE_SPACING_MS) as never,
    notifications: clockSpacedGroup(clock, NOTIFYING_WRITE_SPACING_MS) as never,
    retryLimiter: clockRetryQueue(clock) as never,
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
  }
  const octokit = new ClientOctokit({
    auth: options.token,
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    userAgent: options.userAgent ?? 'autoloop-ci-gate',
    ...(options.fetch ? { request: { fetch: options.fetch } } : {}),
    log: {
      debug: (message: string) => log.debug(message),
      info: (message: string) => log.debug(message),
      warn: (message: string) => log.warning(message),
      // Octokit logs every failed request, 304s included; the caller decides what an error
      // means (a 304 is a cache hit, a 404 often an answer), so these stay in the debug log.
      error: (message: string) => log.debug(message)
    },
    throttle
  })
  // 5xx answers and dropped connections (Octokit reports a failed `fetch` as a RequestError
  // with status 500): up to three more tries, 1, 4 and 9 backoff units after the failures, on
  // the injected clock. A request sent with `request: { retries: 0 }` (a dispatch, a comment:
  // a lost answer may hide a done write) is tried once. These are `@octokit/plugin-retry`'s
  // rules, without its Bottleneck queue per request, whose zero-delay timers cost several
  // milliseconds of real time on every request.
  const backoffMs = options.retryBackoffMs ?? 1000
  octokit.hook.wrap('request', async (request, requestOptions) => {
    const retries = Number(requestOptions.request.retries ?? SERVER_ERROR_RETRIES)
    for (let tries = 1; ; tries++) {
      try {
        return await request(requestOptions)
      } catch (error) {
        if (tries > retries || !isServerError(error)) throw error
        await clock.sleep(tries * tries * backoffMs)
      }
    }
  })
  // A 429 asks the client to wait `retry-after`. The throttling plugin acts on one only when
  // its message says "secondary rate" or the primary limit is spent, so a plain 429 would
  // fail the step: it is waited out here, through the injected clock, like the others.
  // A JSON answer whose body is not JSON (a cut or garbled response) is never handed on as
  // data (a string where an object was expected would read as "no file", "no pull"): it is
  // asked for again, and after `malformedRetries` it is an error that says so.
  const malformedRetries = options.malformedRetries ?? 3
  octokit.hook.wrap('request', async (request, requestOptions) => {
    for (let retryCount = 0, malformed = 0; ; retryCount++) {
      try {
        const response = await request(requestOptions)
        if (!isMalformedJson(response)) return response
        const route = `${requestOptions.method} ${requestOptions.url}`
        if (++malformed > malformedRetries)
          throw new Error(
            `GitHub answered ${route} with a body that is not JSON, ${malformed} times in a row. Fix: re-run the job; if it keeps happening, check the API URL (GITHUB_API_URL) and any proxy in between`
          )
        log.warning(`${route} answered with a body that is not JSON: asking again`)
      } catch (error) {
        if ((error as { status?: number }).status !== 429) throw error
        const route = `${requestOptions.method} ${requestOptions.url}`
        const seconds = retryAfterSeconds(error, clock.now())
        if (!(await waitOut('429 (too many requests)', seconds, route, retryCount))) throw error
      }
    }
  })
  return octokit
}

/** A response that says it is JSON but whose body Octokit could not parse (left a string). */
function isMalformedJson(response: { headers: Record<string, unknown>; data: unknown }): boolean {
  const type = response.headers['content-type']
  return typeof type === 'string' && /\bjson\b/i.test(type) && typeof response.data === 'string'
}

/** `retry-after` of an error response in seconds (a number or an HTTP date); 60 without one. */
function retryAfterSeconds(error: unknown, now: number): number {
  const headers = (error as { response?: { headers?: Record<string, unknown> } }).response?.headers
  const raw = headers?.['retry-after']
  const value = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : ''
  if (/^\d+$/.test(value)) return Number(value)
  const date = Date.parse(value)
  return Number.isNaN(date) ? 60 : Math.max(1, Math.ceil((date - now) / 1000))
}
