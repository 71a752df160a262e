/**
 * JSON shapes of GitHub's REST answers, pagination, and the handler context the routes share.
 */
import {
  ACTIONS_APP,
  fakeSha,
  type CommitInfo,
  type Model,
  type StatusView,
  type WorkflowRunView
} from './model.js'
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

export const DOCS = 'https://docs.github.com/rest'

export function errorReply(
  status: number,
  message: string,
  extra: Record<string, unknown> = {}
): Reply {
  return { status, body: { message, documentation_url: DOCS, status: String(status), ...extra } }
}

export const notFound = (): Reply => errorReply(404, 'Not Found')

export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

export function record(body: unknown): Record<string, unknown> {
  return body !== null && typeof body === 'object' && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {}
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

// --- pagination -------------------------------------------------------------------------------

/** Slices `items` like GitHub (per_page default 30, max 100) and builds the Link header. */
export function paginate<T>(
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

export function apiBase(ctx: HandlerContext): string {
  const { owner, repo } = ctx.model.state
  return `${ctx.model.urls.apiUrl}/repos/${owner}/${repo}`
}

export function htmlBase(ctx: HandlerContext): string {
  const { owner, repo } = ctx.model.state
  return `${ctx.model.urls.serverUrl}/${owner}/${repo}`
}

export function userJson(ctx: HandlerContext, login: string): Record<string, unknown> {
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

export function repoJson(ctx: HandlerContext): Record<string, unknown> {
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

export function appJson(slug: string): Record<string, unknown> {
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

export function appId(slug: string): number {
  return appJson(slug).id as number
}

export function checkRunJson(ctx: HandlerContext, run: CheckRunView): Record<string, unknown> {
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

export function jobJson(ctx: HandlerContext, run: CheckRunView): Record<string, unknown> {
  return {
    id: run.id,
    run_id: run.runId,
    run_url: `${apiBase(ctx)}/actions/runs/${run.runId}`,
    run_attempt: run.runAttempt,
    node_id: `J_${run.id}`,
    head_sha: run.sha,
    head_branch: ctx.model.branchOfSha(run.sha),
    url: `${apiBase(ctx)}/actions/jobs/${run.id}`,
    html_url: run.htmlUrl,
    status: run.status,
    conclusion: run.conclusion,
    created_at: iso(run.startedAt),
    started_at: iso(run.startedAt),
    completed_at: iso(run.completedAt),
    name: run.name,
    steps: (run.plan.steps ?? []).map((step, i) => ({
      name: step.name,
      number: i + 1,
      status: run.status === 'completed' ? 'completed' : 'queued',
      conclusion: run.status === 'completed' ? step.conclusion : null,
      started_at: run.status === 'completed' ? iso(run.startedAt) : null,
      completed_at: run.status === 'completed' ? iso(run.completedAt) : null
    })),
    check_run_url: `${apiBase(ctx)}/check-runs/${run.id}`,
    labels: ['ubuntu-latest'],
    runner_id: null,
    runner_name: null,
    runner_group_id: null,
    runner_group_name: null,
    workflow_name: run.workflow
  }
}

export function labelJson(ctx: HandlerContext, name: string): Record<string, unknown> {
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

export function issueJson(ctx: HandlerContext, issue: IssueRecord): Record<string, unknown> {
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

export function pullJson(ctx: HandlerContext, pull: PullRecord): Record<string, unknown> {
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
    // a pull is an issue: its labels are the issue's (GitHub always sends the list)
    labels: (ctx.model.state.issues.find((i) => i.pull === pull.number)?.labels ?? []).map((name) =>
      labelJson(ctx, name)
    ),
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

export function commentJson(
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

export function statusJson(ctx: HandlerContext, s: StatusView): Record<string, unknown> {
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

function personJson(who: { name: string; email: string; date: number }) {
  return { name: who.name, email: who.email, date: iso(who.date) }
}

/** A commit as `GET …/commits/{ref}` shows it (the same tree and parents as git/commits). */
export function commitJson(ctx: HandlerContext, sha: string): Record<string, unknown> {
  const info = ctx.model.commitInfo(sha)
  const fallback = {
    name: ctx.model.state.actor,
    email: `${ctx.model.state.actor}@users.noreply.github.com`,
    date: ctx.model.state.shaSeenAt[sha] ?? ctx.model.now()
  }
  const tree = info?.tree ?? fakeSha(`tree:${sha}`)
  return {
    sha,
    node_id: `C_${sha}`,
    url: `${apiBase(ctx)}/commits/${sha}`,
    html_url: `${htmlBase(ctx)}/commit/${sha}`,
    commit: {
      message: (info?.message ?? '').replace(/\n+$/, ''),
      author: personJson(info?.author ?? fallback),
      committer: personJson(info?.committer ?? fallback),
      tree: { sha: tree, url: `${apiBase(ctx)}/git/trees/${tree}` }
    },
    parents: (info?.parents ?? []).map((p) => ({
      sha: p,
      url: `${apiBase(ctx)}/commits/${p}`,
      html_url: `${htmlBase(ctx)}/commit/${p}`
    }))
  }
}

/** A commit as `GET …/git/commits/{commit_sha}` shows it. */
export function gitCommitJson(ctx: HandlerContext, info: CommitInfo): Record<string, unknown> {
  return {
    sha: info.sha,
    node_id: `C_${info.sha}`,
    url: `${apiBase(ctx)}/git/commits/${info.sha}`,
    html_url: `${htmlBase(ctx)}/commit/${info.sha}`,
    author: personJson(info.author),
    committer: personJson(info.committer),
    message: info.message.replace(/\n+$/, ''),
    tree: { sha: info.tree, url: `${apiBase(ctx)}/git/trees/${info.tree}` },
    parents: info.parents.map((p) => ({
      sha: p,
      url: `${apiBase(ctx)}/git/commits/${p}`,
      html_url: `${htmlBase(ctx)}/commit/${p}`
    })),
    verification: {
      verified: false,
      reason: 'unsigned',
      signature: null,
      payload: null,
      verified_at: null
    }
  }
}

/** A workflow run as `GET …/actions/runs/{run_id}` shows it. */
export function workflowRunJson(
  ctx: HandlerContext,
  run: WorkflowRunView
): Record<string, unknown> {
  const base = `${apiBase(ctx)}/actions/runs/${run.id}`
  const actor = userJson(ctx, ctx.model.state.actor)
  return {
    id: run.id,
    name: run.workflow.name,
    node_id: `WFR_${run.id}`,
    head_branch: run.headBranch,
    head_sha: run.sha,
    path: run.workflow.path,
    display_title: run.workflow.name,
    run_number: run.id % 100_000,
    event: run.event,
    status: run.status,
    conclusion: run.conclusion,
    workflow_id: run.workflow.id,
    check_suite_id: run.checkSuiteId,
    check_suite_node_id: `CS_${run.checkSuiteId}`,
    url: base,
    html_url: `${htmlBase(ctx)}/actions/runs/${run.id}`,
    pull_requests: [],
    created_at: iso(run.createdAt),
    updated_at: iso(run.updatedAt),
    actor,
    triggering_actor: actor,
    run_attempt: run.attempt,
    run_started_at: iso(run.attemptStartedAt),
    jobs_url: `${base}/jobs`,
    logs_url: `${base}/logs`,
    check_suite_url: `${apiBase(ctx)}/check-suites/${run.checkSuiteId}`,
    artifacts_url: `${base}/artifacts`,
    cancel_url: `${base}/cancel`,
    rerun_url: `${base}/rerun`,
    previous_attempt_url: run.attempt > 1 ? `${base}/attempts/${run.attempt - 1}` : null,
    workflow_url: `${apiBase(ctx)}/actions/workflows/${run.workflow.id}`,
    head_commit: null,
    repository: repoJson(ctx),
    head_repository: repoJson(ctx)
  }
}
