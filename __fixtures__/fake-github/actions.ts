/**
 * GitHub Actions routes: workflow runs (one, or lists with filters), their jobs and logs,
 * `workflow_dispatch`, and re-runs of failed jobs.
 */
import { latestJobs, type WorkflowRunView } from './model.js'
import {
  apiBase,
  errorReply,
  htmlBase,
  jobJson,
  notFound,
  paginate,
  record,
  str,
  workflowRunJson,
  type Handler,
  type HandlerContext,
  type Reply
} from './shapes.js'
import type { CheckRunView } from './types.js'

const RUN_STATUSES = ['queued', 'in_progress', 'completed', 'requested', 'waiting', 'pending']

function findJob(ctx: HandlerContext, id: number): CheckRunView | undefined {
  return ctx.model.allCheckRuns().find((r) => r.id === id && r.runId !== null)
}

/**
 * Whether a run's creation time fits a `created` filter: `>=T`, `>T`, `<=T`, `<T`, `A..B`
 * (`*` open), or a date or time alone (that UTC day for a bare date).
 */
function createdMatches(filter: string, createdAt: number): boolean {
  const at = (text: string, end: boolean): number => {
    if (text === '*') return end ? Infinity : -Infinity
    const parsed = Date.parse(text)
    if (/^\d{4}-\d{2}-\d{2}$/.test(text) && end) return parsed + 86_400_000 - 1
    return parsed
  }
  const op = /^(>=|<=|>|<)(.+)$/.exec(filter)
  if (op?.[1] && op[2]) {
    const bound = at(op[2], op[1].startsWith('<'))
    if (op[1] === '>=') return createdAt >= bound
    if (op[1] === '>') return createdAt > bound
    if (op[1] === '<=') return createdAt <= bound
    return createdAt < bound
  }
  const [from = filter, to = filter] = filter.split('..')
  return createdAt >= at(from, false) && createdAt <= at(to, true)
}

/**
 * Runs that pass the list filters. `status` takes a status or a conclusion; as on GitHub,
 * `action_required` finds nothing: runs waiting for approval are `completed` with that
 * conclusion and are found by listing and reading `conclusion` (see the README).
 */
function filterRuns(ctx: HandlerContext, runs: WorkflowRunView[]): WorkflowRunView[] {
  const q = ctx.query
  const status = q.get('status')
  const created = q.get('created')
  return runs.filter(
    (run) =>
      (q.get('event') === null || run.event === q.get('event')) &&
      (q.get('branch') === null || run.headBranch === q.get('branch')) &&
      (q.get('head_sha') === null || run.sha === q.get('head_sha')) &&
      (q.get('actor') === null || q.get('actor') === ctx.model.state.actor) &&
      (q.get('check_suite_id') === null || run.checkSuiteId === Number(q.get('check_suite_id'))) &&
      (created === null || createdMatches(created, run.createdAt)) &&
      (status === null ||
        (status !== 'action_required' &&
          (RUN_STATUSES.includes(status) ? run.status === status : run.conclusion === status)))
  )
}

function listRuns(ctx: HandlerContext, runs: WorkflowRunView[]): Reply {
  const matching = filterRuns(ctx, runs)
  const { page, headers } = paginate(ctx, matching)
  return {
    status: 200,
    headers,
    body: { total_count: matching.length, workflow_runs: page.map((r) => workflowRunJson(ctx, r)) }
  }
}

export const actionsRoutes: Record<string, Handler> = {
  'GET /repos/{owner}/{repo}/actions/runs': (ctx) => listRuns(ctx, ctx.model.workflowRuns()),

  'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs': (ctx) => {
    const workflow = ctx.model.findWorkflow(ctx.params.workflow_id ?? '')
    if (!workflow) return notFound()
    return listRuns(
      ctx,
      ctx.model.workflowRuns().filter((r) => r.workflow.path === workflow.path)
    )
  },

  'GET /repos/{owner}/{repo}/actions/runs/{run_id}': (ctx) => {
    const run = ctx.model.workflowRun(Number(ctx.params.run_id))
    return run ? { status: 200, body: workflowRunJson(ctx, run) } : notFound()
  },

  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs': (ctx) => {
    const run = ctx.model.workflowRun(Number(ctx.params.run_id))
    if (!run) return notFound()
    const jobs =
      (ctx.query.get('filter') ?? 'latest') === 'latest' ? latestJobs(run.jobs) : run.jobs
    jobs.sort((a, b) => a.id - b.id)
    const { page, headers } = paginate(ctx, jobs)
    return {
      status: 200,
      headers,
      body: { total_count: jobs.length, jobs: page.map((j) => jobJson(ctx, j)) }
    }
  },

  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}': (ctx) => {
    const job = findJob(ctx, Number(ctx.params.job_id))
    return job ? { status: 200, body: jobJson(ctx, job) } : notFound()
  },

  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs': (ctx) => {
    const job = findJob(ctx, Number(ctx.params.job_id))
    if (!job || job.status !== 'completed') return notFound()
    if (job.plan.logExpired)
      return errorReply(job.plan.logExpired, job.plan.logExpired === 410 ? 'Gone' : 'Not Found')
    return { status: 302, headers: { location: `${ctx.origin}/_fake/logs/${job.id}` } }
  },

  'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches': (ctx) => {
    const workflowId = ctx.params.workflow_id ?? ''
    const workflow = ctx.model.findWorkflow(workflowId)
    if (!workflow) return notFound()
    const body = record(ctx.body)
    const ref = str(body.ref) ?? ''
    const dispatch = ctx.model.dispatch(workflow, workflowId, ref, record(body.inputs))
    if (!dispatch) return errorReply(422, `No ref found for: ${ref}`)
    if (body.return_run_details !== true || !ctx.model.lastDispatchDetails) return { status: 204 }
    return {
      status: 200,
      body: {
        workflow_run_id: dispatch.runId,
        run_url: `${apiBase(ctx)}/actions/runs/${dispatch.runId}`,
        html_url: `${htmlBase(ctx)}/actions/runs/${dispatch.runId}`
      }
    }
  },

  'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs': (ctx) => {
    const run = ctx.model.workflowRun(Number(ctx.params.run_id))
    if (!run) return notFound()
    if (run.status !== 'completed') return errorReply(403, 'This workflow is already running')
    const failed = ctx.model.failedJobs(run)
    if (failed.length === 0) return errorReply(403, 'This workflow run cannot be retried')
    ctx.model.rerun(run, failed)
    return { status: 201, body: {} }
  },

  'POST /repos/{owner}/{repo}/actions/jobs/{job_id}/rerun': (ctx) => {
    const job = findJob(ctx, Number(ctx.params.job_id))
    const run = job?.runId ? ctx.model.workflowRun(job.runId) : undefined
    if (!job || !run) return notFound()
    if (run.status !== 'completed') {
      return errorReply(403, 'The workflow run containing this job is already running')
    }
    const latest = latestJobs(run.jobs).find((j) => j.name === job.name) ?? job
    ctx.model.rerun(run, [latest])
    return { status: 201, body: {} }
  }
}
