/**
 * The REST routes the fake serves, keyed by OpenAPI route (`METHOD /template`). Each handler
 * reads the model and answers a JSON value; the server adds ETags, rate-limit headers and
 * faults around it.
 */
import { createHash } from 'node:crypto'
import { readGitPath } from './git.js'
import { ACTIONS_APP, blobSha, fakeSha, type Model, type StatusView } from './model.js'
import { combinedState } from './timeline.js'
import type { CheckRunView, IssueRecord, PullRecord } from './types.js'

export interface HandlerContext {
  model: Model
  params: Record<string, string>
  query: URLSearchParams
  body: unknown
  /** Absolute URL of the request (for Link headers). */
  url: URL
  /** Server origin, for redirects to /_fake/. */
  origin: string
}

export interface Reply {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

export type Handler = (ctx: HandlerContext) => Reply

const DOCS = 'https://docs.github.com/rest'

export function errorReply(
  status: number,
  message: string,
  extra: Record<string, unknown> = {}
): Reply {
  return { status, body: { message, documentation_url: DOCS, status: String(status), ...extra } }
}

const notFound = (): Reply => errorReply(404, 'Not Found')

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

function record(body: unknown): Record<string, unknown> {
  return body !== null && typeof body === 'object' && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {}
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

// --- pagination -------------------------------------------------------------------------------

/** Slices `items` like GitHub (per_page default 30, max 100) and builds the Link header. */
function paginate<T>(
  ctx: HandlerContext,
  items: T[]
): { page: T[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Math.max(1, Number(ctx.query.get('per_page') ?? 30) || 30))
  const page = Math.max(1, Number(ctx.query.get('page') ?? 1) || 1)
  const last = Math.max(1, Math.ceil(items.length / perPage))
  const link = (n: number, rel: string): string => {
    const url = new URL(ctx.url)
    url.searchParams.set('page', String(n))
    if (ctx.query.has('per_page')) url.searchParams.set('per_page', String(perPage))
    return `<${url.toString()}>; rel="${rel}"`
  }
  const links: string[] = []
  if (page > 1) links.push(link(page - 1, 'prev'))
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'))
  if (page > 1) links.push(link(1, 'first'))
  return {
    page: items.slice((page - 1) * perPage, page * perPage),
    headers: links.length > 0 ? { link: links.join(', ') } : {}
  }
}

// --- JSON shapes ------------------------------------------------------------------------------

function apiBase(ctx: HandlerContext): string {
  const { owner, repo } = ctx.model.state
  return `${ctx.model.urls.apiUrl}/repos/${owner}/${repo}`
}

function htmlBase(ctx: HandlerContext): string {
  const { owner, repo } = ctx.model.state
  return `${ctx.model.urls.serverUrl}/${owner}/${repo}`
}

function userJson(ctx: HandlerContext, login: string): Record<string, unknown> {
  const bot = login.endsWith('[bot]')
  return {
    login,
    id: parseInt(fakeSha(`user:${login}`).slice(0, 7), 16),
    node_id: `U_${login}`,
    type: bot ? 'Bot' : 'User',
    site_admin: false,
    html_url: `${ctx.model.urls.serverUrl}/${bot ? 'apps/' + login.replace('[bot]', '') : login}`,
    url: `${ctx.model.urls.apiUrl}/users/${encodeURIComponent(login)}`
  }
}

function repoJson(ctx: HandlerContext): Record<string, unknown> {
  const { owner, repo, defaultBranch } = ctx.model.state
  return {
    id: 100_000_001,
    node_id: 'R_fake',
    name: repo,
    full_name: `${owner}/${repo}`,
    owner: { ...userJson(ctx, owner), type: 'Organization' },
    private: false,
    fork: false,
    html_url: htmlBase(ctx),
    url: apiBase(ctx),
    default_branch: defaultBranch,
    visibility: 'public',
    archived: false,
    disabled: false,
    permissions: { admin: false, maintain: false, push: true, triage: true, pull: true }
  }
}

function appJson(slug: string): Record<string, unknown> {
  const id =
    slug === ACTIONS_APP
      ? 15368
      : 100_000 + (parseInt(fakeSha(`app:${slug}`).slice(0, 6), 16) % 900_000)
  return {
    id,
    slug,
    node_id: `A_${slug}`,
    name: slug === ACTIONS_APP ? 'GitHub Actions' : slug,
    owner: { login: slug === ACTIONS_APP ? 'github' : slug, id: id + 1, type: 'Organization' },
    description: '',
    external_url: '',
    html_url: '',
    created_at: '2018-07-30T09:30:17Z',
    updated_at: '2024-01-01T00:00:00Z',
    permissions: {},
    events: []
  }
}

function appId(slug: string): number {
  return appJson(slug).id as number
}

function checkRunJson(ctx: HandlerContext, run: CheckRunView): Record<string, unknown> {
  const done = run.status === 'completed'
  const output = run.plan.output ?? {}
  const annotations = run.plan.annotations ?? []
  const url = `${apiBase(ctx)}/check-runs/${run.id}`
  return {
    id: run.id,
    head_sha: run.sha,
    node_id: `CR_${run.id}`,
    external_id: '',
    url,
    html_url: run.htmlUrl,
    details_url: run.detailsUrl,
    status: run.status,
    conclusion: run.conclusion,
    started_at: iso(run.startedAt),
    completed_at: iso(run.completedAt),
    output: {
      title: done ? (output.title ?? null) : null,
      summary: done ? (output.summary ?? null) : null,
      text: done ? (output.text ?? null) : null,
      annotations_count: done ? annotations.length : 0,
      annotations_url: `${url}/annotations`
    },
    name: run.name,
    check_suite: { id: run.checkSuiteId },
    app: appJson(run.app),
    pull_requests: []
  }
}

function branchOfSha(ctx: HandlerContext, sha: string): string | null {
  for (const branch of Object.keys(ctx.model.state.heads)) {
    if (ctx.model.headsOf(branch).includes(sha)) return branch
  }
  return null
}

function jobJson(ctx: HandlerContext, run: CheckRunView): Record<string, unknown> {
  return {
    id: run.id,
    run_id: run.runId,
    run_url: `${apiBase(ctx)}/actions/runs/${run.runId}`,
    run_attempt: run.runAttempt,
    node_id: `J_${run.id}`,
    head_sha: run.sha,
    head_branch: branchOfSha(ctx, run.sha),
    url: `${apiBase(ctx)}/actions/jobs/${run.id}`,
    html_url: run.htmlUrl,
    status: run.status,
    conclusion: run.conclusion,
    created_at: iso(run.startedAt),
    started_at: iso(run.startedAt),
    completed_at: iso(run.completedAt),
    name: run.name,
    steps: [],
    check_run_url: `${apiBase(ctx)}/check-runs/${run.id}`,
    labels: ['ubuntu-latest'],
    runner_id: null,
    runner_name: null,
    runner_group_id: null,
    runner_group_name: null,
    workflow_name: run.workflow
  }
}

/** The latest attempt of each job name. */
function latestJobs(jobs: CheckRunView[]): CheckRunView[] {
  const byName = new Map<string, CheckRunView>()
  for (const job of jobs) {
    const seen = byName.get(job.name)
    if (
      !seen ||
      job.runAttempt > seen.runAttempt ||
      (job.runAttempt === seen.runAttempt && job.id > seen.id)
    ) {
      byName.set(job.name, job)
    }
  }
  return [...byName.values()]
}

function runStatus(jobs: CheckRunView[]): { status: string; conclusion: string | null } {
  if (jobs.some((j) => j.status === 'in_progress'))
    return { status: 'in_progress', conclusion: null }
  if (jobs.some((j) => j.status === 'queued')) return { status: 'queued', conclusion: null }
  const conclusions = jobs.map((j) => j.conclusion)
  for (const bad of [
    'failure',
    'timed_out',
    'startup_failure',
    'cancelled',
    'action_required'
  ] as const) {
    if (conclusions.includes(bad)) return { status: 'completed', conclusion: bad }
  }
  return { status: 'completed', conclusion: 'success' }
}

function labelJson(ctx: HandlerContext, name: string): Record<string, unknown> {
  return {
    id: parseInt(fakeSha(`label:${name}`).slice(0, 8), 16),
    node_id: `LA_${name}`,
    url: `${apiBase(ctx)}/labels/${encodeURIComponent(name)}`,
    name,
    color: 'ededed',
    default: false,
    description: null
  }
}

function issueJson(ctx: HandlerContext, issue: IssueRecord): Record<string, unknown> {
  const url = `${apiBase(ctx)}/issues/${issue.number}`
  return {
    id: 500_000_000 + issue.number,
    node_id: `I_${issue.number}`,
    url,
    html_url: `${htmlBase(ctx)}/${issue.pull ? 'pull' : 'issues'}/${issue.number}`,
    comments_url: `${url}/comments`,
    number: issue.number,
    state: issue.state,
    title: issue.title,
    body: issue.body,
    user: userJson(ctx, ctx.model.state.actor),
    labels: issue.labels.map((l) => labelJson(ctx, l)),
    locked: false,
    comments: ctx.model.state.comments.filter((c) => c.issue === issue.number).length,
    created_at: iso(issue.createdAt),
    updated_at: iso(issue.updatedAt),
    closed_at: null,
    author_association: 'MEMBER',
    ...(issue.pull ? { pull_request: { url: `${apiBase(ctx)}/pulls/${issue.pull}` } } : {})
  }
}

function pullJson(ctx: HandlerContext, pull: PullRecord): Record<string, unknown> {
  const { owner, branches } = ctx.model.state
  const headSha = branches[pull.head] ?? null
  if (headSha) ctx.model.markSeen(headSha)
  const side = (ref: string, sha: string | null): Record<string, unknown> => ({
    label: `${owner}:${ref}`,
    ref,
    sha,
    user: userJson(ctx, owner),
    repo: repoJson(ctx)
  })
  return {
    url: `${apiBase(ctx)}/pulls/${pull.number}`,
    id: 600_000_000 + pull.number,
    node_id: `PR_${pull.number}`,
    html_url: `${htmlBase(ctx)}/pull/${pull.number}`,
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    body: pull.body,
    user: userJson(ctx, ctx.model.state.actor),
    draft: pull.draft,
    created_at: iso(pull.createdAt),
    updated_at: iso(pull.updatedAt),
    closed_at: null,
    merged_at: null,
    head: side(pull.head, headSha),
    base: side(pull.base, branches[pull.base] ?? null),
    merged: false,
    mergeable: null,
    author_association: 'MEMBER'
  }
}

function commentJson(
  ctx: HandlerContext,
  c: { id: number; issue: number; body: string; user: string; createdAt: number; updatedAt: number }
): Record<string, unknown> {
  return {
    id: c.id,
    node_id: `IC_${c.id}`,
    url: `${apiBase(ctx)}/issues/comments/${c.id}`,
    html_url: `${htmlBase(ctx)}/issues/${c.issue}#issuecomment-${c.id}`,
    issue_url: `${apiBase(ctx)}/issues/${c.issue}`,
    body: c.body,
    user: userJson(ctx, c.user),
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
    author_association: 'MEMBER'
  }
}

function statusJson(ctx: HandlerContext, s: StatusView): Record<string, unknown> {
  return {
    id: s.id,
    node_id: `SC_${s.id}`,
    url: `${apiBase(ctx)}/statuses/${s.sha}`,
    state: s.state,
    description: s.description,
    target_url: s.targetUrl,
    context: s.context,
    avatar_url: null,
    created_at: iso(s.createdAt),
    updated_at: iso(s.createdAt),
    creator: userJson(ctx, ctx.model.state.actor)
  }
}

function commitJson(ctx: HandlerContext, sha: string): Record<string, unknown> {
  const commit = ctx.model.state.commits[sha]
  const date = iso(ctx.model.state.shaSeenAt[sha] ?? ctx.model.now())
  const who = { name: ctx.model.state.actor, email: 'actor@fake.invalid', date }
  return {
    sha,
    node_id: `C_${sha}`,
    url: `${apiBase(ctx)}/commits/${sha}`,
    html_url: `${htmlBase(ctx)}/commit/${sha}`,
    commit: {
      message: commit?.message ?? '',
      author: who,
      committer: who,
      tree: {
        sha: fakeSha(`tree:${sha}`),
        url: `${apiBase(ctx)}/git/trees/${fakeSha(`tree:${sha}`)}`
      }
    },
    parents: (commit?.parents ?? []).map((p) => ({ sha: p, url: `${apiBase(ctx)}/commits/${p}` }))
  }
}

// --- handlers ---------------------------------------------------------------------------------

function findIssue(ctx: HandlerContext): IssueRecord | undefined {
  const n = Number(ctx.params.issue_number)
  return ctx.model.state.issues.find((i) => i.number === n)
}

function findRun(ctx: HandlerContext, id: number): CheckRunView | undefined {
  return ctx.model.allCheckRuns().find((r) => r.id === id)
}

function refOrError(ctx: HandlerContext, ref: string): string | Reply {
  const sha = ctx.model.resolveRef(ref)
  return sha ?? errorReply(422, `No commit found for SHA: ${ref}`)
}

function labelNames(body: unknown): string[] {
  const raw = Array.isArray(body) ? body : record(body).labels
  if (!Array.isArray(raw)) return []
  return raw.flatMap((l) =>
    typeof l === 'string' ? [l] : str(record(l).name) ? [String(record(l).name)] : []
  )
}

function contentsFile(
  ctx: HandlerContext,
  path: string,
  ref: string,
  sha: string,
  content: string | undefined,
  size: number
) {
  const name = path.split('/').pop() ?? path
  const base = `${apiBase(ctx)}/contents/${path}?ref=${encodeURIComponent(ref)}`
  return {
    type: 'file',
    ...(content === undefined
      ? {}
      : {
          encoding: 'base64',
          content:
            (
              Buffer.from(content, 'utf8')
                .toString('base64')
                .match(/.{1,60}/g) ?? []
            ).join('\n') + '\n'
        }),
    size,
    name,
    path,
    sha,
    url: base,
    git_url: `${apiBase(ctx)}/git/blobs/${sha}`,
    html_url: `${htmlBase(ctx)}/blob/${ref}/${path}`,
    download_url: `${ctx.origin}/_fake/raw/${sha}`,
    _links: {
      self: base,
      git: `${apiBase(ctx)}/git/blobs/${sha}`,
      html: `${htmlBase(ctx)}/blob/${ref}/${path}`
    }
  }
}

function contentsDirEntry(
  ctx: HandlerContext,
  path: string,
  ref: string,
  type: 'file' | 'dir',
  sha: string,
  size: number
) {
  const entry = contentsFile(ctx, path, ref, sha, undefined, size)
  return { ...entry, type, ...(type === 'dir' ? { download_url: null } : {}) }
}

const routes: Record<string, Handler> = {
  'GET /rate_limit': (ctx) => {
    const { limit, used, resetAt } = ctx.model.rateLimit
    const core = {
      limit,
      used,
      remaining: Math.max(0, limit - used),
      reset: Math.floor(resetAt / 1000)
    }
    const idle = { limit: 30, used: 0, remaining: 30, reset: Math.floor(resetAt / 1000) }
    return {
      status: 200,
      body: {
        resources: { core, search: idle, graphql: { ...core, used: 0, remaining: limit } },
        rate: core
      }
    }
  },

  'GET /repos/{owner}/{repo}': (ctx) => ({ status: 200, body: repoJson(ctx) }),

  'GET /repos/{owner}/{repo}/branches/{branch}': (ctx) => {
    const sha = ctx.model.state.branches[ctx.params.branch ?? '']
    if (!sha) return errorReply(404, 'Branch not found')
    ctx.model.markSeen(sha)
    return {
      status: 200,
      body: {
        name: ctx.params.branch,
        commit: commitJson(ctx, sha),
        protected: false,
        _links: {
          self: `${apiBase(ctx)}/branches/${ctx.params.branch}`,
          html: `${htmlBase(ctx)}/tree/${ctx.params.branch}`
        }
      }
    }
  },

  'GET /repos/{owner}/{repo}/commits/{ref}': (ctx) => {
    const sha = refOrError(ctx, ctx.params.ref ?? '')
    return typeof sha === 'string' ? { status: 200, body: commitJson(ctx, sha) } : sha
  },

  'GET /repos/{owner}/{repo}/git/ref/{ref}': (ctx) => {
    const ref = ctx.params.ref ?? ''
    const branch = ref.startsWith('heads/') ? ref.slice('heads/'.length) : undefined
    const sha = branch === undefined ? undefined : ctx.model.state.branches[branch]
    if (!sha) return notFound()
    ctx.model.markSeen(sha)
    return { status: 200, body: refJson(ctx, `refs/${ref}`, sha) }
  },

  'POST /repos/{owner}/{repo}/git/refs': (ctx) => {
    const body = record(ctx.body)
    const ref = str(body.ref) ?? ''
    const sha = str(body.sha) ?? ''
    if (!/^refs\/heads\/.+/.test(ref)) {
      return errorReply(
        422,
        `Reference name "${ref}" is not supported by the fake (use refs/heads/<branch>)`
      )
    }
    if (!/^[0-9a-f]{40}$/.test(sha)) return errorReply(422, 'Object does not exist')
    const branch = ref.slice('refs/heads/'.length)
    if (ctx.model.state.branches[branch]) return errorReply(422, 'Reference already exists')
    ctx.model.setBranch(branch, sha)
    return { status: 201, body: refJson(ctx, ref, sha) }
  },

  'PATCH /repos/{owner}/{repo}/git/refs/{ref}': (ctx) => {
    const ref = ctx.params.ref ?? ''
    const branch = ref.replace(/^refs\//, '').replace(/^heads\//, '')
    const sha = str(record(ctx.body).sha) ?? ''
    if (!ctx.model.state.branches[branch]) return errorReply(422, 'Reference does not exist')
    if (!/^[0-9a-f]{40}$/.test(sha)) return errorReply(422, 'Object does not exist')
    ctx.model.setBranch(branch, sha)
    return { status: 200, body: refJson(ctx, `refs/heads/${branch}`, sha) }
  },

  'DELETE /repos/{owner}/{repo}/git/refs/{ref}': (ctx) => {
    const branch = (ctx.params.ref ?? '').replace(/^refs\//, '').replace(/^heads\//, '')
    if (!ctx.model.state.branches[branch]) return errorReply(422, 'Reference does not exist')
    delete ctx.model.state.branches[branch]
    return { status: 204 }
  },

  'GET /repos/{owner}/{repo}/commits/{ref}/check-runs': (ctx) => {
    const sha = refOrError(ctx, ctx.params.ref ?? '')
    if (typeof sha !== 'string') return sha
    let runs = ctx.model.checkRunsFor(sha)
    if ((ctx.query.get('filter') ?? 'latest') === 'latest') {
      const latest = new Map<string, CheckRunView>()
      for (const run of runs) latest.set(`${run.app}\0${run.name}`, run) // runs are oldest first
      runs = runs.filter((r) => latest.get(`${r.app}\0${r.name}`) === r)
    }
    const name = ctx.query.get('check_name')
    const status = ctx.query.get('status')
    const app = ctx.query.get('app_id')
    runs = runs.filter(
      (r) =>
        (name === null || r.name === name) &&
        (status === null || r.status === status) &&
        (app === null || appId(r.app) === Number(app))
    )
    const { page, headers } = paginate(ctx, runs)
    return {
      status: 200,
      headers,
      body: { total_count: runs.length, check_runs: page.map((r) => checkRunJson(ctx, r)) }
    }
  },

  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}': (ctx) => {
    const run = findRun(ctx, Number(ctx.params.check_run_id))
    return run ? { status: 200, body: checkRunJson(ctx, run) } : notFound()
  },

  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations': (ctx) => {
    const run = findRun(ctx, Number(ctx.params.check_run_id))
    if (!run) return notFound()
    const annotations = run.status === 'completed' ? (run.plan.annotations ?? []) : []
    const { page, headers } = paginate(ctx, annotations)
    return {
      status: 200,
      headers,
      body: page.map((a) => ({
        path: a.path,
        blob_href: `${htmlBase(ctx)}/blob/${run.sha}/${a.path}`,
        start_line: a.start_line,
        end_line: a.end_line,
        start_column: a.start_column ?? null,
        end_column: a.end_column ?? null,
        annotation_level: a.annotation_level,
        title: a.title ?? null,
        message: a.message,
        raw_details: a.raw_details ?? null
      }))
    }
  },

  'GET /repos/{owner}/{repo}/actions/runs/{run_id}': (ctx) => {
    const id = Number(ctx.params.run_id)
    const jobs = ctx.model.allCheckRuns().filter((r) => r.runId === id)
    const first = jobs[0]
    if (!first) return notFound()
    const latest = latestJobs(jobs)
    const attempt = Math.max(...jobs.map((j) => j.runAttempt))
    const base = `${apiBase(ctx)}/actions/runs/${id}`
    return {
      status: 200,
      body: {
        id,
        name: first.workflow,
        node_id: `WFR_${id}`,
        head_branch: branchOfSha(ctx, first.sha),
        head_sha: first.sha,
        path: '.github/workflows/ci.yml',
        display_title: first.workflow,
        run_number: id % 100_000,
        event: 'push',
        ...runStatus(latest),
        workflow_id: 1_000_001,
        check_suite_id: first.checkSuiteId,
        check_suite_node_id: `CS_${first.checkSuiteId}`,
        url: base,
        html_url: `${htmlBase(ctx)}/actions/runs/${id}`,
        created_at: iso(Math.min(...jobs.map((j) => j.startedAt))),
        updated_at: iso(Math.max(...jobs.map((j) => j.completedAt ?? j.startedAt))),
        run_attempt: attempt,
        run_started_at: iso(Math.min(...latest.map((j) => j.startedAt))),
        jobs_url: `${base}/jobs`,
        logs_url: `${base}/logs`,
        check_suite_url: `${apiBase(ctx)}/check-suites/${first.checkSuiteId}`,
        repository: repoJson(ctx),
        head_repository: repoJson(ctx)
      }
    }
  },

  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs': (ctx) => {
    const id = Number(ctx.params.run_id)
    let jobs = ctx.model.allCheckRuns().filter((r) => r.runId === id)
    if ((ctx.query.get('filter') ?? 'latest') === 'latest') jobs = latestJobs(jobs)
    jobs.sort((a, b) => a.id - b.id)
    const { page, headers } = paginate(ctx, jobs)
    return {
      status: 200,
      headers,
      body: { total_count: jobs.length, jobs: page.map((j) => jobJson(ctx, j)) }
    }
  },

  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}': (ctx) => {
    const job = findRun(ctx, Number(ctx.params.job_id))
    return job && job.runId !== null ? { status: 200, body: jobJson(ctx, job) } : notFound()
  },

  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs': (ctx) => {
    const job = findRun(ctx, Number(ctx.params.job_id))
    if (!job || job.runId === null || job.status !== 'completed') return notFound()
    if (job.plan.logExpired)
      return errorReply(job.plan.logExpired, job.plan.logExpired === 410 ? 'Gone' : 'Not Found')
    return { status: 302, headers: { location: `${ctx.origin}/_fake/logs/${job.id}` } }
  },

  'GET /repos/{owner}/{repo}/commits/{ref}/status': (ctx) => {
    const sha = refOrError(ctx, ctx.params.ref ?? '')
    if (typeof sha !== 'string') return sha
    const latest = new Map<string, StatusView>()
    for (const s of ctx.model.statusesFor(sha)) if (!latest.has(s.context)) latest.set(s.context, s)
    const statuses = [...latest.values()].sort((a, b) => a.context.localeCompare(b.context))
    const { page, headers } = paginate(ctx, statuses)
    return {
      status: 200,
      headers,
      body: {
        state: combinedState(statuses.map((s) => s.state)),
        statuses: page.map((s) => statusJson(ctx, s)),
        sha,
        total_count: statuses.length,
        repository: repoJson(ctx),
        commit_url: `${apiBase(ctx)}/commits/${sha}`,
        url: `${apiBase(ctx)}/commits/${sha}/status`
      }
    }
  },

  'GET /repos/{owner}/{repo}/commits/{ref}/statuses': (ctx) => {
    const sha = refOrError(ctx, ctx.params.ref ?? '')
    if (typeof sha !== 'string') return sha
    const { page, headers } = paginate(ctx, ctx.model.statusesFor(sha))
    return { status: 200, headers, body: page.map((s) => statusJson(ctx, s)) }
  },

  'POST /repos/{owner}/{repo}/statuses/{sha}': (ctx) => {
    const body = record(ctx.body)
    const sha = ctx.params.sha ?? ''
    const created = {
      sha,
      context: str(body.context) ?? 'default',
      state: (str(body.state) ?? 'pending') as 'pending',
      description: str(body.description) ?? null,
      targetUrl: str(body.target_url) ?? null,
      createdAt: ctx.model.now()
    }
    ctx.model.markSeen(sha)
    ctx.model.state.createdStatuses.push(created)
    const view = ctx.model
      .statusesFor(sha)
      .find((s) => s.createdAt === created.createdAt && s.context === created.context)
    return { status: 201, body: view ? statusJson(ctx, view) : {} }
  },

  'GET /repos/{owner}/{repo}/pulls': (ctx) => {
    const state = ctx.query.get('state') ?? 'open'
    const head = ctx.query.get('head')
    const base = ctx.query.get('base')
    const [headOwner, headBranch] = head?.includes(':')
      ? head.split(/:(.*)/s)
      : [ctx.model.state.owner, head]
    const pulls = ctx.model.state.pulls
      .filter(
        (p) =>
          (state === 'all' || p.state === state) &&
          (head === null ||
            (headOwner?.toLowerCase() === ctx.model.state.owner.toLowerCase() &&
              p.head === headBranch)) &&
          (base === null || p.base === base)
      )
      .sort((a, b) => b.number - a.number)
    const { page, headers } = paginate(ctx, pulls)
    return { status: 200, headers, body: page.map((p) => pullJson(ctx, p)) }
  },

  'POST /repos/{owner}/{repo}/pulls': (ctx) => {
    const body = record(ctx.body)
    const rawHead = str(body.head) ?? ''
    const head = rawHead.includes(':') ? rawHead.slice(rawHead.indexOf(':') + 1) : rawHead
    const base = str(body.base) ?? ctx.model.state.defaultBranch
    const invalid = (field: string) =>
      errorReply(422, 'Validation Failed', {
        errors: [{ resource: 'PullRequest', field, code: 'invalid' }]
      })
    if (!ctx.model.state.branches[head]) return invalid('head')
    if (!ctx.model.state.branches[base]) return invalid('base')
    const { owner } = ctx.model.state
    if (
      ctx.model.state.pulls.some((p) => p.state === 'open' && p.head === head && p.base === base)
    ) {
      return errorReply(422, 'Validation Failed', {
        errors: [
          {
            resource: 'PullRequest',
            code: 'custom',
            message: `A pull request already exists for ${owner}:${head}.`
          }
        ]
      })
    }
    const number = ctx.model.addPull({
      head,
      base,
      title: str(body.title) ?? head,
      body: str(body.body) ?? null,
      draft: body.draft === true,
      state: 'open'
    })
    const pull = ctx.model.state.pulls.find((p) => p.number === number)
    return pull ? { status: 201, body: pullJson(ctx, pull) } : notFound()
  },

  'GET /repos/{owner}/{repo}/pulls/{pull_number}': (ctx) => {
    const pull = ctx.model.state.pulls.find((p) => p.number === Number(ctx.params.pull_number))
    return pull ? { status: 200, body: pullJson(ctx, pull) } : notFound()
  },

  'PATCH /repos/{owner}/{repo}/pulls/{pull_number}': (ctx) => {
    const pull = ctx.model.state.pulls.find((p) => p.number === Number(ctx.params.pull_number))
    if (!pull) return notFound()
    const body = record(ctx.body)
    if (str(body.title) !== undefined) pull.title = String(body.title)
    if (str(body.body) !== undefined) pull.body = String(body.body)
    if (body.state === 'open' || body.state === 'closed') pull.state = body.state
    pull.updatedAt = ctx.model.now()
    return { status: 200, body: pullJson(ctx, pull) }
  },

  'POST /repos/{owner}/{repo}/issues': (ctx) => {
    const body = record(ctx.body)
    const number = ctx.model.nextNumber()
    const labels = labelNames(body)
    labels.forEach((l) => ctx.model.ensureLabel(l))
    const issue: IssueRecord = {
      number,
      title: String(body.title ?? ''),
      body: str(body.body) ?? null,
      state: 'open',
      labels,
      createdAt: ctx.model.now(),
      updatedAt: ctx.model.now()
    }
    ctx.model.state.issues.push(issue)
    return { status: 201, body: issueJson(ctx, issue) }
  },

  'GET /repos/{owner}/{repo}/issues/{issue_number}': (ctx) => {
    const issue = findIssue(ctx)
    return issue ? { status: 200, body: issueJson(ctx, issue) } : notFound()
  },

  'PATCH /repos/{owner}/{repo}/issues/{issue_number}': (ctx) => {
    const issue = findIssue(ctx)
    if (!issue) return notFound()
    const body = record(ctx.body)
    if (str(body.title) !== undefined) issue.title = String(body.title)
    if (str(body.body) !== undefined) issue.body = String(body.body)
    if (body.state === 'open' || body.state === 'closed') issue.state = body.state
    if (Array.isArray(body.labels)) {
      issue.labels = labelNames(body)
      issue.labels.forEach((l) => ctx.model.ensureLabel(l))
    }
    issue.updatedAt = ctx.model.now()
    return { status: 200, body: issueJson(ctx, issue) }
  },

  'GET /repos/{owner}/{repo}/issues/{issue_number}/comments': (ctx) => {
    const issue = findIssue(ctx)
    if (!issue) return notFound()
    const since = ctx.query.get('since')
    const comments = ctx.model.state.comments.filter(
      (c) => c.issue === issue.number && (since === null || c.updatedAt >= Date.parse(since))
    )
    const { page, headers } = paginate(ctx, comments)
    return { status: 200, headers, body: page.map((c) => commentJson(ctx, c)) }
  },

  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments': (ctx) => {
    const issue = findIssue(ctx)
    if (!issue) return notFound()
    const body = str(record(ctx.body).body)
    if (body === undefined)
      return errorReply(422, 'Validation Failed', {
        errors: [{ resource: 'IssueComment', field: 'body', code: 'missing_field' }]
      })
    const id = ctx.model.addComment(issue.number, body)
    const comment = ctx.model.state.comments.find((c) => c.id === id)
    return comment ? { status: 201, body: commentJson(ctx, comment) } : notFound()
  },

  'GET /repos/{owner}/{repo}/issues/comments/{comment_id}': (ctx) => {
    const comment = ctx.model.state.comments.find((c) => c.id === Number(ctx.params.comment_id))
    return comment ? { status: 200, body: commentJson(ctx, comment) } : notFound()
  },

  'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}': (ctx) => {
    const comment = ctx.model.state.comments.find((c) => c.id === Number(ctx.params.comment_id))
    if (!comment) return notFound()
    const body = str(record(ctx.body).body)
    if (body !== undefined) comment.body = body
    comment.updatedAt = ctx.model.now()
    return { status: 200, body: commentJson(ctx, comment) }
  },

  'DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}': (ctx) => {
    const index = ctx.model.state.comments.findIndex((c) => c.id === Number(ctx.params.comment_id))
    if (index < 0) return notFound()
    ctx.model.state.comments.splice(index, 1)
    return { status: 204 }
  },

  'GET /repos/{owner}/{repo}/issues/{issue_number}/labels': (ctx) => {
    const issue = findIssue(ctx)
    if (!issue) return notFound()
    const { page, headers } = paginate(ctx, issue.labels)
    return { status: 200, headers, body: page.map((l) => labelJson(ctx, l)) }
  },

  'POST /repos/{owner}/{repo}/issues/{issue_number}/labels': (ctx) => {
    const issue = findIssue(ctx)
    if (!issue) return notFound()
    for (const label of labelNames(ctx.body)) {
      ctx.model.ensureLabel(label)
      if (!issue.labels.includes(label)) issue.labels.push(label)
    }
    return { status: 200, body: issue.labels.map((l) => labelJson(ctx, l)) }
  },

  'PUT /repos/{owner}/{repo}/issues/{issue_number}/labels': (ctx) => {
    const issue = findIssue(ctx)
    if (!issue) return notFound()
    issue.labels = labelNames(ctx.body)
    issue.labels.forEach((l) => ctx.model.ensureLabel(l))
    return { status: 200, body: issue.labels.map((l) => labelJson(ctx, l)) }
  },

  'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}': (ctx) => {
    const issue = findIssue(ctx)
    if (!issue) return notFound()
    const index = issue.labels.indexOf(ctx.params.name ?? '')
    if (index < 0) return errorReply(404, 'Label does not exist')
    issue.labels.splice(index, 1)
    return { status: 200, body: issue.labels.map((l) => labelJson(ctx, l)) }
  },

  'GET /repos/{owner}/{repo}/contents/{path}': (ctx) => {
    const path = (ctx.params.path ?? '').replace(/^\/+|\/+$/g, '')
    const ref = ctx.query.get('ref') ?? ctx.model.state.defaultBranch
    const sha = ctx.model.resolveRef(ref)
    if (!sha) return errorReply(404, `No commit found for the ref ${ref}`)
    const files = ctx.model.state.commits[sha]?.files
    if (files) {
      const content = files[path]
      if (content !== undefined) {
        return {
          status: 200,
          body: contentsFile(ctx, path, ref, blobSha(content), content, Buffer.byteLength(content))
        }
      }
      const entries = new Map<string, { type: 'file' | 'dir'; sha: string; size: number }>()
      for (const [p, c] of Object.entries(files)) {
        if (!p.startsWith(`${path}/`)) continue
        const [head, ...rest] = p.slice(path.length + 1).split('/')
        if (!head) continue
        entries.set(
          head,
          rest.length > 0
            ? { type: 'dir', sha: fakeSha(`dir:${sha}:${path}/${head}`), size: 0 }
            : { type: 'file', sha: blobSha(c), size: Buffer.byteLength(c) }
        )
      }
      if (entries.size === 0) return notFound()
      return {
        status: 200,
        body: [...entries]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, e]) => contentsDirEntry(ctx, `${path}/${name}`, ref, e.type, e.sha, e.size))
      }
    }
    if (!ctx.model.gitDir) return notFound()
    const entry = readGitPath(ctx.model.gitDir, sha, path)
    if (!entry) return notFound()
    if (entry.type === 'file') {
      return {
        status: 200,
        body: contentsFile(
          ctx,
          path,
          ref,
          entry.sha,
          entry.content,
          Buffer.byteLength(entry.content)
        )
      }
    }
    return {
      status: 200,
      body: entry.entries.map((e) =>
        contentsDirEntry(ctx, `${path}/${e.name}`, ref, e.type, e.sha, e.size)
      )
    }
  },

  // Top-level entries of a commit's tree (the fake serves trees of commits seeded in
  // scenario.contents only; `recursive` is not supported).
  'GET /repos/{owner}/{repo}/git/trees/{tree_sha}': (ctx) => {
    const ref = ctx.params.tree_sha ?? ''
    const sha = ctx.model.resolveRef(ref)
    const files = sha ? ctx.model.state.commits[sha]?.files : undefined
    if (!sha || !files) return notFound()
    const entries = new Map<string, { type: 'blob' | 'tree'; sha: string; size?: number }>()
    for (const [path, content] of Object.entries(files)) {
      const [head, ...rest] = path.split('/')
      if (!head) continue
      entries.set(
        head,
        rest.length > 0
          ? { type: 'tree', sha: fakeSha(`dir:${sha}:${head}`) }
          : { type: 'blob', sha: blobSha(content), size: Buffer.byteLength(content) }
      )
    }
    return {
      status: 200,
      body: {
        sha: fakeSha(`tree:${sha}`),
        url: `${apiBase(ctx)}/git/trees/${sha}`,
        truncated: false,
        tree: [...entries]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, e]) => ({
            path: name,
            mode: e.type === 'tree' ? '040000' : '100644',
            type: e.type,
            sha: e.sha,
            ...(e.size === undefined ? {} : { size: e.size }),
            url: `${apiBase(ctx)}/git/${e.type === 'tree' ? 'trees' : 'blobs'}/${e.sha}`
          }))
      }
    }
  },

  'PUT /repos/{owner}/{repo}/contents/{path}': (ctx) => {
    const path = (ctx.params.path ?? '').replace(/^\/+|\/+$/g, '')
    const body = record(ctx.body)
    const branch = str(body.branch) ?? ctx.model.state.defaultBranch
    const head = ctx.model.state.branches[branch]
    if (!head) return errorReply(404, `Branch ${branch} not found`)
    const parent = ctx.model.state.commits[head]
    if (!parent?.files) {
      return errorReply(
        422,
        `fake GitHub: branch ${branch} is at ${head}, a commit that exists only in gitDir; the contents API writes only to branches seeded in scenario.contents`
      )
    }
    const existing = parent.files[path]
    const given = str(body.sha)
    if (existing !== undefined && given === undefined)
      return errorReply(422, 'Invalid request.\n\n"sha" wasn\'t supplied.')
    if (given !== undefined && (existing === undefined || blobSha(existing) !== given)) {
      return errorReply(409, `${path} does not match ${given}`)
    }
    const content = Buffer.from(str(body.content) ?? '', 'base64').toString('utf8')
    const message = str(body.message) ?? ''
    const sha = fakeSha(
      `commit:${head}:${path}:${message}:${content}:${ctx.model.now()}:${Object.keys(ctx.model.state.commits).length}`
    )
    ctx.model.state.commits[sha] = {
      sha,
      message,
      parents: [head],
      files: { ...parent.files, [path]: content }
    }
    ctx.model.setBranch(branch, sha)
    const file = contentsFile(
      ctx,
      path,
      branch,
      blobSha(content),
      undefined,
      Buffer.byteLength(content)
    )
    return {
      status: existing === undefined ? 201 : 200,
      body: { content: file, commit: { ...commitJson(ctx, sha), message } }
    }
  }
}

function refJson(ctx: HandlerContext, ref: string, sha: string): Record<string, unknown> {
  return {
    ref,
    node_id: `REF_${createHash('sha1').update(ref).digest('hex').slice(0, 10)}`,
    url: `${apiBase(ctx)}/git/${ref}`,
    object: { type: 'commit', sha, url: `${apiBase(ctx)}/git/commits/${sha}` }
  }
}

export function handlerFor(route: string | null): Handler | undefined {
  return route === null ? undefined : routes[route]
}

export const implementedRoutes: readonly string[] = Object.keys(routes)
