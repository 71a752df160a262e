/**
 * The REST routes the fake serves, keyed by OpenAPI route (`METHOD /template`). Each handler
 * reads the model and answers a JSON value; the server adds ETags, rate-limit headers and
 * faults around it. Git-backed routes are in contents.ts, Actions routes in actions.ts.
 */
import { createHash } from 'node:crypto'
import { actionsRoutes } from './actions.js'
import { contentRoutes } from './contents.js'
import { type StatusView } from './model.js'
import {
  apiBase,
  appId,
  checkRunJson,
  commentJson,
  commitJson,
  errorReply,
  htmlBase,
  issueJson,
  labelJson,
  notFound,
  paginate,
  pullJson,
  record,
  repoJson,
  statusJson,
  userJson,
  str,
  type Handler,
  type HandlerContext,
  type Reply
} from './shapes.js'
import { combinedState } from './timeline.js'
import type { CheckRunView, IssueRecord } from './types.js'

export { errorReply, type Reply } from './shapes.js'

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

  // GitHub's legacy `permission` maps maintain to write and triage to read; `role_name` is the role.
  'GET /repos/{owner}/{repo}/collaborators/{username}/permission': (ctx) => {
    const login = ctx.params.username ?? ''
    const role = ctx.model.state.collaborators[login] ?? 'none'
    const legacy = { maintain: 'write', triage: 'read' } as Record<string, string>
    return {
      status: 200,
      body: { permission: legacy[role] ?? role, role_name: role, user: userJson(ctx, login) }
    }
  },

  // Branches here carry no protection rules (`protected: false` above): GitHub's answer.
  'GET /repos/{owner}/{repo}/branches/{branch}/protection': (ctx) =>
    ctx.model.state.branches[ctx.params.branch ?? '']
      ? errorReply(404, 'Branch not protected')
      : errorReply(404, 'Branch not found'),

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

  'GET /repos/{owner}/{repo}/git/matching-refs/{ref}': (ctx) => {
    const ref = ctx.params.ref ?? ''
    const prefix = ref.startsWith('heads/') ? ref.slice('heads/'.length) : undefined
    const branches = Object.entries(ctx.model.state.branches)
      .filter(([name]) => prefix !== undefined && name.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : 1))
    return {
      status: 200,
      body: branches.map(([name, sha]) => refJson(ctx, `refs/heads/${name}`, sha))
    }
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
    ctx.model.deleteBranch(branch)
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

  ...contentRoutes,
  ...actionsRoutes
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
