/**
 * A fake of the GitHub REST API on node:http, with a virtual (or real) clock, declarative
 * scenarios, a git repository behind branches and contents, git fetch over HTTP, injectable
 * faults, ETags, rate-limit accounting and OpenAPI validation of every API request. See
 * README.md in this folder.
 *
 * Two transports share one router (`exchange`): the HTTP server, and `fake.fetch`, which
 * answers a `Request` in memory (no socket) for in-process runs. Validation, recording,
 * faults and rate-limit accounting all happen in the router, so both count the same.
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { faultAnswer, takeFault } from './faults.js'
import { GIT_HTTP_PATH, serveGitHttp } from './git-http.js'
import { GRAPHQL_ROUTE, graphqlOperation, graphqlRequest } from './graphql.js'
import { errorReply, handlerFor, type Reply } from './handlers.js'
import { Model } from './model.js'
import { openApiValidator, type RequestToValidate } from './openapi.js'
import type {
  FakeGitHub,
  FakeGitHubOptions,
  FaultSpec,
  GitRequest,
  LogSource,
  RecordedRequest
} from './types.js'

export type * from './types.js'
export { implementedRoutes } from './handlers.js'

const MAX_BODY_BYTES = 50 * 1024 * 1024

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function parseBody(text: string): RequestToValidate['body'] {
  if (text.length === 0) return undefined
  try {
    return { json: JSON.parse(text) as unknown }
  } catch (error) {
    return { parseError: error instanceof Error ? error.message : String(error) }
  }
}

function etagOf(text: string): string {
  return `W/"${createHash('sha1').update(text).digest('hex')}"`
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false
  const bare = (tag: string): string => tag.trim().replace(/^W\//, '')
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag))
}

function normalisePrefix(prefix: string | undefined): string {
  if (!prefix) return ''
  const trimmed = `/${prefix.replace(/^\/+|\/+$/g, '')}`
  return trimmed === '/' ? '' : trimmed
}

function logStream(source: LogSource | undefined): Readable {
  if (source === undefined) return Readable.from([''])
  if (typeof source === 'string') return Readable.from([source])
  if ('file' in source) return createReadStream(source.file)
  const { text, repeat } = source
  const perChunk = Math.max(1, Math.ceil(65536 / Math.max(1, text.length)))
  return Readable.from(
    (function* chunks() {
      for (let done = 0; done < repeat; done += perChunk) {
        yield text.repeat(Math.min(perChunk, repeat - done))
      }
    })()
  )
}

/** A request as the router sees it, whichever transport brought it. */
interface Incoming {
  method: string
  url: URL
  /** Header names in lower case. */
  headers: Record<string, string | undefined>
  body: string
}

/** The router's answer: a status, headers and a body, or a connection dropped unanswered. */
type Outgoing =
  | {
      type: 'answer'
      status: number
      headers: Record<string, string>
      body: string | Buffer | Readable
    }
  | { type: 'drop' }

function jsonAnswer(
  status: number,
  body: unknown,
  headers: Record<string, string> = {}
): Extract<Outgoing, { type: 'answer' }> {
  const text = body === undefined ? '' : JSON.stringify(body)
  return {
    type: 'answer',
    status,
    headers: { ...(text ? { 'content-type': 'application/json; charset=utf-8' } : {}), ...headers },
    body: text
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])
/** What undici throws when the other side closes the connection without an answer. */
function droppedConnection(): TypeError {
  const cause = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })
  return new TypeError('fetch failed', { cause })
}

function pickHeaders(incoming: Incoming): RecordedRequest['headers'] {
  const out: RecordedRequest['headers'] = {}
  for (const name of [
    'if-none-match',
    'authorization',
    'accept',
    'content-type',
    'user-agent',
    'x-github-api-version'
  ] as const) {
    const value = incoming.headers[name]
    if (typeof value === 'string') out[name] = value
  }
  return out
}

/** Whether a request asks GitHub to change something: not a GET, nor a GraphQL query. */
export function isWriteRequest(request: RecordedRequest): boolean {
  if (request.method === 'GET') return false
  const body = request.body as { query?: unknown; operationName?: unknown } | undefined
  return !(
    request.path === '/graphql' &&
    typeof body?.query === 'string' &&
    graphqlOperation(body.query, body.operationName) === 'query'
  )
}

/** Starts the fake on 127.0.0.1. The OpenAPI description is loaded before it listens. */
export async function startFakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const validator = openApiValidator()
  const prefix = normalisePrefix(options.prefix)
  const server = http.createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const apiUrl = `${origin}${prefix}`
  const scenario = options.scenario ?? {}
  let model: Model
  try {
    model = new Model(scenario, { serverUrl: origin, apiUrl }, options.realTime ?? false)
  } catch (error) {
    server.close()
    throw error
  }
  const requests: RecordedRequest[] = []
  const gitRequests: GitRequest[] = []
  const limits = model.rateLimit

  function rateLimitHeaders(): Record<string, string> {
    return {
      'x-ratelimit-limit': String(limits.limit),
      'x-ratelimit-remaining': String(Math.max(0, limits.limit - limits.used)),
      'x-ratelimit-used': String(limits.used),
      'x-ratelimit-reset': String(Math.floor(limits.resetAt / 1000)),
      'x-ratelimit-resource': 'core'
    }
  }

  async function control(incoming: Incoming): Promise<Outgoing> {
    const { method, url, body: text } = incoming
    const path = url.pathname
    const log = /^\/_fake\/logs\/(\d+)$/.exec(path)
    if (log && method === 'GET') {
      const job = model.allCheckRuns().find((r) => r.id === Number(log[1]))
      if (!job) return jsonAnswer(404, { message: `fake GitHub: no job ${log[1]}` })
      return {
        type: 'answer',
        status: 200,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        body: logStream(job.plan.log)
      }
    }
    const raw = /^\/_fake\/raw\/([0-9a-f]{40})$/.exec(path)
    if (raw?.[1] && method === 'GET') {
      const blob = model.hasGit() ? model.repo().blob(raw[1]) : undefined
      if (!blob) return jsonAnswer(404, { message: 'Not Found' })
      return {
        type: 'answer',
        status: 200,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        body: blob
      }
    }
    if (path === '/_fake/faults' && method === 'POST') {
      const parsed = parseBody(text)
      if (!parsed || !('json' in parsed))
        return jsonAnswer(400, { message: 'POST /_fake/faults needs a JSON FaultSpec' })
      model.state.faults.push(parsed.json as FaultSpec)
      return jsonAnswer(201, { faults: model.state.faults.length })
    }
    if (path === '/_fake/state' && method === 'GET') return jsonAnswer(200, model.state)
    return jsonAnswer(404, { message: `fake GitHub: no control endpoint ${method} ${path}` })
  }

  async function api(incoming: Incoming): Promise<Outgoing> {
    const { method, url, body: text } = incoming
    const body = parseBody(text)
    // GitHub Enterprise Server answers GraphQL at /api/graphql beside REST's /api/v3.
    const serverGraphql =
      prefix.endsWith('/v3') && url.pathname === `${prefix.slice(0, -3)}/graphql`
    const inPrefix =
      serverGraphql ||
      prefix === '' ||
      url.pathname === prefix ||
      url.pathname.startsWith(`${prefix}/`)
    const path = serverGraphql
      ? '/graphql'
      : inPrefix
        ? url.pathname.slice(prefix.length) || '/'
        : url.pathname
    const rec: RecordedRequest = {
      seq: requests.length + 1,
      at: model.now(),
      method,
      path,
      query: Object.fromEntries(
        [...new Set(url.searchParams.keys())].map((k) => {
          const all = url.searchParams.getAll(k)
          return [k, all.length === 1 ? (all[0] ?? '') : all]
        })
      ),
      headers: pickHeaders(incoming),
      body: body === undefined ? undefined : 'json' in body ? body.json : text,
      route: null,
      implemented: false,
      status: null,
      charged: false,
      openapi: { valid: false, errors: [] }
    }
    requests.push(rec)
    limits.requestsSent++

    const send = (
      reply: Reply,
      charge = reply.status !== 304 && rec.route !== 'GET /rate_limit'
    ): Outgoing => {
      if (charge) {
        limits.used++
        limits.pointsSpent++
        rec.charged = true
      }
      rec.status = reply.status
      return jsonAnswer(reply.status, reply.body, {
        ...rateLimitHeaders(),
        ...reply.headers,
        'x-github-request-id': `FAKE:${rec.seq}`
      })
    }
    if (!inPrefix) {
      rec.openapi = {
        valid: false,
        errors: [`${url.pathname} is outside the API prefix ${prefix}`]
      }
      return send(errorReply(404, 'Not Found'))
    }
    model.syncHeads()
    model.rollRateLimitWindow()
    // GraphQL is outside GitHub's REST description: graphql.ts checks and answers it.
    const graphql =
      method === 'POST' && path === '/graphql' ? graphqlRequest(model, rec.body) : undefined
    const match = graphql
      ? {
          route: GRAPHQL_ROUTE,
          valid: graphql.errors.length === 0,
          errors: graphql.errors,
          params: {} as Record<string, string>
        }
      : validator.validate({ method, path, query: url.searchParams, body })
    rec.route = match.route
    rec.openapi = { valid: match.valid, errors: match.errors }
    const handler = graphql ? () => graphql.run() : handlerFor(match.route)
    rec.implemented = graphql ? graphql.implemented : handler !== undefined
    const { owner, repo } = match.params
    const wrongRepo =
      (owner !== undefined && owner.toLowerCase() !== model.state.owner.toLowerCase()) ||
      (repo !== undefined && repo.toLowerCase() !== model.state.repo.toLowerCase())
    const ctx = {
      model,
      params: match.params,
      query: url.searchParams,
      body: rec.body,
      url,
      origin
    }
    const run = (): Reply => {
      if (!handler || wrongRepo) return errorReply(404, 'Not Found')
      try {
        return handler(ctx)
      } catch (error) {
        rec.error = error instanceof Error ? (error.stack ?? error.message) : String(error)
        return errorReply(500, `fake GitHub failed: ${rec.error.split('\n')[0]}`)
      }
    }

    const fault = takeFault(model.state.faults, { method, path, route: match.route })
    let applied: Reply | undefined
    if (fault) {
      rec.fault = fault.kind
      if (fault.applyFirst) applied = run()
      const answer = faultAnswer(fault, { method, path, route: match.route }, model.now())
      if (answer.type === 'drop') return { type: 'drop' }
      if (answer.type === 'delay') await new Promise((resolve) => setTimeout(resolve, answer.ms))
      if (answer.type === 'reply') return send(answer.reply)
      if (answer.type === 'exhaust') {
        limits.used = limits.limit
        limits.resetAt = answer.resetAt
      }
      if (answer.type === 'raw') {
        limits.used++
        limits.pointsSpent++
        rec.charged = true
        rec.status = answer.status
        return {
          type: 'answer',
          status: answer.status,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            ...rateLimitHeaders(),
            'x-github-request-id': `FAKE:${rec.seq}`
          },
          body: answer.text
        }
      }
    }
    if (limits.used >= limits.limit && match.route !== 'GET /rate_limit') {
      return send(errorReply(403, 'API rate limit exceeded for this token.'), false)
    }
    let reply = applied ?? run()
    if (method === 'GET' && reply.status === 200) {
      const etag = etagOf(JSON.stringify(reply.body))
      if (etagMatches(rec.headers['if-none-match'], etag)) {
        limits.notModified++
        return send({ status: 304, headers: { etag, ...reply.headers } })
      }
      reply = { ...reply, headers: { ...reply.headers, etag } }
    }
    return send(reply)
  }

  const gitHttp = {
    owner: model.state.owner,
    repo: model.state.repo,
    gitDir: () => model.gitDir(),
    now: () => model.now(),
    requests: gitRequests,
    authRequired: scenario.gitAuth === 'required'
  }

  /** The router both transports share: control endpoints under /_fake/, else the API. */
  function exchange(incoming: Incoming): Promise<Outgoing> {
    return incoming.url.pathname.startsWith('/_fake/') ? control(incoming) : api(incoming)
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', origin)
    if (GIT_HTTP_PATH.test(url.pathname)) return serveGitHttp(req, res, url, gitHttp)
    const work = readBody(req).then(async (body) => {
      const headers: Incoming['headers'] = {}
      for (const [name, value] of Object.entries(req.headers))
        headers[name] = Array.isArray(value) ? value.join(', ') : value
      const out = await exchange({
        method: (req.method ?? 'GET').toUpperCase(),
        url,
        headers,
        body
      })
      if (out.type === 'drop') return void req.socket.destroy()
      res.writeHead(out.status, out.headers)
      if (!(out.body instanceof Readable)) return void res.end(out.body)
      out.body.on('error', (error) => res.destroy(error))
      out.body.pipe(res)
    })
    work.catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error)
      if (!res.headersSent) {
        const out = jsonAnswer(500, { message: `fake GitHub failed: ${message}` })
        res.writeHead(out.status, out.headers).end(out.body)
      } else res.destroy()
    })
  })

  /**
   * The in-memory transport: a `fetch` that hands the request to the router and builds the
   * `Response` from its answer, following redirects like fetch does. A dropped connection
   * throws what undici throws. Git over HTTP is not served here (git talks to the server).
   */
  const fetchInMemory = async (
    input: string | URL | Request,
    init?: RequestInit,
    redirects = 0
  ): Promise<Response> => {
    const request = new Request(input, init)
    const url = new URL(request.url)
    if (url.origin !== origin || GIT_HTTP_PATH.test(url.pathname))
      throw new TypeError(`fake GitHub fetch: ${request.url} is not an API URL of ${origin}`)
    const headers: Incoming['headers'] = {}
    request.headers.forEach((value, name) => {
      headers[name] = value
    })
    const body = request.body ? await request.text() : ''
    const out = await exchange({ method: request.method.toUpperCase(), url, headers, body })
    if (out.type === 'drop') throw droppedConnection()
    const location = out.headers.location
    if (REDIRECTS.has(out.status) && location && request.redirect === 'follow') {
      if (redirects >= 20)
        throw new TypeError('fetch failed', { cause: new Error('redirect count exceeded') })
      return fetchInMemory(
        new URL(location, url),
        { headers: request.headers, signal: request.signal },
        redirects + 1
      )
    }
    const nullBody = out.status === 204 || out.status === 304 || request.method === 'HEAD'
    const response = new Response(
      nullBody
        ? null
        : out.body instanceof Readable
          ? (Readable.toWeb(out.body) as ReadableStream<Uint8Array>)
          : out.body,
      { status: out.status, headers: out.headers }
    )
    Object.defineProperty(response, 'url', { value: url.href })
    return response
  }

  const sleep = options.realTime
    ? (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)))
    : (ms: number) => {
        if (!Number.isFinite(ms))
          return Promise.reject(new Error(`clock.sleep(${ms}): not a number of ms`))
        model.advance(ms)
        // let I/O waiting on the server run before the sleeper goes on
        return new Promise<void>((resolve) => setImmediate(resolve))
      }

  const fake: FakeGitHub = {
    apiUrl,
    serverUrl: origin,
    gitUrl: `${origin}/${model.state.owner}/${model.state.repo}.git`,
    get gitDir() {
      return model.gitDir()
    },
    clock: { now: () => model.now(), sleep },
    fetch: (input, init) => fetchInMemory(input, init),
    state: model.state,
    requests,
    invalidRequests: () => requests.filter((r) => !r.openapi.valid),
    unimplementedRequests: () => requests.filter((r) => !r.implemented),
    writeRequests: () => requests.filter(isWriteRequest),
    gitRequests,
    rateLimit: limits,
    now: () => model.now(),
    advance: (ms) => model.advance(ms),
    setNow: (ms) => model.setNow(ms),
    addFault: (fault) => void model.state.faults.push(fault),
    clearFaults: () => void model.state.faults.splice(0),
    setBranch: (name, sha) => model.setBranch(name, sha),
    headsOf: (branch) => {
      model.syncHeads()
      return model.headsOf(branch)
    },
    checkRunsFor: (sha) => model.checkRunsFor(sha),
    commit: (branch, files, message) => model.commitFiles(branch, files, message),
    memoryPush: (branch, files, message) => model.memoryPush(branch, files, message),
    readFile: (ref, path) => {
      model.syncHeads()
      const sha = model.resolveRef(ref, false)
      const entry = sha && model.gitCommit(sha) ? model.repo().path(sha, path) : undefined
      return entry?.type === 'file' ? entry.content.toString('utf8') : undefined
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => {
          model.dispose()
          if (error) reject(error)
          else resolve()
        })
      })
  }
  const { onDispatch } = options
  if (onDispatch) model.onDispatch = (dispatch) => onDispatch(dispatch, fake)
  return fake
}
