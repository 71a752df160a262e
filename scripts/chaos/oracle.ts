/**
 * The chaos suite's oracle: what the gate may say about a scenario's checks at a moment,
 * computed from the plans alone (the scenario's, and the re-run attempts the fake started).
 * Written from the rules in docs/decisions.md ("How checks become a verdict", "Whose failure it is"),
 * sharing no code with `src/`, so a bug in the reduction or the classification cannot hide
 * itself.
 */
import type { CheckRunPlan, StatusPlan } from '../../__fixtures__/fake-github/index.js'

/**
 * - `green`: every counted check passed, one at least;
 * - `red`: a counted check failed;
 * - `blocked`: red with a check waiting for a maintainer's approval (`action_required`);
 * - `no-checks`: nothing counted reported, or only skipped and neutral checks;
 * - `pending`: still running.
 */
export type TrueVerdict = 'green' | 'red' | 'blocked' | 'no-checks' | 'pending'

export interface OraclePolicy {
  requiredChecks: readonly string[]
  failFast: boolean
  /** The gate's own workflow run: its jobs are never counted. */
  ownRunId: number
  /** `pre-existing-failures`. */
  preExisting: 'allow' | 'block'
  /** Checks that fail on the base branch head the same way as on the head (same output). */
  baseTwins: readonly string[]
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

export interface CountedCheck {
  name: string
  kind: 'check-run' | 'status'
  done: boolean
  failed: boolean
  ok: boolean
  succeeded: boolean
  conclusion: string | null
  /** For a check run: its plan's attempt (a re-run is attempt 2 or later). */
  attempt: number
}

/** What one check-run plan shows at `at` (ms epoch), or null while it is invisible. */
function checkRunAt(plan: CheckRunPlan, appearedAt: number, at: number) {
  const from = plan.startsAt ?? appearedAt
  const events = plan.timeline
    .map((event) => ({ ...event, time: from + event.at * 1000 }))
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
 * The checks the gate counts, as they were: check runs at `checkRunsAt` (the newest attempt
 * per name, the gate's own run left out) and commit statuses at `statusesAt`.
 */
export function countedChecks(
  plans: { checkRuns: readonly CheckRunPlan[]; statuses: readonly StatusPlan[] },
  appearedAt: number,
  checkRunsAt: number,
  statusesAt: number,
  ownRunId: number
): CountedCheck[] {
  const counted: CountedCheck[] = []
  const newest = new Map<string, { firstSeen: number; plan: CheckRunPlan }>()
  for (const plan of plans.checkRuns) {
    const seen = checkRunAt(plan, appearedAt, checkRunsAt)
    if (!seen) continue
    const current = newest.get(plan.name)
    if (!current || seen.firstSeen >= current.firstSeen)
      newest.set(plan.name, { firstSeen: seen.firstSeen, plan })
  }
  for (const { plan } of newest.values()) {
    if (plan.runId === ownRunId) continue
    const seen = checkRunAt(plan, appearedAt, checkRunsAt)
    if (!seen) continue
    const done = seen.status === 'completed'
    const conclusion = seen.conclusion
    counted.push({
      name: plan.name,
      kind: 'check-run',
      done,
      failed: done && RED_CONCLUSIONS.includes(conclusion ?? ''),
      ok: done && OK_CONCLUSIONS.includes(conclusion ?? ''),
      succeeded: done && conclusion === 'success',
      conclusion,
      attempt: plan.runAttempt ?? 1
    })
  }
  for (const plan of plans.statuses) {
    const shown = plan.timeline
      .map((event, index) => ({ ...event, index, time: appearedAt + event.at * 1000 }))
      .filter((event) => event.time <= statusesAt)
      .sort((a, b) => a.time - b.time || a.index - b.index)
    const last = shown[shown.length - 1]
    if (!last) continue
    counted.push({
      name: plan.context,
      kind: 'status',
      done: last.state !== 'pending',
      failed: last.state === 'failure' || last.state === 'error',
      ok: last.state === 'success',
      succeeded: last.state === 'success',
      conclusion: last.state,
      attempt: 1
    })
  }
  return counted
}

/** The verdict of the counted checks, the grace period being over. */
export function verdictOf(counted: readonly CountedCheck[], policy: OraclePolicy): TrueVerdict {
  const anyFailed = counted.some((check) => check.failed)
  const anyRunning = counted.some((check) => !check.done)
  const red = (): TrueVerdict =>
    counted.some((check) => check.failed && check.conclusion === 'action_required')
      ? 'blocked'
      : 'red'
  if (anyFailed && (policy.failFast || !anyRunning)) return red()
  if (anyRunning) return 'pending'
  for (const name of policy.requiredChecks) {
    const required = counted.filter((check) => check.name === name)
    if (required.length === 0 || required.some((check) => !check.ok)) return 'red'
  }
  if (!counted.some((check) => check.succeeded)) return 'no-checks'
  return 'green'
}

export function trueVerdict(
  plans: { checkRuns: readonly CheckRunPlan[]; statuses: readonly StatusPlan[] },
  appearedAt: number,
  checkRunsAt: number,
  statusesAt: number,
  policy: OraclePolicy
): TrueVerdict {
  return verdictOf(
    countedChecks(plans, appearedAt, checkRunsAt, statusesAt, policy.ownRunId),
    policy
  )
}

/**
 * Whether a red head may be accepted as green except pre-existing failures: every failing
 * counted check fails the same way on the base branch head, no required check is missing,
 * and `pre-existing-failures` is `allow`. (A necessary condition: the gate may still say red
 * when the base branch's CI did not finish in time.)
 */
export function mayBeGreenExceptPreExisting(
  counted: readonly CountedCheck[],
  policy: OraclePolicy
): boolean {
  const failing = counted.filter((check) => check.failed)
  const twins = new Set(policy.baseTwins)
  const requiredReported = policy.requiredChecks.every((name) =>
    counted.some((check) => check.name === name && check.ok)
  )
  return (
    policy.preExisting === 'allow' &&
    failing.length > 0 &&
    requiredReported &&
    failing.every((check) => check.kind === 'check-run' && twins.has(check.name))
  )
}

export interface RerunTruth {
  /** The gate's own re-run of a failed check passed and is its newest attempt: flaky. */
  passedOnGateRerun: string[]
  /** A later attempt (the gate's re-run, or one planned up front) did not fail after one that did. */
  notFailingAfterFailure: string[]
}

/**
 * What re-runs did, at `at`: the checks the gate must report flaky (never hidden), and the
 * ones it may (a later attempt passed, skipped or neutral after a failed one).
 */
export function rerunTruth(
  plans: readonly CheckRunPlan[],
  appearedAt: number,
  at: number
): RerunTruth {
  const byName = new Map<
    string,
    Array<{ plan: CheckRunPlan; firstSeen: number; conclusion: string | null }>
  >()
  for (const plan of plans) {
    const seen = checkRunAt(plan, appearedAt, at)
    if (!seen) continue
    const attempts = byName.get(plan.name) ?? []
    attempts.push({ plan, firstSeen: seen.firstSeen, conclusion: seen.conclusion })
    byName.set(plan.name, attempts)
  }
  const truth: RerunTruth = { passedOnGateRerun: [], notFailingAfterFailure: [] }
  for (const [name, attempts] of byName) {
    attempts.sort((a, b) => a.firstSeen - b.firstSeen)
    const newest = attempts[attempts.length - 1]
    const failedBefore = attempts
      .slice(0, -1)
      .some((a) => RED_CONCLUSIONS.includes(a.conclusion ?? ''))
    if (!newest || !failedBefore || !OK_CONCLUSIONS.includes(newest.conclusion ?? '')) continue
    truth.notFailingAfterFailure.push(name)
    // Re-runs the gate asked for are the attempts the fake started (they have `startsAt`).
    if (newest.plan.startsAt !== undefined && newest.conclusion === 'success')
      truth.passedOnGateRerun.push(name)
  }
  truth.passedOnGateRerun.sort()
  truth.notFailingAfterFailure.sort()
  return truth
}
