/**
 * The GitHub event that started a `settle` run, read for one thing only (README: "Settling on
 * events"): which commit, or which program, to look at. Pure. A payload is never the verdict:
 * `settle` reads the checks of that commit itself, so an event that is late, repeated, out of
 * order or about another commit can only make it look, never make it decide.
 *
 * The shapes are GitHub's webhook payloads for `workflow_run`, `check_suite`, `check_run` and
 * `status`, and the `workflow_dispatch` payload's `inputs`; `schedule` (and a payload-less
 * run) looks at every waiting attempt.
 */
import { z } from 'zod'

export type SettleTarget =
  /**
   * Look at the attempts waiting on `sha`: the commit alone says which (`branch` is the one the
   * event names, when it names one; an event for another branch names another commit).
   */
  | { kind: 'commit'; sha: string; branch: string | null; what: string }
  /** Look at every waiting attempt, or the one of `program`. */
  | { kind: 'waiting'; program: string | null; what: string }
  /** Nothing to look at: why. */
  | { kind: 'ignored'; why: string }

const sha = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/)
const repo = z.object({ full_name: z.string() }).nullable().optional()

const WorkflowRunEvent = z.object({
  action: z.string(),
  workflow_run: z.object({
    id: z.number(),
    name: z.string().nullable().optional(),
    head_sha: sha,
    head_branch: z.string().nullable(),
    head_repository: repo,
    run_attempt: z.number().optional()
  }),
  repository: repo
})

const CheckSuiteEvent = z.object({
  action: z.string(),
  check_suite: z.object({ head_sha: sha, head_branch: z.string().nullable() })
})

const CheckRunEvent = z.object({
  action: z.string(),
  check_run: z.object({
    name: z.string(),
    head_sha: sha,
    check_suite: z.object({ head_branch: z.string().nullable() }).optional()
  })
})

const StatusEvent = z.object({
  sha,
  context: z.string(),
  state: z.string(),
  branches: z.array(z.object({ name: z.string() })).optional()
})

const DispatchEvent = z.object({
  inputs: z.record(z.string(), z.unknown()).nullable().optional()
})

/** Which events `settle` knows, and what each says. */
export const SETTLE_EVENTS = [
  'workflow_run',
  'check_suite',
  'check_run',
  'status',
  'workflow_dispatch',
  'schedule'
] as const

function shapeProblem(event: string, error: z.ZodError): SettleTarget {
  const issue = error.issues[0]
  return {
    kind: 'ignored',
    why: `the ${event} payload is not the shape GitHub sends (${issue ? `${issue.path.join('.') || 'payload'}: ${issue.message}` : 'unreadable'}); nothing to settle`
  }
}

/** What the event of a `settle` run points at (see the module comment). */
export function settleTargetOf(event: string | undefined, payload: unknown): SettleTarget {
  switch (event) {
    case 'workflow_run': {
      const parsed = WorkflowRunEvent.safeParse(payload)
      if (!parsed.success) return shapeProblem(event, parsed.error)
      const { action, workflow_run: run, repository } = parsed.data
      if (action !== 'completed')
        return { kind: 'ignored', why: `workflow_run ${action}: only a completed run can settle` }
      const head = run.head_repository?.full_name
      if (head && repository?.full_name && head !== repository.full_name)
        return {
          kind: 'ignored',
          why: `workflow run ${run.id} ran on a fork's commit (${head}): a fork never settles a program of this repository`
        }
      return {
        kind: 'commit',
        sha: run.head_sha,
        branch: run.head_branch,
        what: `workflow run ${run.id}${run.name ? ` (${run.name})` : ''} completed`
      }
    }
    case 'check_suite': {
      const parsed = CheckSuiteEvent.safeParse(payload)
      if (!parsed.success) return shapeProblem(event, parsed.error)
      const { action, check_suite: suite } = parsed.data
      if (action !== 'completed')
        return { kind: 'ignored', why: `check_suite ${action}: only a completed suite can settle` }
      return {
        kind: 'commit',
        sha: suite.head_sha,
        branch: suite.head_branch,
        what: 'a check suite completed'
      }
    }
    case 'check_run': {
      const parsed = CheckRunEvent.safeParse(payload)
      if (!parsed.success) return shapeProblem(event, parsed.error)
      const { action, check_run: check } = parsed.data
      if (action !== 'completed')
        return { kind: 'ignored', why: `check_run ${action}: only a completed check can settle` }
      return {
        kind: 'commit',
        sha: check.head_sha,
        branch: check.check_suite?.head_branch ?? null,
        what: `check run ${check.name} completed`
      }
    }
    case 'status': {
      const parsed = StatusEvent.safeParse(payload)
      if (!parsed.success) return shapeProblem(event, parsed.error)
      const status = parsed.data
      if (status.state === 'pending')
        return { kind: 'ignored', why: `status ${status.context} is pending: nothing completed` }
      return {
        kind: 'commit',
        sha: status.sha,
        branch: status.branches?.length === 1 ? (status.branches[0]?.name ?? null) : null,
        what: `status ${status.context} is ${status.state}`
      }
    }
    case 'workflow_dispatch': {
      const parsed = DispatchEvent.safeParse(payload)
      if (!parsed.success) return shapeProblem(event, parsed.error)
      const program = parsed.data.inputs?.program
      return {
        kind: 'waiting',
        program: typeof program === 'string' && program !== '' ? program : null,
        what: 'started by workflow_dispatch'
      }
    }
    case 'schedule':
    case undefined:
      return {
        kind: 'waiting',
        program: null,
        what: event ? 'scheduled' : 'started outside an event'
      }
    default:
      return {
        kind: 'ignored',
        why: `the ${event} event is not one settle knows (${SETTLE_EVENTS.join(', ')}); nothing to settle. Trigger the settle workflow on workflow_run completed (README: "Settling on events")`
      }
  }
}
