/**
 * The chaos suite's oracle: the verdict SPEC §3 gives for a scenario's checks at a moment,
 * computed from the scenario plan alone. Written from the SPEC, sharing no code with
 * `src/checks/**`, so a bug in the reduction cannot hide itself.
 */
import type { CheckRunPlan, StatusPlan } from '../../__fixtures__/fake-github/index.js'

export type TrueVerdict = 'green' | 'red' | 'no-checks' | 'pending'

export interface OraclePolicy {
  requiredChecks: readonly string[]
  failFast: boolean
  /** The gate's own workflow run: its jobs are never counted. */
  ownRunId: number
}

const RED_CONCLUSIONS = [
  'failure',
  'timed_out',
  'cancelled',
  'action_required',
  'startup_failure',
  'stale'
]
const OK_CONCLUSIONS = ['success', 'neutral', 'skipped']

interface Counted {
  name: string
  done: boolean
  failed: boolean
  ok: boolean
  succeeded: boolean
}

/** What one check-run plan shows at `at` (ms epoch), or null while it is invisible. */
function checkRunAt(plan: CheckRunPlan, appearedAt: number, at: number) {
  const events = plan.timeline
    .map((event) => ({ ...event, time: appearedAt + event.at * 1000 }))
    .sort((a, b) => a.time - b.time)
  const shown = events.filter((event) => event.time <= at)
  const last = shown[shown.length - 1]
  if (!last || events[0] === undefined) return null
  return {
    firstSeen: events[0].time,
    status: last.status,
    conclusion: last.status === 'completed' ? (last.conclusion ?? 'success') : null
  }
}

/**
 * The verdict for the check runs as they were at `checkRunsAt` and the commit statuses as
 * they were at `statusesAt` (the two reads of one poll), the grace period being over.
 */
export function trueVerdict(
  plans: { checkRuns: readonly CheckRunPlan[]; statuses: readonly StatusPlan[] },
  appearedAt: number,
  checkRunsAt: number,
  statusesAt: number,
  policy: OraclePolicy
): TrueVerdict {
  const counted: Counted[] = []

  // Check runs: the newest attempt per name (the one that appeared last), own jobs left out.
  const newest = new Map<string, { order: number; firstSeen: number; plan: CheckRunPlan }>()
  plans.checkRuns.forEach((plan, order) => {
    const seen = checkRunAt(plan, appearedAt, checkRunsAt)
    if (!seen) return
    const current = newest.get(plan.name)
    if (!current || seen.firstSeen >= current.firstSeen)
      newest.set(plan.name, { order, firstSeen: seen.firstSeen, plan })
  })
  for (const { plan } of newest.values()) {
    if (plan.runId === policy.ownRunId) continue
    const seen = checkRunAt(plan, appearedAt, checkRunsAt)
    if (!seen) continue
    const done = seen.status === 'completed'
    const conclusion = seen.conclusion ?? ''
    counted.push({
      name: plan.name,
      done,
      failed: done && RED_CONCLUSIONS.includes(conclusion),
      ok: done && OK_CONCLUSIONS.includes(conclusion),
      succeeded: done && conclusion === 'success'
    })
  }

  // Commit statuses: the newest state per context.
  for (const plan of plans.statuses) {
    const shown = plan.timeline
      .map((event, index) => ({ ...event, index, time: appearedAt + event.at * 1000 }))
      .filter((event) => event.time <= statusesAt)
      .sort((a, b) => a.time - b.time || a.index - b.index)
    const last = shown[shown.length - 1]
    if (!last) continue
    counted.push({
      name: plan.context,
      done: last.state !== 'pending',
      failed: last.state === 'failure' || last.state === 'error',
      ok: last.state === 'success',
      succeeded: last.state === 'success'
    })
  }

  const anyFailed = counted.some((check) => check.failed)
  const anyRunning = counted.some((check) => !check.done)
  if (anyFailed && (policy.failFast || !anyRunning)) return 'red'
  if (anyRunning) return 'pending'
  for (const name of policy.requiredChecks) {
    const required = counted.filter((check) => check.name === name)
    if (required.length === 0 || required.some((check) => !check.ok)) return 'red'
  }
  if (!counted.some((check) => check.succeeded)) return 'no-checks'
  return 'green'
}
