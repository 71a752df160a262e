/**
 * Every port the commands (app/) are written against, in domain terms (README: "Development").
 * adapters/ implement them (GitHub over Octokit, git, the stores, the clock, the log); tests
 * implement them in memory. No Octokit type crosses this boundary.
 */
import type { CheckRunInfo, ChecksSnapshot } from './core/checks/reduce.js'
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
} from './core/github.js'

export interface GitHubPort {
  readonly repo: RepoRef
  defaultBranch(): Promise<string>
  /** Head SHA of a branch, or null when the branch does not exist. */
  branchHead(branch: string): Promise<string | null>
  getPull(number: number): Promise<PullInfo | null>
  findOpenPull(branch: string): Promise<PullInfo | null>
  /**
   * Where a branch stands, in one read (README: "How checks become a verdict"): what `branchHead`, `commit`,
   * `findOpenPull`, `defaultBranch` and the base's `branchHead` would say. Null when it cannot
   * be read at once (GraphQL refused): the caller asks those one by one.
   */
  standing?(query: StandingQuery): Promise<BranchStanding | null>
  createDraftPull(input: {
    title: string
    head: string
    base: string
    body: string
  }): Promise<PullInfo>
  /**
   * Every check run (all pages, all re-runs) and the latest status per context of one SHA. With
   * `skipStatuses`, the statuses are not read (and listed as none) when it says the check runs
   * alone settle the question.
   */
  readChecks(
    sha: string,
    options?: { skipStatuses?: (checkRuns: CheckRunInfo[]) => boolean }
  ): Promise<ChecksSnapshot>
  /** Status of a workflow run. */
  workflowRunStatus(runId: number): Promise<WorkflowRunState>
  /** A commit's tree and parents, or null when there is no such commit. */
  commit(sha: string): Promise<CommitInfo | null>
  /** The workflow runs of one commit (to find runs waiting for approval). */
  workflowRunsOf(sha: string): Promise<WorkflowRunInfo[]>
  /** Starts a workflow with `workflow_dispatch`; the run, when GitHub says which. */
  dispatchWorkflow(request: DispatchRequest): Promise<{ runId: number | null; url: string | null }>
  /** The latest attempt of each job of a workflow run, with its steps. */
  workflowRunJobs(runId: number): Promise<WorkflowJobInfo[]>
  /**
   * The earliest `workflow_dispatch` run of `workflow` on `ref` created at or after `since`
   * (epoch ms): the run a dispatch started when GitHub did not say which. Null when none.
   */
  findDispatchedRun(query: {
    workflow: string
    ref: string
    since: number
  }): Promise<{ runId: number; url: string } | null>
  /** Branches whose name starts with `prefix`, with their head SHAs. */
  branchesStartingWith(prefix: string): Promise<{ name: string; sha: string }[]>
  /** PRs (open or closed) into `base` whose head branch starts with `headPrefix`, newest first. */
  pullsInto(base: string, headPrefix: string): Promise<(PullInfo & { createdAt: number })[]>
  /** Re-runs the failed jobs of a workflow run. */
  rerunFailedJobs(runId: number): Promise<void>
}

/**
 * Time is a port: production code reads it from here and never from `Date.now()` or
 * `setTimeout` directly, so guards, timeouts and backoff are tested without sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
  /** Waits `ms` milliseconds of this clock's time. */
  sleep(ms: number): Promise<void>
}

/** Logging is a port too, so orchestration is tested without @actions/core. */
export interface Logger {
  debug(message: string): void
  info(message: string): void
  warning(message: string): void
  error(message: string): void
  group<T>(title: string, body: () => Promise<T>): Promise<T>
}

export interface StoredState {
  text: string
  /** Opaque: a content hash (local folder) or the blob SHA (contents API). */
  version: string
}

/** Several files of a store read together, with the version of the whole store. */
export interface StoreSnapshot {
  files: (StoredState | null)[]
  /** The version of the whole store (a branch's head commit); null when it has none yet. */
  head: string | null
}

/** Where a program's files live: read with a version, write only if it is still that version. */
export interface StateStore {
  /** A short description for messages, e.g. `folder /tmp/x` or `branch memory/autoloop`. */
  readonly description: string
  /** The file at `path` (relative to the store, `/`-separated), or null when there is none. */
  read(path: string): Promise<StoredState | null>
  /**
   * Several files read together, in the order given, with the version of the whole store
   * (the branch head) that `writeMany` compares against.
   */
  readMany?(paths: readonly string[]): Promise<StoreSnapshot>
  /**
   * Writes the files in one change if nothing in the store moved since `head` (StateConflictError
   * otherwise): the new head and each file's version.
   */
  writeMany?(
    files: readonly { path: string; text: string }[],
    head: string
  ): Promise<{ head: string; versions: string[] }>
  /**
   * Writes `text` if the stored version is still `expectedVersion` (null: the file must not
   * exist yet). Throws StateConflictError when it moved.
   */
  write(path: string, text: string, expectedVersion: string | null): Promise<{ version: string }>
  /** Program names with a state file (`<program>.md` at the root), sorted. */
  list(): Promise<string[]>
}

/** A branch's head and some of its files, read in one request. */
export interface BranchFiles {
  head: string | null
  files: ({ text: string; sha: string } | null)[]
}

/** The few contents-API calls the branch store needs; no GitHub types cross this line. */
export interface ContentsApi {
  /** The file and its blob SHA, or null when the file (or the branch) does not exist. */
  getFile(branch: string, path: string): Promise<{ text: string; sha: string } | null>
  /** The branch's head and several of its files in one request (null: no such file or branch). */
  getFiles?(branch: string, paths: readonly string[]): Promise<BranchFiles>
  /**
   * Commits the files in one commit if the branch head is still `head`; throws
   * ContentsConflictError when it moved.
   */
  commitFiles?(
    branch: string,
    head: string,
    files: readonly { path: string; text: string }[],
    message: string
  ): Promise<{ head: string }>
  /**
   * Creates (`sha` null) or updates the file; throws ContentsConflictError when `sha` is no
   * longer the file's blob SHA (GitHub answers 409 or 422) or the file exists when `sha` is null.
   */
  putFile(
    branch: string,
    path: string,
    text: string,
    sha: string | null,
    message: string
  ): Promise<{ sha: string }>
  /** File names directly under `path` (empty when the folder or the branch does not exist). */
  listDir(branch: string, path: string): Promise<string[]>
  /** Creates the branch (from the default branch's head) when it does not exist. */
  ensureBranch(branch: string): Promise<void>
}

/** The checkout the action runs in: its head, and a push that never forces. */
export interface GitPort {
  headSha(): Promise<string>
  /** Pushes `sha` to `refs/heads/<branch>` on the remote, never forcing. */
  push(sha: string, branch: string): Promise<void>
}

export interface MemorySnapshot {
  /** The commit the files were read at. */
  commit: string
  /** Root `*.md` files and `ci-gate/*.json` files, by path, with their blob SHAs as versions. */
  files: Map<string, StoredState>
}

/** gh-aw's memory branch as git sees it (read once per reconcile). */
export interface MemoryBranchReader {
  /** The branch's files, or null when the branch does not exist. */
  read(branch: string): Promise<MemorySnapshot | null>
}

export interface AnnotationInfo {
  path: string
  level: string
  title: string | null
  message: string
}

export interface CheckRunOutput {
  title: string | null
  summary: string | null
  text: string | null
  annotationsCount: number
}

/** What gathering reads from GitHub; RestGitHub implements it. */
export interface FailureSources {
  checkRunOutput(checkRunId: number): Promise<CheckRunOutput>
  annotations(checkRunId: number): Promise<AnnotationInfo[]>
  /** The job log as a byte stream, or null when it is gone (expired, deleted, not kept). */
  jobLog(jobId: number): Promise<AsyncIterable<Uint8Array> | null>
}

export interface IssueComment {
  id: number
  body: string
}

/** The program issue's comments and labels. */
export interface IssuesPort {
  /** Every comment of the issue, oldest first (all pages). */
  listComments(issue: number): Promise<IssueComment[]>
  createComment(issue: number, body: string): Promise<IssueComment>
  updateComment(commentId: number, body: string): Promise<void>
  /** The issue's label names. */
  issueLabels(issue: number): Promise<string[]>
  addLabel(issue: number, label: string): Promise<void>
  /** Removes a label; a label the issue does not have is not an error. */
  removeLabel(issue: number, label: string): Promise<void>
}

export type CommentWrite = 'created' | 'updated' | 'unchanged'

/**
 * A `.github/workflows/` folder the doctor reads (docs/commands.md: "doctor"): a checkout's, or a
 * branch's through the contents API.
 */
export interface WorkflowFolder {
  /** Where it is read, as the report names it (`local: <dir>`, `contents API at <branch>`). */
  readonly source: string
  /** The names of the files directly in it; null when there is no such folder. */
  names(): Promise<string[] | null>
  /** The text of the file `name` in it; null when it is not there. */
  read(name: string): Promise<string | null>
}

/** What the doctor asks the API; RestGitHub implements it. */
export interface DoctorApi {
  defaultBranch(): Promise<string>
  branchHead(branch: string): Promise<string | null>
  getFile(branch: string, path: string): Promise<{ text: string } | null>
  /** File names directly under `path`; empty when the folder does not exist. */
  listDir(branch: string, path: string): Promise<string[]>
}
