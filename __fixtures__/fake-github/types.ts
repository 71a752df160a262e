/**
 * Public types of the fake GitHub REST API. A `Scenario` is plain JSON data (scripts and
 * seeded chaos tests build it); everything else describes the running fake.
 */

export type CheckStatus = 'queued' | 'in_progress' | 'completed'
export type CheckConclusion =
  | 'success'
  | 'failure'
  | 'neutral'
  | 'cancelled'
  | 'skipped'
  | 'timed_out'
  | 'action_required'
  | 'stale'
  | 'startup_failure'
export type StatusState = 'pending' | 'success' | 'failure' | 'error'

/**
 * Which commit a plan applies to: an explicit SHA, or the n-th distinct SHA a branch points to
 * (0 = its head when the fake started, 1 = the first new head after that, ...), or `'each'`
 * head of the branch that no SHA-specific or numbered plan covers.
 */
export interface PlanTarget {
  sha?: string
  branch?: string
  head?: number | 'each'
}

/** One step of a check run's life, `at` seconds after its commit appeared. */
export interface CheckRunEvent {
  at: number
  status: CheckStatus
  /** Only for `completed`; defaults to `success`. */
  conclusion?: CheckConclusion
}

export interface Annotation {
  path: string
  start_line: number
  end_line: number
  start_column?: number | null
  end_column?: number | null
  annotation_level: 'notice' | 'warning' | 'failure'
  message: string
  title?: string | null
  raw_details?: string | null
}

/** A job log: literal text, a file streamed from disk, or `text` repeated (for big logs). */
export type LogSource = string | { file: string } | { text: string; repeat: number }

export interface CheckRunPlan extends PlanTarget {
  name: string
  /** App slug; `github-actions` (the default) makes it an Actions job with a run and a log. */
  app?: string
  timeline: CheckRunEvent[]
  /** Check run id (= job id for Actions). Auto-assigned; set it only on single-SHA plans. */
  id?: number
  /** Actions workflow run id. Auto: one per (SHA, workflow). */
  runId?: number
  /** Actions workflow name, default `CI`. */
  workflow?: string
  /** Actions run attempt, default 1. A re-run is a second plan with the same name and 2. */
  runAttempt?: number
  checkSuiteId?: number
  /** Overrides details_url (and html_url for non-Actions apps). */
  detailsUrl?: string
  /** Served once the run has completed. */
  output?: { title?: string | null; summary?: string | null; text?: string | null }
  /** Served once the run has completed. */
  annotations?: Annotation[]
  log?: LogSource
  /** The log is past retention: the logs endpoint answers this status (410 or 404). */
  logExpired?: 410 | 404
  /**
   * Virtual time (ms epoch) the timeline counts from, instead of when the commit appeared.
   * Re-runs get it set to the time of the re-run request.
   */
  startsAt?: number
  /**
   * Scripted outcomes of successive re-runs of this job (`rerun-failed-jobs`, job `rerun`):
   * entry 0 for the first re-run, entry 1 for the second, ... A re-run without an entry
   * repeats this plan's outcome.
   */
  rerun?: RerunOutcome[]
  /** The job's steps (Actions jobs), served with their conclusions once the job completed. */
  steps?: JobStepPlan[]
}

/** One step of an Actions job. */
export interface JobStepPlan {
  name: string
  conclusion: CheckConclusion
}

/**
 * A job of a dispatched run: queued with the run, completed with `conclusion` when the run
 * completes (`skipped`: completed at once, as GitHub shows a job whose `if:` was false).
 */
export interface DispatchedJobPlan {
  name: string
  conclusion: CheckConclusion
  steps?: JobStepPlan[]
}

/**
 * What one re-run of a job does. Its timeline counts from the re-run request; without one it
 * is the original timeline moved to start then, ending with `conclusion` when that is given.
 * Output, annotations and log are only what the entry says.
 */
export interface RerunOutcome {
  timeline?: CheckRunEvent[]
  conclusion?: CheckConclusion
  output?: CheckRunPlan['output']
  annotations?: Annotation[]
  log?: LogSource
}

export type WorkflowRunStatus = 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested'
export type WorkflowRunConclusion = CheckConclusion

/** One step of a workflow run's life (for runs that have no jobs of their own). */
export interface WorkflowRunEvent {
  at: number
  status: WorkflowRunStatus
  /** Only for `completed`; defaults to `success`. */
  conclusion?: WorkflowRunConclusion
}

/**
 * A workflow run described by itself rather than by its jobs: a run waiting for approval
 * (`completed` / `action_required`, no jobs), a run that failed to start (`startup_failure`,
 * no jobs), a run of another event, or a dispatched run. When Actions check-run plans share
 * its run (same `runId`, or same SHA and `workflow` without ids), the run's status comes from
 * those jobs and this plan gives its name, path and event.
 */
export interface WorkflowRunPlan extends PlanTarget {
  /** Workflow name, or a workflow file (`autoloop.lock.yml`, `.github/workflows/ci.yml`). */
  workflow: string
  /** Default `push`. */
  event?: string
  timeline: WorkflowRunEvent[]
  /** Auto: one per (SHA, workflow), shared with check-run plans of that workflow. */
  runId?: number
  /** Shown as `head_branch`; default the first branch whose heads include the SHA. */
  headBranch?: string
  /** Virtual time (ms epoch) the timeline counts from, instead of when the commit appeared. */
  startsAt?: number
}

/** How a dispatched workflow run moves: queued, then in progress, then completed. */
export interface DispatchedRunPlan {
  /** Seconds from the dispatch to `in_progress`. Default 5. */
  queuedSeconds?: number
  /** Seconds in progress before `completed`. Default 60. */
  runSeconds?: number
  /** Default `success`. */
  conclusion?: WorkflowRunConclusion
  /** The run's jobs (each a check run of the ref's head); none by default. */
  jobs?: DispatchedJobPlan[]
  /**
   * Whether the dispatch answers 200 with the run's id when asked (`return_run_details`).
   * Default true; false answers 204 as GitHub Enterprise Server versions without it do.
   */
  runDetails?: boolean
}

/** A `workflow_dispatch` the fake received. */
export interface DispatchRecord {
  /** `workflow_id` as sent: a file name (`autoloop.lock.yml`) or a numeric id. */
  workflow: string
  /** The ref as sent. */
  ref: string
  inputs: Record<string, unknown>
  /** Virtual ms epoch of the request. */
  at: number
  /** The workflow run the dispatch created. */
  runId: number
}

/** A scenario-declared commit (a made-up SHA), served by the commit endpoints. */
export interface CommitSeed {
  tree: string
  parents: string[]
  message?: string
}

export interface StatusEvent {
  at: number
  state: StatusState
  description?: string
  targetUrl?: string
}

export interface StatusPlan extends PlanTarget {
  context: string
  timeline: StatusEvent[]
}

export interface PullSeed {
  number?: number
  /** Head branch name (in the same repository). */
  head: string
  base?: string
  title?: string
  body?: string
  draft?: boolean
  state?: 'open' | 'closed'
}

export interface IssueSeed {
  number?: number
  title?: string
  body?: string
  state?: 'open' | 'closed'
  labels?: string[]
  comments?: Array<string | { body: string; user?: string }>
}

export type FaultKind =
  /** Answers `status` (e.g. 502) with a JSON error body. */
  | 'status'
  /** 403, a message containing "secondary rate limit" and `retry-after`. */
  | 'secondary-rate-limit'
  /** 429 with `retry-after`. */
  | 'too-many-requests'
  /**
   * Uses up the primary limit: this and every later request answer 403 with
   * `x-ratelimit-remaining: 0` until virtual time reaches now + `resetInSeconds`.
   */
  | 'primary-rate-limit'
  /** Destroys the socket without an answer. */
  | 'drop-connection'
  /** Waits `delayMs` real milliseconds, then answers normally. */
  | 'slow'
  /** 200 with a body that is not valid JSON. */
  | 'malformed-json'
  /** 409 as if the file changed under the writer (default route: contents PUT). */
  | 'contents-conflict'
  /**
   * GraphQL's STALE_DATA error, as if the branch moved under `createCommitOnBranch` (default
   * route: `POST /graphql`; `afterRequests` skips the queries before it).
   */
  | 'stale-head'
  /** 410 (or `status`) for a job log (default route: the job logs endpoint). */
  | 'expired-log'

export interface FaultSpec {
  kind: FaultKind
  /** HTTP method to match (any when absent). */
  method?: string
  /** Regular expression (source) tested against the API path, prefix and query removed. */
  path?: string
  /** OpenAPI route to match, e.g. `GET /repos/{owner}/{repo}/commits/{ref}/check-runs`. */
  route?: string
  /** Let this many matching requests through before the fault fires. Default 0. */
  afterRequests?: number
  /** How many matching requests it hits, default 1; `'always'` never runs out. */
  count?: number | 'always'
  /** For `status` (required) and `expired-log` (default 410). */
  status?: number
  /** For `secondary-rate-limit` and `too-many-requests`, default 1. */
  retryAfterSeconds?: number
  /** For `primary-rate-limit`, default 60 (virtual seconds from now). */
  resetInSeconds?: number
  /** For `slow`, default 50, capped at 5000. */
  delayMs?: number
  /** Run the real handler first (the write happens), then answer with the fault. */
  applyFirst?: boolean
  /** Overrides the error message. */
  message?: string
}

export interface Scenario {
  /** Default `octo-org`. */
  owner?: string
  /** Default `demo`. */
  repo?: string
  /** Default `main`. */
  defaultBranch?: string
  /** Branch name → commit SHA. The default branch gets a made-up SHA when absent. */
  branches?: Record<string, string>
  /**
   * A bare repository to use as the fake's git repository instead of a temporary one (it is
   * created when missing, and kept by `close()`). Pushes to it are visible through the API.
   */
  gitDir?: string
  /** Branch → path → UTF-8 file content: one real git commit per branch at start. */
  contents?: Record<string, Record<string, string>>
  /** Made-up commits (SHA → tree, parents, message) for the commit endpoints. */
  commits?: Record<string, CommitSeed>
  checkRuns?: CheckRunPlan[]
  /** Workflow runs described by themselves (approval gates, start failures, other events). */
  workflowRuns?: WorkflowRunPlan[]
  /** Workflow files a dispatch may name; any name is accepted when absent. */
  workflows?: string[]
  /** How dispatched runs move (defaults 5 s queued, 60 s running, success). */
  dispatchedRuns?: DispatchedRunPlan
  /** `required`: git over HTTP answers 401 without `Authorization: Basic`. Default `optional`. */
  gitAuth?: 'optional' | 'required'
  statuses?: StatusPlan[]
  pulls?: PullSeed[]
  issues?: IssueSeed[]
  /** Repository labels (labels added to issues are created on the fly too). */
  labels?: string[]
  faults?: FaultSpec[]
  /** Primary rate limit: `limit` points per hour of virtual time, default 5000. */
  rateLimit?: { limit?: number; used?: number }
  /**
   * Virtual start time, ms epoch or ISO string. Default: the real time at start, whole
   * seconds. Not allowed with `realTime`.
   */
  startTime?: number | string
  /** Login that authors comments, pulls and commits. Default `github-actions[bot]`. */
  actor?: string
  /** Repository roles by login, for the collaborator permission route; others have none. */
  collaborators?: Record<string, CollaboratorRole>
}

export type CollaboratorRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'

export interface FakeGitHubOptions {
  scenario?: Scenario
  /** API path prefix, e.g. `/api/v3` as on GitHub Enterprise Server. Default none. */
  prefix?: string
  /** Default 0 (a free port). Listens on 127.0.0.1. */
  port?: number
  /**
   * The fake's now is the system clock (`Date.now()`), so a separate process agrees with it
   * and timelines pass in real seconds. `advance`/`setNow` then throw; `clock.sleep` really
   * waits. Default false: virtual time.
   */
  realTime?: boolean
  /**
   * Called for every accepted `workflow_dispatch`, before the answer, with the new record
   * and the fake (to push a commit, add check-run plans for the run, ...). A returned plan
   * replaces `scenario.dispatchedRuns` for this run.
   */
  onDispatch?: (dispatch: DispatchRecord, fake: FakeGitHub) => DispatchedRunPlan | undefined | void
}

/** The project's clock port, by shape. */
export interface Clock {
  now(): number
  sleep(ms: number): Promise<void>
}

/** A git smart-HTTP request (not an API request: no rate limit, no OpenAPI check). */
export interface GitRequest {
  seq: number
  /** Fake's time of arrival (ms epoch). */
  at: number
  method: string
  /** Path as sent, without the query. */
  path: string
  /** `git-upload-pack` (fetch, clone) or `git-receive-pack` (push, refused); null otherwise. */
  service: string | null
  /** `version=2` for protocol v2; null when the client sent no `Git-Protocol` header. */
  protocol: string | null
  /** Whether an `Authorization` header came with it. */
  authorization: boolean
  /** Status answered; null when the connection broke first. */
  status: number | null
  /** What `git http-backend` printed when it failed. */
  error?: string
}

export interface OpenApiResult {
  valid: boolean
  /** Human-readable reasons, empty when valid. */
  errors: string[]
}

export interface RecordedRequest {
  /** 1-based order of arrival. */
  seq: number
  /** Virtual time of arrival (ms epoch). */
  at: number
  method: string
  /** API path without prefix and query, as sent (percent-encoded). */
  path: string
  query: Record<string, string | string[]>
  headers: {
    'if-none-match'?: string
    authorization?: string
    accept?: string
    'content-type'?: string
    'user-agent'?: string
    'x-github-api-version'?: string
  }
  /** Parsed JSON body, the raw text when it is not JSON, undefined when empty. */
  body: unknown
  /** OpenAPI route, e.g. `GET /repos/{owner}/{repo}/pulls`; null when none matched. */
  route: string | null
  /** Whether the fake serves this route (an unimplemented one answers 404). */
  implemented: boolean
  /** Status answered; null when the connection was dropped. */
  status: number | null
  /** Fault that shaped the answer, if any. */
  fault?: FaultKind
  /** Whether it cost a primary rate-limit point. */
  charged: boolean
  openapi: OpenApiResult
  /** Set when the fake itself failed (answered 500); a bug in the fake or a bad scenario. */
  error?: string
}

export interface RateLimitCounters {
  /** API requests received (every one, 304s and faults included). */
  requestsSent: number
  /** Primary-limit points spent: every answered API request except 304s and /rate_limit. */
  pointsSpent: number
  /** 304 Not Modified answers. */
  notModified: number
  limit: number
  /** Points used in the current hour window. */
  used: number
  /** Virtual ms epoch at which the window resets. */
  resetAt: number
}

/** A commit that is not in git: declared in `scenario.commits`, or a made-up branch head. */
export interface CommitRecord {
  sha: string
  tree: string
  parents: string[]
  message: string
}

export interface PullRecord {
  number: number
  head: string
  base: string
  title: string
  body: string | null
  draft: boolean
  state: 'open' | 'closed'
  createdAt: number
  updatedAt: number
}

export interface IssueRecord {
  number: number
  title: string
  body: string | null
  state: 'open' | 'closed'
  labels: string[]
  /** Set when this issue is a pull request. */
  pull?: number
  createdAt: number
  updatedAt: number
}

export interface CommentRecord {
  id: number
  issue: number
  body: string
  user: string
  createdAt: number
  updatedAt: number
}

export interface CreatedStatus {
  sha: string
  context: string
  state: StatusState
  description: string | null
  targetUrl: string | null
  createdAt: number
}

/** Heads a branch has pointed to: `initial` when the fake started, then each new one. */
export interface HeadHistory {
  initial: string | null
  pushed: string[]
}

/** The fake's mutable data. Tests may read it and change it between requests. */
export interface FakeState {
  owner: string
  repo: string
  defaultBranch: string
  actor: string
  collaborators: Record<string, CollaboratorRole>
  /** Branch → head SHA (git's `refs/heads/*` are merged in before every request). */
  branches: Record<string, string>
  heads: Record<string, HeadHistory>
  /** Virtual time at which each SHA was first concerned by a request or became a head. */
  shaSeenAt: Record<string, number>
  /** Commits outside git (declared or made up); git commits are read from git. */
  commits: Record<string, CommitRecord>
  /** Check-run plans; re-runs append theirs (with `sha`, `runId`, `runAttempt`, `startsAt`). */
  checkRuns: CheckRunPlan[]
  /** Workflow-run plans; each dispatch appends one. */
  workflowRuns: WorkflowRunPlan[]
  dispatches: DispatchRecord[]
  statuses: StatusPlan[]
  /** Statuses created through `POST /repos/{o}/{r}/statuses/{sha}`. */
  createdStatuses: CreatedStatus[]
  pulls: PullRecord[]
  issues: IssueRecord[]
  comments: CommentRecord[]
  labels: string[]
  /** Active faults; each fires until its count runs out. */
  faults: FaultSpec[]
}

/** A check run as the API would show it now. */
export interface CheckRunView {
  id: number
  sha: string
  name: string
  app: string
  status: CheckStatus
  conclusion: CheckConclusion | null
  startedAt: number
  completedAt: number | null
  runId: number | null
  runAttempt: number
  checkSuiteId: number
  workflow: string | null
  detailsUrl: string
  htmlUrl: string
  plan: CheckRunPlan
}

export interface FakeGitHub {
  /** Put this in GITHUB_API_URL (includes the prefix). */
  apiUrl: string
  /** Put this in GITHUB_SERVER_URL. */
  serverUrl: string
  /** `${serverUrl}/${owner}/${repo}.git`: git fetch and clone (read-only). */
  gitUrl: string
  /**
   * The bare repository behind branches, contents and git over HTTP (created on first use;
   * `scenario.gitDir` when given). Push to it directly to simulate a push.
   */
  readonly gitDir: string
  /** Virtual time as the project's `Clock`: `sleep` moves it forward and resolves. */
  clock: Clock
  /**
   * The API without a socket: a `fetch` that answers requests to `apiUrl` (and the
   * redirects it gives) in memory, through the same validation, faults and rate-limit
   * accounting as the HTTP server. Give it to Octokit as `request.fetch` in-process.
   */
  fetch: typeof fetch
  state: FakeState
  /** Every API request, in order of arrival (control endpoints under /_fake/ excluded). */
  requests: RecordedRequest[]
  /** Requests that failed OpenAPI validation (reasons in `openapi.errors`). */
  invalidRequests(): RecordedRequest[]
  /** Requests answered 404 because the fake does not serve that route. */
  unimplementedRequests(): RecordedRequest[]
  /** The requests that ask GitHub to change something (not a GET, nor a GraphQL query). */
  writeRequests(): RecordedRequest[]
  /** Git smart-HTTP requests, in order of arrival. */
  gitRequests: GitRequest[]
  rateLimit: RateLimitCounters
  /** The fake's time, ms epoch. */
  now(): number
  /** Moves virtual time forward; returns the new time. Throws in real-time mode. */
  advance(ms: number): number
  /** Sets virtual time (backward too). Throws in real-time mode. */
  setNow(ms: number): void
  addFault(fault: FaultSpec): void
  clearFaults(): void
  /** Points a branch at a SHA (a push), recording the new head. */
  setBranch(name: string, sha: string): void
  /** Heads of a branch in order (initial first when it existed at start). */
  headsOf(branch: string): string[]
  /** Check runs visible for a SHA at the current virtual time (every attempt). */
  checkRunsFor(sha: string): CheckRunView[]
  /**
   * Commits `files` (path → UTF-8 text) on top of the branch head (a root commit for a new
   * branch or one at a made-up SHA) and moves the branch: a push. `{}` makes an empty commit
   * (same tree as its parent), like gh-aw's "ci: trigger checks". Returns the commit SHA.
   */
  commit(branch: string, files: Record<string, string>, message: string): string
  /**
   * What gh-aw's `push_repo_memory` does: commits the whole given files over the branch
   * head, silently reverting other writers' changes to them. Returns the commit SHA.
   */
  memoryPush(branch: string, files: Record<string, string>, message?: string): string
  /** A file's UTF-8 text at a branch or commit, read from git; undefined when absent. */
  readFile(ref: string, path: string): string | undefined
  close(): Promise<void>
}
