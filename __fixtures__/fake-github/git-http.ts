/**
 * Git over HTTP, read-only: `git fetch` and `git clone` of `{serverUrl}/{owner}/{repo}(.git)`
 * are answered by `git http-backend` run as a CGI program against the fake's bare repository
 * (smart protocol v0 and v2, shallow fetches, gzip-encoded request bodies). Like on GitHub,
 * this traffic costs no API rate limit and is not an API request: it is recorded apart.
 */
import { spawn } from 'node:child_process'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { GitRequest } from './types.js'

/** `/{owner}/{repo}[.git]/info/refs` and `/{owner}/{repo}[.git]/git-upload-pack` (and push). */
export const GIT_HTTP_PATH =
  /^\/([^/]+)\/([^/]+?)(?:\.git)?\/(info\/refs|git-upload-pack|git-receive-pack)$/

export interface GitHttpContext {
  owner: string
  repo: string
  /** The bare repository (created on demand). */
  gitDir: () => string
  now: () => number
  requests: GitRequest[]
  /** Answer 401 to requests without Basic credentials. */
  authRequired: boolean
}

/** The user of `Authorization: Basic base64(user:password)` with a password, else undefined. */
function basicUser(header: string | undefined): string | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(header ?? '')
  if (!m?.[1]) return undefined
  const decoded = Buffer.from(m[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon > 0 && colon < decoded.length - 1 ? decoded.slice(0, colon) : undefined
}

/** Where the CGI headers end: the index of the blank line and the length of its separator. */
function headerEnd(buffer: Buffer): { at: number; length: number } | undefined {
  const crlf = buffer.indexOf('\r\n\r\n')
  const lf = buffer.indexOf('\n\n')
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { at: crlf, length: 4 }
  if (lf >= 0) return { at: lf, length: 2 }
  return undefined
}

export function serveGitHttp(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: GitHttpContext
): void {
  const match = GIT_HTTP_PATH.exec(url.pathname)
  const method = (req.method ?? 'GET').toUpperCase()
  const endpoint = match?.[3] ?? ''
  const service = endpoint === 'info/refs' ? url.searchParams.get('service') : endpoint
  const protocol = req.headers['git-protocol']
  const rec: GitRequest = {
    seq: ctx.requests.length + 1,
    at: ctx.now(),
    method,
    path: url.pathname,
    service,
    protocol: typeof protocol === 'string' ? protocol : null,
    authorization: req.headers.authorization !== undefined,
    status: null
  }
  ctx.requests.push(rec)
  const answer = (status: number, text: string, headers: Record<string, string> = {}): void => {
    rec.status = status
    req.resume() // drain an unread body
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers })
    res.end(text)
  }

  const sameRepo =
    match?.[1]?.toLowerCase() === ctx.owner.toLowerCase() &&
    match[2]?.toLowerCase() === ctx.repo.toLowerCase()
  if (!sameRepo) return answer(404, 'Repository not found.\n')
  const user = basicUser(req.headers.authorization)
  if (ctx.authRequired && user === undefined) {
    return answer(
      401,
      'Authentication failed: send Authorization: Basic (x-access-token:<token>)\n',
      {
        'www-authenticate': 'Basic realm="GitHub"'
      }
    )
  }
  if (service === 'git-receive-pack') {
    return answer(403, "fake GitHub: push over HTTP is not served; push to the fake's gitDir\n")
  }

  const contentLength = req.headers['content-length']
  const child = spawn('git', ['http-backend'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_PROJECT_ROOT: ctx.gitDir(),
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: `/${endpoint}`,
      QUERY_STRING: url.search.replace(/^\?/, ''),
      REQUEST_METHOD: method,
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      // without a length http-backend reads the body to its end
      ...(contentLength ? { CONTENT_LENGTH: contentLength } : {}),
      // http-backend inflates gzip-encoded bodies itself (git sends them for big negotiations)
      HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
      HTTP_GIT_PROTOCOL: rec.protocol ?? '',
      REMOTE_USER: user ?? '',
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1'
    }
  })
  const stderr: Buffer[] = []
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
  child.on('error', (error) => {
    if (!res.headersSent) answer(500, `fake GitHub: git http-backend failed: ${error.message}\n`)
    else res.destroy(error)
  })
  req.pipe(child.stdin)
  child.stdin.on('error', () => undefined) // the backend may stop reading early
  req.on('aborted', () => child.kill())

  let head: Buffer = Buffer.alloc(0)
  let streaming = false
  child.stdout.on('data', (chunk: Buffer) => {
    if (streaming) {
      if (!res.write(chunk)) {
        child.stdout.pause()
        res.once('drain', () => child.stdout.resume())
      }
      return
    }
    head = Buffer.concat([head, chunk])
    const end = headerEnd(head)
    if (!end) return
    const headers: Record<string, string> = {}
    let status = 200
    for (const line of head.subarray(0, end.at).toString('latin1').split(/\r?\n/)) {
      const colon = line.indexOf(':')
      if (colon <= 0) continue
      const name = line.slice(0, colon).trim().toLowerCase()
      const value = line.slice(colon + 1).trim()
      if (name === 'status') status = Number.parseInt(value, 10) || 500
      else headers[name] = value
    }
    rec.status = status
    res.writeHead(status, headers)
    streaming = true
    res.write(head.subarray(end.at + end.length))
  })
  child.on('close', (code) => {
    if (code !== 0 || (rec.status ?? 0) >= 400) {
      rec.error = Buffer.concat(stderr).toString('utf8').trim() || `git http-backend exited ${code}`
    }
    if (!streaming && !res.headersSent) {
      return answer(502, `fake GitHub: git http-backend gave no answer: ${rec.error ?? ''}\n`)
    }
    res.end()
  })
}
