/**
 * GitHubPort over the REST API. Reads that are polled go through `conditionalGet`, which
 * sends `If-None-Match` with the last ETag of the same URL: a `304` costs no rate limit, so
 * waiting an hour on one check costs a handful of points.
 */
import type { GitHubClient } from './client.js'
import type {
  BranchStanding,
  CommitInfo,
  DispatchRequest,
  PullInfo,
  RepoRef,
  StandingQuery,
  WorkflowJobInfo,
  WorkflowRunInfo,
  WorkflowRunState
} from '../../core/github.js'
import type { GitHubPort } from '../../ports.js'
import type { CheckRunInfo, ChecksSnapshot, CommitStatusInfo } from '../../core/checks/reduce.js'
import { httpStatus } from '../../core/errors.js'
import type { AnnotationInfo, CheckRunOutput, FailureSources } from '../../ports.js'
import type { IssueComment, IssuesPort } from '../../ports.js'
import type { BranchFiles, ContentsApi } from '../../ports.js'
import { ContentsConflictError } from '../../core/state-errors.js'

const PAGE_SIZE = 100

interface CachedResponse {
  etag: string
  data: unknown
}

/** Where a GitHub Actions job's details URL points: …/actions/runs/<run>/job/<job>. */
export function actionsJobOf(
  url: string | null | undefined
): { runId: number; jobId: number } | undefined {
  const match = url ? /\/actions\/runs\/(\d+)\/job\/(\d+)/.exec(url) : null
  if (!match?.[1] || !match[2]) return undefined
  return { runId: Number(match[1]), jobId: Number(match[2]) }
}

interface RestCheckRun {
  id: number
  name: string
  status: string
  conclusion: string | null
  html_url: string | null
  details_url: string | null
  started_at: string | null
  check_suite: { id: number } | null
  app: { slug?: string } | null
  output?: {
    title: string | null
    summary: string | null
    text: string | null
    annotations_count: number
  }
}

interface RestStatus {
  id: number
  context: string
  state: string
  description: string | null
  target_url: string | null
}

interface RestPull {
  number: number
  html_url: string
  state: string
  created_at?: string
  draft?: boolean
  head: { sha: string; ref: string }
  base: { ref: string }
}

function toPull(pull: RestPull): PullInfo {
  return {
    number: pull.number,
    url: pull.html_url,
    headSha: pull.head.sha,
    headRef: pull.head.ref,
    baseRef: pull.base.ref,
    draft: pull.draft ?? false,
    state: pull.state
  }
}

export function toCheckRun(run: RestCheckRun): CheckRunInfo {
  const job = actionsJobOf(run.details_url) ?? actionsJobOf(run.html_url)
  return {
    id: run.id,
    name: run.name,
    status: run.status,
    conclusion: run.conclusion,
    url: run.html_url ?? run.details_url ?? '',
    startedAt: run.started_at,
    workflowRunId: job?.runId,
    jobId: job?.jobId,
    checkSuiteId: run.check_suite?.id,
    appSlug: run.app?.slug
  }
}

/**
 * One part of a GraphQL read of the repository: its fields under `repository { … }` and its
 * variables, every alias and variable name starting with `p` so that parts sent together in
 * one query do not collide.
 */
type RepositoryPart = (p: string) => {
  fields: string
  variables: Record<string, { type: string; value: unknown }>
}

interface PendingPart {
  part: RepositoryPart
  resolve: (read: { repository: Record<string, unknown> | null; p: string }) => void
  reject: (error: unknown) => void
}

const PULL_FIELDS =
  'number url state isDraft headRefName headRefOid baseRefName baseRef { name target { oid } }'
const COMMIT_FIELDS =
  'oid committedDate tree { oid } parents(first: 2) { nodes { oid tree { oid } } }'

interface GqlPull {
  number: number
  url: string
  state: string
  isDraft: boolean
  headRefName: string
  headRefOid: string
  baseRefName: string
  baseRef: { name: string; target: { oid: string } | null } | null
}
interface GqlCommit {
  oid: string
  committedDate: string | null
  tree: { oid: string }
  parents: { nodes: { oid: string; tree: { oid: string } }[] }
}

function gqlPull(pull: GqlPull): PullInfo {
  return {
    number: pull.number,
    url: pull.url,
    headSha: pull.headRefOid,
    headRef: pull.headRefName,
    baseRef: pull.baseRefName,
    draft: pull.isDraft,
    state: pull.state.toLowerCase()
  }
}

function gqlCommit(commit: GqlCommit | null | undefined): BranchStanding['commit'] {
  if (!commit?.oid) return null
  const committedAt = Date.parse(commit.committedDate ?? '')
  const parents = commit.parents.nodes
  return {
    sha: commit.oid,
    tree: commit.tree.oid,
    parents: parents.map((parent) => parent.oid),
    ...(Number.isFinite(committedAt) ? { committedAt } : {}),
    parentTree: parents.length === 1 ? (parents[0]?.tree.oid ?? null) : null
  }
}

export class RestGitHub implements GitHubPort, FailureSources, IssuesPort, ContentsApi {
  private readonly cache = new Map<string, CachedResponse>()
  /**
   * Each check run's output as its commit's listing last showed it: the listing carries the
   * same output as the check run itself, so gathering a failure needs no request of its own.
   */
  private readonly listedOutputs = new Map<number, CheckRunOutput>()

  /** GraphQL reads of the repository asked for together, sent as one query (`readRepository`). */
  private pendingParts: PendingPart[] | null = null
  /** The default branch, once read: it does not change during a run. */
  private knownDefaultBranch: string | null = null

  constructor(
    private readonly client: GitHubClient,
    readonly repo: RepoRef
  ) {}

  /**
   * A GraphQL read of the repository. Reads asked for in the same turn of the event loop (the
   * state files and where the branch stands, at a gate's start) go in one query: one request,
   * one rate-limit point. A failed query fails each of its parts.
   */
  private readRepository(
    part: RepositoryPart
  ): Promise<{ repository: Record<string, unknown> | null; p: string }> {
    return new Promise((resolve, reject) => {
      if (!this.pendingParts) {
        this.pendingParts = []
        setImmediate(() => void this.sendParts())
      }
      this.pendingParts.push({ part, resolve, reject })
    })
  }

  private async sendParts(): Promise<void> {
    const parts = this.pendingParts ?? []
    this.pendingParts = null
    const built = parts.map((entry, i) => ({ entry, p: `p${i}_`, ...entry.part(`p${i}_`) }))
    const variables = built.flatMap((b) => Object.entries(b.variables))
    const query = `query($owner: String!, $name: String!${variables.map(([name, v]) => `, $${name}: ${v.type}`).join('')}) {
  repository(owner: $owner, name: $name) {
${built.map((b) => b.fields).join('\n')}
  }
}`
    try {
      const result = await this.client.graphql<{ repository: Record<string, unknown> | null }>(
        query,
        {
          owner: this.repo.owner,
          name: this.repo.repo,
          ...Object.fromEntries(variables.map(([name, v]) => [name, v.value]))
        }
      )
      for (const b of built) b.entry.resolve({ repository: result.repository, p: b.p })
    } catch (error) {
      // GitHub answers what it could beside its errors: a part none of whose fields failed
      // gets its answer; an error without a field's path fails every part.
      const { errors, data } = error as {
        errors?: { path?: (string | number)[] }[]
        data?: { repository?: Record<string, unknown> | null }
      }
      const failed = (p: string) =>
        !errors ||
        !data?.repository ||
        errors.some(
          (e) =>
            e.path?.[0] !== 'repository' ||
            e.path[1] === undefined ||
            String(e.path[1]).startsWith(p)
        )
      for (const b of built)
        if (failed(b.p)) b.entry.reject(error)
        else b.entry.resolve({ repository: data?.repository ?? null, p: b.p })
    }
  }

  /** See GitHubPort.standing: one GraphQL read; null when GraphQL refuses it. */
  async standing(query: StandingQuery): Promise<BranchStanding | null> {
    let read: { repository: Record<string, unknown> | null; p: string }
    try {
      read = await this.readRepository((p) => ({
        fields: [
          `    ${p}branch: ref(qualifiedName: $${p}branch) {
      target { ... on Commit { ${COMMIT_FIELDS} } }
      associatedPullRequests(states: [OPEN], first: 1, orderBy: { field: CREATED_AT, direction: DESC }) { nodes { ${PULL_FIELDS} } }
    }`,
          `    ${p}default: defaultBranchRef { name target { oid } }`,
          ...(query.sha
            ? [`    ${p}commit: object(oid: $${p}sha) { ... on Commit { ${COMMIT_FIELDS} } }`]
            : []),
          ...(query.base ? [`    ${p}base: ref(qualifiedName: $${p}base) { target { oid } }`] : [])
        ].join('\n'),
        variables: {
          [`${p}branch`]: { type: 'String!', value: `refs/heads/${query.branch}` },
          ...(query.sha ? { [`${p}sha`]: { type: 'GitObjectID!', value: query.sha } } : {}),
          ...(query.base
            ? { [`${p}base`]: { type: 'String!', value: `refs/heads/${query.base}` } }
            : {})
        }
      }))
    } catch {
      return null
    }
    const { repository, p } = read
    if (!repository) return null
    const branch = repository[`${p}branch`] as {
      target: GqlCommit | null
      associatedPullRequests: { nodes: GqlPull[] }
    } | null
    const defaults = repository[`${p}default`] as {
      name: string
      target: { oid: string } | null
    } | null
    if (!defaults) return null
    const open = branch?.associatedPullRequests.nodes[0]
    const heads: Record<string, string | null> = {
      [defaults.name]: defaults.target?.oid ?? null
    }
    if (open?.baseRef) heads[open.baseRef.name] = open.baseRef.target?.oid ?? null
    if (query.base)
      heads[query.base] =
        (repository[`${p}base`] as { target: { oid: string } | null } | null)?.target?.oid ?? null
    this.knownDefaultBranch = defaults.name
    return {
      head: branch?.target?.oid ?? null,
      commit: gqlCommit(
        query.sha ? (repository[`${p}commit`] as GqlCommit | null) : branch?.target
      ),
      openPull: open ? gqlPull(open) : null,
      defaultBranch: defaults.name,
      heads
    }
  }

  /** A GET that sends the last ETag of the same URL and re-uses the cached body on 304. */
  async conditionalGet<T>(route: string, params: Record<string, string | number>): Promise<T> {
    const key = `${route} ${JSON.stringify(params)}`
    const cached = this.cache.get(key)
    try {
      const response = await this.client.request(route, {
        ...this.repo,
        ...params,
        headers: cached ? { 'if-none-match': cached.etag } : {}
      })
      const etag = response.headers.etag
      if (etag) this.cache.set(key, { etag, data: response.data })
      return response.data as T
    } catch (error) {
      if (httpStatus(error) === 304 && cached) return cached.data as T
      throw error
    }
  }

  async defaultBranch(): Promise<string> {
    if (this.knownDefaultBranch !== null) return this.knownDefaultBranch
    const repo = await this.conditionalGet<{ default_branch: string }>(
      'GET /repos/{owner}/{repo}',
      {}
    )
    this.knownDefaultBranch = repo.default_branch
    return repo.default_branch
  }

  async branchHead(branch: string): Promise<string | null> {
    try {
      const ref = await this.conditionalGet<{ object: { sha: string } }>(
        'GET /repos/{owner}/{repo}/git/ref/{ref}',
        { ref: `heads/${branch}` }
      )
      return ref.object.sha
    } catch (error) {
      if (httpStatus(error) === 404) return null
      throw error
    }
  }

  async getPull(number: number): Promise<PullInfo | null> {
    try {
      const pull = await this.conditionalGet<RestPull>(
        'GET /repos/{owner}/{repo}/pulls/{pull_number}',
        {
          pull_number: number
        }
      )
      return toPull(pull)
    } catch (error) {
      if (httpStatus(error) === 404) return null
      throw error
    }
  }

  async findOpenPull(branch: string): Promise<PullInfo | null> {
    const pulls = await this.conditionalGet<RestPull[]>('GET /repos/{owner}/{repo}/pulls', {
      head: `${this.repo.owner}:${branch}`,
      state: 'open',
      per_page: 10
    })
    const first = pulls[0]
    return first ? toPull(first) : null
  }

  async createDraftPull(input: {
    title: string
    head: string
    base: string
    body: string
  }): Promise<PullInfo> {
    const response = await this.client.rest.pulls.create({ ...this.repo, ...input, draft: true })
    return toPull(response.data as RestPull)
  }

  /**
   * Every page of a list whose first page says how many items there are. Not
   * `octokit.paginate`: that cannot send `If-None-Match`, and polled lists must, so that a page
   * that did not change is a free 304.
   */
  private async allPages<T>(
    route: string,
    params: Record<string, string | number>,
    items: (page: unknown) => { total: number; items: T[] }
  ): Promise<T[]> {
    const first = items(
      await this.conditionalGet(route, { ...params, per_page: PAGE_SIZE, page: 1 })
    )
    const pages = Math.ceil(first.total / PAGE_SIZE)
    const result = [...first.items]
    for (let page = 2; page <= pages; page++) {
      result.push(
        ...items(await this.conditionalGet(route, { ...params, per_page: PAGE_SIZE, page })).items
      )
    }
    return result
  }

  async readChecks(
    sha: string,
    options: { skipStatuses?: (checkRuns: CheckRunInfo[]) => boolean } = {}
  ): Promise<ChecksSnapshot> {
    const runs = await this.allPages(
      'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
      { ref: sha, filter: 'all' },
      (page) => {
        const body = page as { total_count: number; check_runs: RestCheckRun[] }
        return { total: body.total_count, items: body.check_runs }
      }
    )
    const checkRuns = runs.map(toCheckRun)
    const statuses = options.skipStatuses?.(checkRuns)
      ? []
      : await this.allPages(
          'GET /repos/{owner}/{repo}/commits/{ref}/status',
          { ref: sha },
          (page) => {
            const body = page as { total_count: number; statuses: RestStatus[] }
            return { total: body.total_count, items: body.statuses }
          }
        )
    for (const run of runs)
      if (run.output)
        this.listedOutputs.set(run.id, {
          title: run.output.title,
          summary: run.output.summary,
          text: run.output.text,
          annotationsCount: run.output.annotations_count
        })
    return {
      checkRuns,
      statuses: statuses.map((status): CommitStatusInfo => ({
        id: status.id,
        context: status.context,
        state: status.state,
        description: status.description,
        url: status.target_url
      }))
    }
  }

  async workflowRunStatus(runId: number): Promise<WorkflowRunState> {
    try {
      const run = await this.conditionalGet<{
        status?: string | null
        conclusion?: string | null
        run_attempt?: number
      }>('GET /repos/{owner}/{repo}/actions/runs/{run_id}', { run_id: runId })
      return {
        kind: 'found',
        status: run.status ?? 'unknown',
        conclusion: run.conclusion ?? null,
        runAttempt: run.run_attempt ?? null
      }
    } catch (error) {
      const status = httpStatus(error)
      if (status === 404) return { kind: 'not-found' }
      if (status === 403) return { kind: 'forbidden' }
      throw error
    }
  }

  async commit(sha: string): Promise<CommitInfo | null> {
    try {
      const commit = await this.conditionalGet<{
        sha: string
        tree: { sha: string }
        parents: { sha: string }[]
        committer?: { date?: string }
      }>('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { commit_sha: sha })
      const committedAt = Date.parse(commit.committer?.date ?? '')
      return {
        sha: commit.sha,
        tree: commit.tree.sha,
        parents: commit.parents.map((parent) => parent.sha),
        ...(Number.isFinite(committedAt) ? { committedAt } : {})
      }
    } catch (error) {
      const status = httpStatus(error)
      if (status === 404 || status === 422) return null
      throw error
    }
  }

  async workflowRunsOf(sha: string): Promise<WorkflowRunInfo[]> {
    const runs = await this.allPages(
      'GET /repos/{owner}/{repo}/actions/runs',
      { head_sha: sha },
      (page) => {
        const body = page as {
          total_count: number
          workflow_runs: {
            id: number
            name?: string | null
            event: string
            status: string | null
            conclusion: string | null
            html_url: string
          }[]
        }
        return { total: body.total_count, items: body.workflow_runs }
      }
    )
    return runs.map((run) => ({
      id: run.id,
      name: run.name ?? '',
      event: run.event,
      status: run.status ?? 'unknown',
      conclusion: run.conclusion,
      url: run.html_url
    }))
  }

  async dispatchWorkflow(
    request: DispatchRequest
  ): Promise<{ runId: number | null; url: string | null }> {
    // Not retried by the client: a lost answer may hide a started run, and a second dispatch
    // would start a second fixer. The ledger records the dispatch before it is sent.
    const response = await this.client.request(
      'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
      {
        ...this.repo,
        workflow_id: request.workflow,
        ref: request.ref,
        inputs: request.inputs,
        return_run_details: true,
        request: { retries: 0 }
      }
    )
    const details = (response.status === 200 ? response.data : null) as {
      workflow_run_id?: number
      html_url?: string
    } | null
    return { runId: details?.workflow_run_id ?? null, url: details?.html_url ?? null }
  }

  async workflowRunJobs(runId: number): Promise<WorkflowJobInfo[]> {
    const jobs = await this.allPages(
      'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs',
      { run_id: runId, filter: 'latest' },
      (page) => {
        const body = page as {
          total_count: number
          jobs: {
            name: string
            status: string
            conclusion: string | null
            html_url: string | null
            steps?: { name: string; status: string; conclusion: string | null }[]
          }[]
        }
        return { total: body.total_count, items: body.jobs }
      }
    )
    return jobs.map((job) => ({
      name: job.name,
      status: job.status,
      conclusion: job.conclusion,
      url: job.html_url ?? '',
      steps: (job.steps ?? []).map((step) => ({
        name: step.name,
        status: step.status,
        conclusion: step.conclusion
      }))
    }))
  }

  async findDispatchedRun(query: {
    workflow: string
    ref: string
    since: number
  }): Promise<{ runId: number; url: string } | null> {
    // Creation times have whole seconds: a run created in the dispatch's second counts.
    const since = new Date(Math.floor(query.since / 1000) * 1000).toISOString()
    const body = await this.conditionalGet<{
      workflow_runs: { id: number; html_url: string; created_at: string }[]
    }>('GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs', {
      workflow_id: query.workflow,
      branch: query.ref.replace(/^refs\/heads\//, ''),
      event: 'workflow_dispatch',
      created: `>=${since.replace(/\.000Z$/, 'Z')}`,
      per_page: PAGE_SIZE
    })
    const earliest = [...body.workflow_runs].sort(
      (a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.id - b.id
    )[0]
    return earliest ? { runId: earliest.id, url: earliest.html_url } : null
  }

  async branchesStartingWith(prefix: string): Promise<{ name: string; sha: string }[]> {
    const refs = await this.conditionalGet<{ ref: string; object: { sha: string } }[]>(
      'GET /repos/{owner}/{repo}/git/matching-refs/{ref}',
      { ref: `heads/${prefix}` }
    )
    return refs.map((ref) => ({
      name: ref.ref.replace(/^refs\/heads\//, ''),
      sha: ref.object.sha
    }))
  }

  async pullsInto(base: string, headPrefix: string): Promise<(PullInfo & { createdAt: number })[]> {
    const pulls = await this.conditionalGet<RestPull[]>('GET /repos/{owner}/{repo}/pulls', {
      base,
      state: 'all',
      sort: 'created',
      direction: 'desc',
      per_page: PAGE_SIZE
    })
    return pulls
      .filter((pull) => pull.head.ref.startsWith(headPrefix))
      .map((pull) => ({ ...toPull(pull), createdAt: Date.parse(pull.created_at ?? '') || 0 }))
  }

  async rerunFailedJobs(runId: number): Promise<void> {
    await this.client.request(
      'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs',
      {
        ...this.repo,
        run_id: runId
      }
    )
  }

  async checkRunOutput(checkRunId: number): Promise<CheckRunOutput> {
    const listed = this.listedOutputs.get(checkRunId)
    if (listed) return listed
    const { data } = await this.client.rest.checks.get({ ...this.repo, check_run_id: checkRunId })
    return {
      title: data.output.title,
      summary: data.output.summary,
      text: data.output.text,
      annotationsCount: data.output.annotations_count
    }
  }

  async annotations(checkRunId: number): Promise<AnnotationInfo[]> {
    const all = await this.client.paginate(this.client.rest.checks.listAnnotations, {
      ...this.repo,
      check_run_id: checkRunId,
      per_page: PAGE_SIZE
    })
    return all.map((a) => ({
      path: a.path,
      level: a.annotation_level ?? 'failure',
      title: a.title ?? null,
      message: a.message ?? ''
    }))
  }

  async jobLog(jobId: number): Promise<AsyncIterable<Uint8Array> | null> {
    try {
      // The API answers with a redirect to the log; fetch follows it, and the body is read
      // as a stream, never buffered whole.
      const response = await this.client.request(
        'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs',
        {
          ...this.repo,
          job_id: jobId,
          request: { parseSuccessResponseBody: false }
        }
      )
      return response.data as unknown as AsyncIterable<Uint8Array>
    } catch (error) {
      const status = httpStatus(error)
      if (status === 404 || status === 410) return null
      throw error
    }
  }

  // Program issue ---------------------------------------------------------------------

  async listComments(issue: number): Promise<IssueComment[]> {
    const comments = await this.client.paginate(this.client.rest.issues.listComments, {
      ...this.repo,
      issue_number: issue,
      per_page: PAGE_SIZE
    })
    return comments.map((comment) => ({ id: comment.id, body: comment.body ?? '' }))
  }

  async createComment(issue: number, body: string): Promise<IssueComment> {
    // Not retried by the client: a lost answer may hide a created comment, so the caller
    // looks for it before posting again (upsert in issue/program-issue.ts).
    const { data } = await this.client.rest.issues.createComment({
      ...this.repo,
      issue_number: issue,
      body,
      request: { retries: 0 }
    })
    return { id: data.id, body: data.body ?? body }
  }

  async updateComment(commentId: number, body: string): Promise<void> {
    await this.client.rest.issues.updateComment({ ...this.repo, comment_id: commentId, body })
  }

  async issueLabels(issue: number): Promise<string[]> {
    const { data } = await this.client.rest.issues.get({ ...this.repo, issue_number: issue })
    return data.labels.map((label) => (typeof label === 'string' ? label : (label.name ?? '')))
  }

  async addLabel(issue: number, label: string): Promise<void> {
    await this.client.rest.issues.addLabels({ ...this.repo, issue_number: issue, labels: [label] })
  }

  async removeLabel(issue: number, label: string): Promise<void> {
    try {
      await this.client.rest.issues.removeLabel({ ...this.repo, issue_number: issue, name: label })
    } catch (error) {
      if (httpStatus(error) !== 404) throw error
    }
  }

  // State branch (contents API) ---------------------------------------------------------

  async getFile(branch: string, path: string): Promise<{ text: string; sha: string } | null> {
    try {
      const { data } = await this.client.rest.repos.getContent({ ...this.repo, path, ref: branch })
      if (Array.isArray(data) || data.type !== 'file') return null
      const text =
        'content' in data && data.content
          ? Buffer.from(data.content, 'base64').toString('utf8')
          : ''
      return { text, sha: data.sha }
    } catch (error) {
      if (httpStatus(error) === 404) return null
      throw error
    }
  }

  /**
   * The branch's head and files in one GraphQL query (one rate-limit point for any number of
   * files), each with its blob SHA, the contents API's file SHA, so a compare-and-swap write
   * goes against exactly what was read. A file GraphQL cannot give as text (binary, or cut
   * short for its size) is read through the contents API.
   */
  async getFiles(branch: string, paths: readonly string[]): Promise<BranchFiles> {
    type Blob = { oid?: string; text: string | null; isBinary: boolean; isTruncated: boolean }
    const { repository, p } = await this.readRepository((p) => ({
      fields: [
        `    ${p}head: ref(qualifiedName: $${p}ref) { target { oid } }`,
        ...paths.map(
          (_, i) =>
            `    ${p}f${i}: object(expression: $${p}f${i}) { ... on Blob { oid text isBinary isTruncated } }`
        )
      ].join('\n'),
      variables: {
        [`${p}ref`]: { type: 'String!', value: `refs/heads/${branch}` },
        ...Object.fromEntries(
          paths.map((path, i) => [`${p}f${i}`, { type: 'String!', value: `${branch}:${path}` }])
        )
      }
    }))
    const files = await Promise.all(
      paths.map(async (path, i) => {
        const blob = (repository?.[`${p}f${i}`] ?? null) as Blob | null
        if (blob?.oid === undefined) return null
        if (blob.text === null || blob.isBinary || blob.isTruncated)
          return this.getFile(branch, path)
        return { text: blob.text, sha: blob.oid }
      })
    )
    const head = repository?.[`${p}head`] as { target: { oid: string } } | null | undefined
    return { head: head?.target.oid ?? null, files }
  }

  /**
   * Commits the files on the branch in one commit (GraphQL `createCommitOnBranch`), only if its
   * head is still `head`: ContentsConflictError when the branch moved.
   */
  async commitFiles(
    branch: string,
    head: string,
    files: readonly { path: string; text: string }[],
    message: string
  ): Promise<{ head: string }> {
    const mutation = `mutation($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid } }
}`
    try {
      const result = await this.client.graphql<{
        createCommitOnBranch: { commit: { oid: string } }
      }>(mutation, {
        input: {
          branch: {
            repositoryNameWithOwner: `${this.repo.owner}/${this.repo.repo}`,
            branchName: branch
          },
          expectedHeadOid: head,
          message: { headline: message },
          fileChanges: {
            additions: files.map((file) => ({
              path: file.path,
              contents: Buffer.from(file.text, 'utf8').toString('base64')
            }))
          }
        }
      })
      return { head: result.createCommitOnBranch.commit.oid }
    } catch (error) {
      const errors = (error as { errors?: { type?: string; message?: string }[] }).errors ?? []
      if (
        errors.some(
          (e) => e.type === 'STALE_DATA' || /expected branch to point to/i.test(e.message ?? '')
        )
      )
        throw new ContentsConflictError(`${branch} moved since ${head.slice(0, 12)} was read`, {
          cause: error
        })
      throw error
    }
  }

  async putFile(
    branch: string,
    path: string,
    text: string,
    sha: string | null,
    message: string
  ): Promise<{ sha: string }> {
    try {
      const { data } = await this.client.rest.repos.createOrUpdateFileContents({
        ...this.repo,
        path,
        branch,
        message,
        content: Buffer.from(text, 'utf8').toString('base64'),
        ...(sha ? { sha } : {})
      })
      return { sha: data.content?.sha ?? '' }
    } catch (error) {
      const status = httpStatus(error)
      if (status === 409 || status === 422)
        throw new ContentsConflictError(
          `${path} on ${branch} changed since it was read (HTTP ${status})`,
          { cause: error }
        )
      throw error
    }
  }

  async listDir(branch: string, path: string): Promise<string[]> {
    // The contents API has no valid path for the root of a branch: list its tree instead.
    if (path === '') return this.rootFiles(branch)
    try {
      const { data } = await this.client.rest.repos.getContent({ ...this.repo, path, ref: branch })
      return Array.isArray(data)
        ? data.filter((entry) => entry.type === 'file').map((entry) => entry.name)
        : []
    } catch (error) {
      if (httpStatus(error) === 404) return []
      throw error
    }
  }

  /** File names at the root of a branch (one request, the tree named by the branch). */
  private async rootFiles(branch: string): Promise<string[]> {
    try {
      const tree = await this.conditionalGet<{ tree: { path: string; type: string }[] }>(
        'GET /repos/{owner}/{repo}/git/trees/{tree_sha}',
        { tree_sha: branch }
      )
      return tree.tree.filter((entry) => entry.type === 'blob').map((entry) => entry.path)
    } catch (error) {
      if (httpStatus(error) === 404 || httpStatus(error) === 409) return []
      throw error
    }
  }

  async ensureBranch(branch: string): Promise<void> {
    if ((await this.branchHead(branch)) !== null) return
    const base = await this.branchHead(await this.defaultBranch())
    if (!base) throw new Error(`cannot create ${branch}: the default branch has no head`)
    try {
      await this.client.rest.git.createRef({ ...this.repo, ref: `refs/heads/${branch}`, sha: base })
    } catch (error) {
      // Created meanwhile by another run: fine.
      if (httpStatus(error) !== 422) throw error
    }
  }
}
