/**
 * What the commands need from GitHub, in domain terms. `RestGitHub` implements it over
 * Octokit; tests can implement it in memory. No Octokit type crosses this boundary.
 */
import type { ChecksSnapshot } from '../checks/reduce.js'

export interface PullInfo {
  number: number
  url: string
  headSha: string
  headRef: string
  /** The branch the PR merges into. */
  baseRef: string
  draft: boolean
  state: string
}

export interface RepoRef {
  owner: string
  repo: string
}

/** A workflow run as `reconcile` needs it: is it still running, and which attempt is latest. */
export type WorkflowRunState =
  | { kind: 'found'; status: string; conclusion: string | null; runAttempt: number | null }
  | { kind: 'not-found' }
  /** The token may not read Actions runs (HTTP 403): the caller cannot tell. */
  | { kind: 'forbidden' }

export interface GitHubPort {
  readonly repo: RepoRef
  defaultBranch(): Promise<string>
  /** Head SHA of a branch, or null when the branch does not exist. */
  branchHead(branch: string): Promise<string | null>
  getPull(number: number): Promise<PullInfo | null>
  findOpenPull(branch: string): Promise<PullInfo | null>
  createDraftPull(input: {
    title: string
    head: string
    base: string
    body: string
  }): Promise<PullInfo>
  /** Every check run (all pages, all re-runs) and the latest status per context of one SHA. */
  readChecks(sha: string): Promise<ChecksSnapshot>
  /** The check suite id of a workflow run, or undefined when it cannot be read. */
  workflowRunCheckSuiteId(runId: number): Promise<number | undefined>
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

export interface CommitInfo {
  sha: string
  tree: string
  parents: string[]
  /** The committer's time (epoch ms), when GitHub gave one. */
  committedAt?: number
}

export interface WorkflowRunInfo {
  id: number
  name: string
  event: string
  status: string
  conclusion: string | null
  url: string
}

export interface WorkflowJobInfo {
  name: string
  status: string
  conclusion: string | null
  url: string
  steps: { name: string; status: string; conclusion: string | null }[]
}

export interface DispatchRequest {
  /** The workflow file name (`autoloop.lock.yml`) or id. */
  workflow: string
  ref: string
  inputs: Record<string, string>
}
