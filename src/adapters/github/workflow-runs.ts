/**
 * GitHub Actions workflow runs: a run's status and jobs, the runs of a commit, starting a
 * workflow (`workflow_dispatch`) and finding the run it started, re-running failed jobs.
 */
import { PAGE_SIZE, type RestRequests } from './requests.js'
import type {
  DispatchRequest,
  WorkflowJobInfo,
  WorkflowRunInfo,
  WorkflowRunState
} from '../../core/github.js'
import { httpStatus } from '../../core/errors.js'

export class RestWorkflowRuns {
  constructor(private readonly api: RestRequests) {}

  async workflowRunStatus(runId: number): Promise<WorkflowRunState> {
    try {
      const run = await this.api.conditionalGet<{
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

  async workflowRunsOf(sha: string): Promise<WorkflowRunInfo[]> {
    const runs = await this.api.allPages(
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
    const response = await this.api.client.request(
      'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
      {
        ...this.api.repo,
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
    const jobs = await this.api.allPages(
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
    const body = await this.api.conditionalGet<{
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

  async rerunFailedJobs(runId: number): Promise<void> {
    await this.api.client.request(
      'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs',
      {
        ...this.api.repo,
        run_id: runId
      }
    )
  }
}
