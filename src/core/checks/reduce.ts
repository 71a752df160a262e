/**
 * Check runs (latest per name) and commit statuses (latest per context) of one exact SHA,
 * reduced to one verdict (docs/decisions.md: "How checks become a verdict"). Pure: the caller supplies the snapshot, the policy and
 * how long the gate has been waiting.
 *
 * Silence is never success: nothing reported, only skipped/neutral checks, or an unknown
 * state all keep the verdict away from green.
 */

export interface CheckRunInfo {
  id: number
  name: string
  /** queued | in_progress | completed | waiting | requested | pending (or anything new). */
  status: string
  /** Set once completed; any string GitHub may add later is treated as not passing. */
  conclusion: string | null
  url: string
  startedAt: string | null
  /** The workflow run of a GitHub Actions job, from its details URL. */
  workflowRunId: number | undefined
  /** The job id of a GitHub Actions job, from its details URL. */
  jobId: number | undefined
  checkSuiteId: number | undefined
  appSlug: string | undefined
}

export interface CommitStatusInfo {
  id: number
  context: string
  /** pending | success | failure | error */
  state: string
  description: string | null
  url: string | null
}

export interface ChecksSnapshot {
  checkRuns: CheckRunInfo[]
  statuses: CommitStatusInfo[]
}

export interface ReducePolicy {
  requiredChecks: readonly string[]
  isIgnored: (name: string) => boolean
  /**
   * The workflow run this gate runs in: its jobs are never waited on, nor any check run of
   * the check suite its jobs are listed in (a job's details URL names its run; the listing
   * gives each check run's suite, so no request reads the run itself).
   */
  ownWorkflowRunId: number | undefined
  failFast: boolean
  allowNoChecks: boolean
  graceMs: number
}

const FAILING_CONCLUSIONS = new Set([
  'failure',
  'timed_out',
  'cancelled',
  'action_required',
  'startup_failure',
  'stale'
])
const PASSING_CONCLUSIONS = new Set(['success', 'neutral', 'skipped'])
const FAILING_STATUS_STATES = new Set(['failure', 'error'])

/** One line of the checks table: a check run or a commit status, as the gate saw it. */
export interface CheckView {
  kind: 'check-run' | 'status'
  id: number
  name: string
  /** queued | in_progress | completed | pending | … as reported. */
  status: string
  /** Conclusion of a completed check run, or the state of a finished status. */
  conclusion: string | null
  url: string | null
  state: 'running' | 'passed' | 'failed' | 'unknown'
  /** Why the check is not counted, when it is not. */
  excluded?: 'own-run' | 'ignored' | 'superseded'
  workflowRunId?: number | undefined
  jobId?: number | undefined
  description?: string | null
}

export type Verdict =
  | { kind: 'pending'; checks: CheckView[]; waitingFor: string[] }
  | { kind: 'green'; checks: CheckView[]; reasons: string[] }
  | {
      kind: 'red'
      checks: CheckView[]
      failing: CheckView[]
      /** Names in `required-checks` that never reported within the grace period. */
      missingRequired: string[]
      reasons: string[]
    }
  | { kind: 'no-checks'; checks: CheckView[]; reasons: string[] }

/** Latest run per name: the highest id, since GitHub hands out ids in creation order. */
export function latestPerName(runs: readonly CheckRunInfo[]): {
  latest: CheckRunInfo[]
  superseded: CheckRunInfo[]
} {
  const byName = new Map<string, CheckRunInfo>()
  const superseded: CheckRunInfo[] = []
  for (const run of runs) {
    const current = byName.get(run.name)
    if (!current) byName.set(run.name, run)
    else if (run.id > current.id) {
      superseded.push(current)
      byName.set(run.name, run)
    } else superseded.push(run)
  }
  return { latest: [...byName.values()], superseded }
}

function checkRunState(run: CheckRunInfo): CheckView['state'] {
  if (run.status !== 'completed') {
    const known = ['queued', 'in_progress', 'waiting', 'requested', 'pending']
    return known.includes(run.status) ? 'running' : 'unknown'
  }
  if (run.conclusion && FAILING_CONCLUSIONS.has(run.conclusion)) return 'failed'
  if (run.conclusion && PASSING_CONCLUSIONS.has(run.conclusion)) return 'passed'
  return 'unknown'
}

function statusState(status: CommitStatusInfo): CheckView['state'] {
  if (status.state === 'pending') return 'running'
  if (status.state === 'success') return 'passed'
  if (FAILING_STATUS_STATES.has(status.state)) return 'failed'
  return 'unknown'
}

/** Latest status per context: the highest id. */
function latestPerContext(statuses: readonly CommitStatusInfo[]): CommitStatusInfo[] {
  const byContext = new Map<string, CommitStatusInfo>()
  for (const status of statuses) {
    const current = byContext.get(status.context)
    if (!current || status.id > current.id) byContext.set(status.context, status)
  }
  return [...byContext.values()]
}

function checkRunView(run: CheckRunInfo): CheckView {
  return {
    kind: 'check-run',
    id: run.id,
    name: run.name,
    status: run.status,
    conclusion: run.status === 'completed' ? run.conclusion : null,
    url: run.url,
    state: checkRunState(run),
    workflowRunId: run.workflowRunId,
    jobId: run.jobId
  }
}

function viewChecks(snapshot: ChecksSnapshot, policy: ReducePolicy): CheckView[] {
  const { latest, superseded } = latestPerName(snapshot.checkRuns)
  const views: CheckView[] = []
  const ownRunId = policy.ownWorkflowRunId
  const ownSuites = new Set(
    snapshot.checkRuns
      .filter((run) => ownRunId !== undefined && run.workflowRunId === ownRunId)
      .map((run) => run.checkSuiteId)
      .filter((id) => id !== undefined)
  )
  const ownRun = (run: CheckRunInfo) =>
    (ownRunId !== undefined && run.workflowRunId === ownRunId) ||
    (run.checkSuiteId !== undefined && ownSuites.has(run.checkSuiteId))
  for (const run of latest) {
    const view = checkRunView(run)
    if (ownRun(run)) view.excluded = 'own-run'
    else if (policy.isIgnored(run.name)) view.excluded = 'ignored'
    views.push(view)
  }
  for (const run of superseded) views.push({ ...checkRunView(run), excluded: 'superseded' })
  for (const status of latestPerContext(snapshot.statuses)) {
    const view: CheckView = {
      kind: 'status',
      id: status.id,
      name: status.context,
      status: status.state === 'pending' ? 'pending' : 'completed',
      conclusion: status.state === 'pending' ? null : status.state,
      url: status.url,
      state: statusState(status),
      description: status.description
    }
    if (policy.isIgnored(status.context)) view.excluded = 'ignored'
    views.push(view)
  }
  return views.sort(
    (a, b) =>
      Number(a.excluded !== undefined) - Number(b.excluded !== undefined) ||
      a.name.localeCompare(b.name) ||
      a.id - b.id
  )
}

/** Whether a check counts toward the verdict: not this run's own job, ignored, or superseded. */
export function isCounted(check: Pick<CheckView, 'excluded'>): boolean {
  return check.excluded === undefined
}

/**
 * The verdict for one snapshot. `elapsedMs` is the time since the push (or since the gate
 * started when there was no push): the grace period counts from there.
 */
export function reduceChecks(
  snapshot: ChecksSnapshot,
  policy: ReducePolicy,
  elapsedMs: number
): Verdict {
  const checks = viewChecks(snapshot, policy)
  const counted = checks.filter(isCounted)
  const failing = counted.filter((check) => check.state === 'failed')
  const unfinished = counted.filter(
    (check) => check.state === 'running' || check.state === 'unknown'
  )
  const graceOver = elapsedMs >= policy.graceMs
  const reportedNames = new Set(counted.map((check) => check.name))
  const missingRequired = policy.requiredChecks.filter((name) => !reportedNames.has(name))

  const failureReasons = () => [
    ...failing.map((check) => `${check.name}: ${check.conclusion ?? check.state}`),
    ...(graceOver ? missingRequired.map((name) => `required check never reported: ${name}`) : [])
  ]

  if (failing.length > 0 && (policy.failFast || unfinished.length === 0)) {
    return {
      kind: 'red',
      checks,
      failing,
      missingRequired: graceOver ? missingRequired : [],
      reasons: failureReasons()
    }
  }
  if (unfinished.length > 0) {
    return { kind: 'pending', checks, waitingFor: unfinished.map((check) => check.name) }
  }
  // Every counted check has completed from here on.
  if (missingRequired.length > 0) {
    if (!graceOver) return { kind: 'pending', checks, waitingFor: missingRequired }
    return {
      kind: 'red',
      checks,
      failing,
      missingRequired,
      reasons: missingRequired.map((name) => `required check never reported: ${name}`)
    }
  }
  // Late registrations: a quick check may finish before slower workflows have even
  // appeared, so no verdict other than red is given before the grace period ends.
  if (!graceOver) {
    return { kind: 'pending', checks, waitingFor: ['(checks that have not registered yet)'] }
  }
  const requiredNotPassing = policy.requiredChecks.filter((name) =>
    counted.some((check) => check.name === name && check.state !== 'passed')
  )
  if (requiredNotPassing.length > 0) {
    return {
      kind: 'red',
      checks,
      failing: counted.filter((check) => requiredNotPassing.includes(check.name)),
      missingRequired: [],
      reasons: requiredNotPassing.map((name) => `required check did not pass: ${name}`)
    }
  }
  const succeeded = counted.filter(
    (check) =>
      (check.kind === 'check-run' && check.conclusion === 'success') ||
      (check.kind === 'status' && check.state === 'passed')
  )
  if (succeeded.length === 0) {
    const reasons =
      counted.length === 0
        ? [`no checks reported within ${Math.round(policy.graceMs / 1000)} s`]
        : [`every check was skipped or neutral (${counted.map((c) => c.name).join(', ')})`]
    if (policy.allowNoChecks)
      return { kind: 'green', checks, reasons: [...reasons, 'allowed by allow-no-checks'] }
    return { kind: 'no-checks', checks, reasons }
  }
  return {
    kind: 'green',
    checks,
    reasons: [`${succeeded.length} of ${counted.length} checks succeeded, none failed`]
  }
}

/**
 * Whether the check runs alone already make the verdict pending, whatever the commit
 * statuses say: a counted check run is still running and no status can end the wait early
 * (no `fail-fast`). `settle` then spares itself the statuses' request.
 */
export function pendingByCheckRuns(
  checkRuns: CheckRunInfo[],
  policy: ReducePolicy,
  elapsedMs: number
): boolean {
  if (policy.failFast) return false
  const verdict = reduceChecks({ checkRuns, statuses: [] }, policy, elapsedMs)
  return (
    verdict.kind === 'pending' &&
    verdict.checks.some(
      (check) => check.kind === 'check-run' && isCounted(check) && check.state === 'running'
    )
  )
}
