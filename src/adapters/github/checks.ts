/**
 * A commit's check runs and statuses, and what gathering a failure reads of a check run: its
 * output, its annotations, its job's log (FailureSources).
 */
import { PAGE_SIZE, type RestRequests } from './requests.js'
import type { CheckRunInfo, ChecksSnapshot, CommitStatusInfo } from '../../core/checks/reduce.js'
import { httpStatus } from '../../core/errors.js'
import type { AnnotationInfo, CheckRunOutput } from '../../ports.js'

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

export class RestChecks {
  /**
   * Each check run's output as its commit's listing last showed it: the listing carries the
   * same output as the check run itself, so gathering a failure needs no request of its own.
   */
  private readonly listedOutputs = new Map<number, CheckRunOutput>()

  constructor(private readonly api: RestRequests) {}

  async readChecks(
    sha: string,
    options: { skipStatuses?: (checkRuns: CheckRunInfo[]) => boolean } = {}
  ): Promise<ChecksSnapshot> {
    const runs = await this.api.allPages(
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
      : await this.api.allPages(
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

  async checkRunOutput(checkRunId: number): Promise<CheckRunOutput> {
    const listed = this.listedOutputs.get(checkRunId)
    if (listed) return listed
    const { data } = await this.api.client.rest.checks.get({
      ...this.api.repo,
      check_run_id: checkRunId
    })
    return {
      title: data.output.title,
      summary: data.output.summary,
      text: data.output.text,
      annotationsCount: data.output.annotations_count
    }
  }

  async annotations(checkRunId: number): Promise<AnnotationInfo[]> {
    const { client } = this.api
    const all = await client.paginate(client.rest.checks.listAnnotations, {
      ...this.api.repo,
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
      const response = await this.api.client.request(
        'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs',
        {
          ...this.api.repo,
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
}
