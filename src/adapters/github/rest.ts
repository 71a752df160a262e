/**
 * GitHubPort over the REST API (and GraphQL where one query saves requests), with the failure
 * sources, the program issue and the state branch's contents. Each part lives in a module of
 * its own, imported below; RestGitHub puts them together behind the ports. Reads that are
 * polled send the last ETag of the same URL, so a `304` costs no rate limit and waiting an
 * hour on one check costs a handful of points.
 */
import type { GitHubClient } from './client.js'
import { RestRequests } from './requests.js'
import { RestRepository } from './repository.js'
import { RestChecks } from './checks.js'
import { RestWorkflowRuns } from './workflow-runs.js'
import { RestIssues } from './issues.js'
import { RestContents } from './contents.js'
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
import type { CheckRunInfo, ChecksSnapshot } from '../../core/checks/reduce.js'
import type {
  AnnotationInfo,
  BranchFiles,
  CheckRunOutput,
  ContentsApi,
  FailureSources,
  GitHubPort,
  IssueComment,
  IssuesPort
} from '../../ports.js'

export { actionsJobOf, toCheckRun } from './checks.js'

export class RestGitHub implements GitHubPort, FailureSources, IssuesPort, ContentsApi {
  /** The ETag cache and the GraphQL reads sent together, shared by every part. */
  private readonly requests: RestRequests
  private readonly repository: RestRepository
  private readonly checks: RestChecks
  private readonly runs: RestWorkflowRuns
  private readonly issues: RestIssues
  private readonly contents: RestContents

  constructor(
    client: GitHubClient,
    readonly repo: RepoRef
  ) {
    this.requests = new RestRequests(client, repo)
    this.repository = new RestRepository(this.requests)
    this.checks = new RestChecks(this.requests)
    this.runs = new RestWorkflowRuns(this.requests)
    this.issues = new RestIssues(this.requests)
    this.contents = new RestContents(this.requests, this.repository)
  }

  /** A GET that sends the last ETag of the same URL and re-uses the cached body on 304. */
  conditionalGet<T>(route: string, params: Record<string, string | number>): Promise<T> {
    return this.requests.conditionalGet<T>(route, params)
  }

  // Branches, commits, pull requests ----------------------------------------------------

  /** See GitHubPort.standing: one GraphQL read; null when GraphQL refuses it. */
  standing(query: StandingQuery): Promise<BranchStanding | null> {
    return this.repository.standing(query)
  }

  defaultBranch(): Promise<string> {
    return this.repository.defaultBranch()
  }

  branchHead(branch: string): Promise<string | null> {
    return this.repository.branchHead(branch)
  }

  getPull(number: number): Promise<PullInfo | null> {
    return this.repository.getPull(number)
  }

  findOpenPull(branch: string): Promise<PullInfo | null> {
    return this.repository.findOpenPull(branch)
  }

  createDraftPull(input: {
    title: string
    head: string
    base: string
    body: string
  }): Promise<PullInfo> {
    return this.repository.createDraftPull(input)
  }

  commit(sha: string): Promise<CommitInfo | null> {
    return this.repository.commit(sha)
  }

  branchesStartingWith(prefix: string): Promise<{ name: string; sha: string }[]> {
    return this.repository.branchesStartingWith(prefix)
  }

  pullsInto(base: string, headPrefix: string): Promise<(PullInfo & { createdAt: number })[]> {
    return this.repository.pullsInto(base, headPrefix)
  }

  // Checks and statuses, failure sources -----------------------------------------------

  readChecks(
    sha: string,
    options?: { skipStatuses?: (checkRuns: CheckRunInfo[]) => boolean }
  ): Promise<ChecksSnapshot> {
    return this.checks.readChecks(sha, options)
  }

  checkRunOutput(checkRunId: number): Promise<CheckRunOutput> {
    return this.checks.checkRunOutput(checkRunId)
  }

  annotations(checkRunId: number): Promise<AnnotationInfo[]> {
    return this.checks.annotations(checkRunId)
  }

  jobLog(jobId: number): Promise<AsyncIterable<Uint8Array> | null> {
    return this.checks.jobLog(jobId)
  }

  // Workflow runs ------------------------------------------------------------------------

  workflowRunStatus(runId: number): Promise<WorkflowRunState> {
    return this.runs.workflowRunStatus(runId)
  }

  workflowRunsOf(sha: string): Promise<WorkflowRunInfo[]> {
    return this.runs.workflowRunsOf(sha)
  }

  dispatchWorkflow(
    request: DispatchRequest
  ): Promise<{ runId: number | null; url: string | null }> {
    return this.runs.dispatchWorkflow(request)
  }

  workflowRunJobs(runId: number): Promise<WorkflowJobInfo[]> {
    return this.runs.workflowRunJobs(runId)
  }

  findDispatchedRun(query: {
    workflow: string
    ref: string
    since: number
  }): Promise<{ runId: number; url: string } | null> {
    return this.runs.findDispatchedRun(query)
  }

  rerunFailedJobs(runId: number): Promise<void> {
    return this.runs.rerunFailedJobs(runId)
  }

  // Program issue ---------------------------------------------------------------------

  listComments(issue: number): Promise<IssueComment[]> {
    return this.issues.listComments(issue)
  }

  createComment(issue: number, body: string): Promise<IssueComment> {
    return this.issues.createComment(issue, body)
  }

  updateComment(commentId: number, body: string): Promise<void> {
    return this.issues.updateComment(commentId, body)
  }

  issueLabels(issue: number): Promise<string[]> {
    return this.issues.issueLabels(issue)
  }

  addLabel(issue: number, label: string): Promise<void> {
    return this.issues.addLabel(issue, label)
  }

  removeLabel(issue: number, label: string): Promise<void> {
    return this.issues.removeLabel(issue, label)
  }

  // State branch (contents API) ---------------------------------------------------------

  getFile(branch: string, path: string): Promise<{ text: string; sha: string } | null> {
    return this.contents.getFile(branch, path)
  }

  getFiles(branch: string, paths: readonly string[]): Promise<BranchFiles> {
    return this.contents.getFiles(branch, paths)
  }

  commitFiles(
    branch: string,
    head: string,
    files: readonly { path: string; text: string }[],
    message: string
  ): Promise<{ head: string }> {
    return this.contents.commitFiles(branch, head, files, message)
  }

  putFile(
    branch: string,
    path: string,
    text: string,
    sha: string | null,
    message: string
  ): Promise<{ sha: string }> {
    return this.contents.putFile(branch, path, text, sha, message)
  }

  listDir(branch: string, path: string): Promise<string[]> {
    return this.contents.listDir(branch, path)
  }

  ensureBranch(branch: string): Promise<void> {
    return this.contents.ensureBranch(branch)
  }
}
