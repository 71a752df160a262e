/**
 * The red path of a gate, up to "whose failure is it" (docs/decisions.md: "Whose failure it is"):
 * gather the failing checks' keys; re-run the failed jobs that look like infrastructure (and,
 * once, a failing test) and wait for them; read the same-named checks on the base branch head
 * (once per base SHA, kept in the ledger); and split the keys into the iteration's own and
 * the pre-existing ones. Only the iteration's own keys make the signature.
 */
import type { ProgramConfig } from '../../core/inputs.js'
import type { BranchStanding } from '../../core/github.js'
import { runUrl } from '../../core/environment.js'
import {
  isCounted,
  reduceChecks,
  type CheckView,
  type ReducePolicy
} from '../../core/checks/reduce.js'
import type { GateObservation } from '../../core/checks/observation.js'
import { poll, PollReadError } from '../poll.js'
import { gatherFailures } from '../gather-failures.js'
import type { FailingCheck, RedFindings } from '../../core/checks/findings.js'
import { infrastructureCause } from '../../core/rules/infrastructure.js'
import {
  isTestFailure,
  ownKeys,
  preExistingKeys,
  projectFailureCount
} from '../../core/rules/classify.js'
import type { BaseFailures, Classification, Ledger, Rerun } from '../../core/ledger.js'
import { buildKey } from '../../core/signature/normalise.js'
import { missingRequiredKey } from '../../core/signature/signature.js'
import { redactSecrets, removeMarkers } from '../../core/text/untrusted.js'
import { errorMessage, httpStatus } from '../../core/errors.js'
import type { CommandDeps } from '../command-deps.js'
import { waitForChecks, type StillRunning, type WaitWindow } from '../wait-for-checks.js'

export interface RedContext {
  config: ProgramConfig
  deps: CommandDeps
  policy: ReducePolicy
  window: WaitWindow
  ledger: Ledger
  /** Where the branches stood at the gate's start: the base's head, when it was read then. */
  standing?: BranchStanding | null
  /** Records a re-run in the ledger before it is requested (so a crashed run never repeats it). */
  recordRerun(rerun: Rerun): Promise<void>
  /**
   * `settle` (README: "Settling on events"): look once and wait for nothing. Re-runs are
   * requested and left to finish (their completion settles the attempt); those an earlier
   * settle requested are judged first; a base branch head still running is waited for by
   * ending the look.
   */
  once?: { earlier: readonly Rerun[] }
}

/**
 * Keys quote CI text (status descriptions, error lines, check names) and go to the ledger on
 * a branch, the failure summary, the outputs and comments: secrets and masked values are
 * redacted and marker text removed before anything is built from them.
 */
export function untrustedKey(key: string, maskedValues: readonly string[]): string {
  return removeMarkers(redactSecrets(key, maskedValues)).replace(/\s+/g, ' ').trim()
}

async function gather(checks: readonly CheckView[], deps: CommandDeps): Promise<FailingCheck[]> {
  const gathered = await gatherFailures(checks, deps.failures, { log: deps.log })
  return gathered.map((failure, i) => {
    const keys = failure.keys.map((key) => untrustedKey(key, deps.maskedValues))
    return {
      ...failure,
      keys,
      ...(failure.details
        ? {
            details: failure.details.map((detail) => ({
              key: untrustedKey(detail.key, deps.maskedValues),
              lines: detail.lines.map((line) => redactSecrets(line, deps.maskedValues))
            }))
          }
        : {}),
      infrastructure: infrastructureCause(
        failure.conclusion,
        [...failure.firstErrorLines, ...keys],
        projectFailureCount(keys)
      ),
      workflowRunId: checks[i]?.workflowRunId
    }
  })
}

const failingOf = (observation: GateObservation) =>
  observation.checks.filter((check) => isCounted(check) && check.state === 'failed')

/** Which failing checks a re-run may clear, and why; `testsToo` on the first round only. */
function rerunCandidates(
  failing: readonly FailingCheck[],
  testsToo: boolean
): Map<number, { checks: FailingCheck[]; why: Rerun['why'] }> {
  const byRun = new Map<number, { checks: FailingCheck[]; why: Rerun['why'] }>()
  for (const check of failing) {
    if (check.workflowRunId === undefined) continue
    const why = check.infrastructure
      ? 'infrastructure'
      : testsToo && isTestFailure(check.keys)
        ? 'flaky-test'
        : null
    if (!why) continue
    const entry = byRun.get(check.workflowRunId) ?? { checks: [], why }
    entry.checks.push(check)
    if (why === 'infrastructure') entry.why = 'infrastructure'
    byRun.set(check.workflowRunId, entry)
  }
  return byRun
}

/**
 * Polls until every re-run check has a newer run than the failed one (or the grace ends).
 * Throws a PollReadError when the checks cannot be read.
 */
async function awaitRerunsStarted(
  context: RedContext,
  sha: string,
  failedIds: ReadonlyMap<string, number>
): Promise<void> {
  const { deps, config } = context
  await poll({
    what: `the re-run checks of ${sha.slice(0, 12)}`,
    read: () => deps.github.readChecks(sha),
    done: (snapshot) =>
      [...failedIds].every(([name, id]) =>
        snapshot.checkRuns.some((run) => run.name === name && run.id > id)
      ),
    clock: deps.clock,
    log: deps.log,
    intervalMs: config.pollIntervalSeconds * 1000,
    deadline: Math.min(deps.clock.now() + config.checksGraceSeconds * 1000, context.window.deadline)
  })
}

/** Re-runs requested in one round, and the failed check runs they replace (by name). */
interface Started {
  reruns: Rerun[]
  failedIds: Map<string, number>
  refused: boolean
}

/**
 * Requests round `round` of re-runs of the failing checks that may clear (each recorded in the
 * ledger before it is requested); null when there is nothing to re-run.
 */
async function startReruns(
  context: RedContext,
  observation: GateObservation,
  failing: readonly FailingCheck[],
  round: number
): Promise<Started | null> {
  const { deps } = context
  const candidates = rerunCandidates(failing, round === 1)
  if (candidates.size === 0) return null
  if (deps.clock.now() >= context.window.deadline) return null
  const started: Started = { reruns: [], failedIds: new Map(), refused: false }
  for (const [runId, { checks, why }] of candidates) {
    const replaces: Record<string, number> = {}
    for (const check of checks) {
      const view = observation.checks.find((c) => c.name === check.name && isCounted(c))
      if (view) replaces[check.name] = view.id
    }
    const rerun: Rerun = {
      workflowRunId: runId,
      requestedAt: new Date(deps.clock.now()).toISOString(),
      checks: checks.map((check) => check.name),
      why,
      url: runUrl(deps.environment, runId),
      outcome: 'pending',
      round,
      replaces
    }
    await context.recordRerun(rerun)
    try {
      await deps.github.rerunFailedJobs(runId)
      deps.log.info(
        `Re-running the failed jobs of run ${runId} (${why === 'infrastructure' ? 'infrastructure failure' : 'a failing test, once, to tell a flaky one'}): ${rerun.checks.join(', ')}`
      )
    } catch (error) {
      const status = httpStatus(error)
      deps.log.warning(
        status === 403
          ? "Cannot re-run failed jobs: the token lacks `actions: write` (add it to the job's permissions). Going on without re-runs."
          : `Could not re-run the failed jobs of run ${runId}: ${errorMessage(error)}. Going on without re-runs.`
      )
      started.reruns.push({ ...rerun, outcome: 'refused' })
      return { ...started, refused: true }
    }
    started.reruns.push(rerun)
    for (const [name, id] of Object.entries(replaces)) started.failedIds.set(name, id)
  }
  return started
}

/**
 * The pending re-runs judged on the checks as they are now: a re-run check that failed again
 * fails the re-run, one whose every check passed is flaky (passed, not merely "not failing":
 * a re-run still running at the wall-clock cap is neither).
 */
function judgeReruns(next: GateObservation, reruns: Rerun[], flaky: Classification['flaky']): void {
  const stillFailing = new Set(failingOf(next).map((check) => check.name))
  const passed = new Map(
    next.checks
      .filter((check) => isCounted(check) && check.state === 'passed')
      .map((check) => [check.name, check.url] as const)
  )
  for (const rerun of reruns) {
    if (rerun.outcome !== 'pending') continue
    for (const name of rerun.checks)
      if (passed.has(name) && !flaky.some((f) => f.check === name))
        flaky.push({ check: name, url: passed.get(name) ?? null })
    if (rerun.checks.some((name) => stillFailing.has(name))) rerun.outcome = 'failed'
    else if (rerun.checks.every((name) => passed.has(name))) rerun.outcome = 'passed'
  }
}

/** The polling gate's round: request the re-runs, wait for them, judge them. */
async function rerunRound(
  context: RedContext,
  observation: GateObservation,
  failing: FailingCheck[],
  round: number,
  reruns: Rerun[],
  flaky: Classification['flaky']
): Promise<{ observation: GateObservation; failing: FailingCheck[]; refused: boolean } | null> {
  const { deps } = context
  const started = await startReruns(context, observation, failing, round)
  if (!started) return null
  reruns.push(...started.reruns)
  if (started.refused) return { observation, failing, refused: true }
  let next: GateObservation
  try {
    await awaitRerunsStarted(context, observation.sha, started.failedIds)
    next = await waitForChecks(
      context.config,
      deps,
      observation.sha,
      observation.pull,
      { ...context.policy, graceMs: 0 },
      context.window
    )
  } catch (error) {
    if (!(error instanceof PollReadError)) throw error
    // No re-run verdict without reading it: the failures stand as first seen, the re-runs
    // stay pending, and no further round is started.
    deps.log.warning(
      `${error.message.split('\n')[0]}. The failures stand as they were before the re-run.`
    )
    return { observation, failing, refused: true }
  }
  judgeReruns(next, reruns, flaky)
  const regathered = await gather(failingOf(next), deps)
  return { observation: next, failing: regathered, refused: false }
}

/**
 * `settle`'s view of the re-runs an earlier run of it requested for this attempt: each judged
 * on the checks as they are now, or what is still to start (then the attempt still waits).
 * A re-run that has not started within the grace period is judged on the check as it stands.
 */
function earlierReruns(
  context: RedContext,
  observation: GateObservation,
  earlier: readonly Rerun[]
): { reruns: Rerun[]; flaky: Classification['flaky']; rounds: number } | StillRunning {
  const now = context.deps.clock.now()
  const reruns = earlier.map((rerun) => ({ ...rerun }))
  const notStarted = reruns.filter(
    (rerun) =>
      rerun.outcome === 'pending' &&
      Object.entries(rerun.replaces ?? {}).some(([name, id]) => {
        const view = observation.checks.find((c) => c.name === name && isCounted(c))
        return !view || view.id <= id
      }) &&
      now <
        Math.min(Date.parse(rerun.requestedAt) + context.policy.graceMs, context.window.deadline)
  )
  if (notStarted.length > 0)
    return {
      kind: 'still-running',
      checks: observation.checks,
      waitingFor: notStarted.flatMap((rerun) => rerun.checks.map((name) => `${name} (re-run)`))
    }
  const flaky: Classification['flaky'] = []
  judgeReruns(observation, reruns, flaky)
  const rounds = reruns.reduce((most, rerun) => Math.max(most, rerun.round ?? 1), 0)
  return { reruns, flaky, rounds }
}

const baseNoCiNote = (sha: string) =>
  `CI never ran on the base branch head ${sha.slice(0, 12)}: every failure counts as new`

/**
 * The base branch head's failures, from the ledger when it read the same base SHA before,
 * else waited for (within the wall clock) and gathered: every failing check of the base head,
 * so that one read answers every later attempt on the same base SHA (a check missing from the
 * list passed there).
 */
async function baseFailuresOf(
  context: RedContext,
  pullBase: string | undefined
): Promise<{ base: BaseFailures | null; note: string | null } | StillRunning> {
  try {
    return await readBaseFailures(context, pullBase)
  } catch (error) {
    if (!(error instanceof PollReadError) && httpStatus(error) === undefined) throw error
    // Loudly, never silently: a warning here, the note in the summary, ledger and brief.
    const note = `the base branch could not be read (${errorMessage(error).split('\n')[0]}): every failure counts as new`
    context.deps.log.warning(`Whose failure it is: ${note}`)
    return { base: null, note }
  }
}

async function readBaseFailures(
  context: RedContext,
  pullBase: string | undefined
): Promise<{ base: BaseFailures | null; note: string | null } | StillRunning> {
  const { deps, config, ledger } = context
  const branch = config.base ?? pullBase ?? (await deps.github.defaultBranch())
  const heads = context.standing?.heads
  const sha =
    heads && Object.hasOwn(heads, branch)
      ? (heads[branch] ?? null)
      : await deps.github.branchHead(branch)
  if (!sha)
    return {
      base: null,
      note: `the base branch ${branch} does not exist: every failure counts as new`
    }
  if (ledger.baseFailures?.sha === sha && ledger.baseFailures.branch === branch)
    return {
      base: ledger.baseFailures,
      note: ledger.baseFailures.state === 'no-ci' ? baseNoCiNote(sha) : null
    }
  deps.log.info(`Reading the failures of the base branch head ${branch} (${sha.slice(0, 12)})`)
  const readAt = new Date(deps.clock.now()).toISOString()
  // Every check of the base head counts, to its end; this run's own jobs never do.
  const policy: ReducePolicy = {
    ...context.policy,
    requiredChecks: [],
    failFast: false,
    allowNoChecks: false
  }
  const read = async () => reduceChecks(await deps.github.readChecks(sha), policy, Infinity)
  const verdict = context.once
    ? await read()
    : (
        await poll({
          what: `the checks of the base branch head ${sha.slice(0, 12)}`,
          read,
          done: (verdict) => verdict.kind !== 'pending',
          clock: deps.clock,
          log: deps.log,
          intervalMs: config.pollIntervalSeconds * 1000,
          deadline: context.window.deadline
        })
      ).value
  if (verdict?.kind === 'pending' && context.once && deps.clock.now() < context.window.deadline)
    return {
      kind: 'still-running',
      checks: verdict.checks,
      waitingFor: verdict.waitingFor.map((name) => `${name} (base branch ${branch})`)
    }
  if (!verdict)
    return {
      base: null,
      note: `the checks of the base branch head ${sha.slice(0, 12)} could not be read before the wall-clock cap: every failure counts as new`
    }
  if (verdict.kind === 'pending')
    return {
      base: null,
      note: `CI on the base branch head ${sha.slice(0, 12)} was still running at the wall-clock cap: every failure counts as new`
    }
  if (verdict.kind === 'no-checks')
    return {
      base: { branch, sha, readAt, state: 'no-ci', checks: [] },
      note: baseNoCiNote(sha)
    }
  const failing = verdict.checks.filter((check) => isCounted(check) && check.state === 'failed')
  const gathered = await gather(failing, deps)
  return {
    base: {
      branch,
      sha,
      readAt,
      state: 'complete',
      checks: gathered.map((check) => ({
        name: check.name,
        conclusion: check.conclusion,
        url: check.url,
        keys: check.keys
      }))
    },
    note: null
  }
}

/** See the module comment. */
export async function findRedFindings(
  context: RedContext,
  first: GateObservation
): Promise<RedFindings | StillRunning> {
  const { config, deps } = context
  let observation = first
  const reruns: Rerun[] = []
  const flaky: Classification['flaky'] = []
  let rechecked = false
  let firstRound = 1
  if (context.once) {
    const earlier = earlierReruns(context, observation, context.once.earlier)
    if ('kind' in earlier) return earlier
    reruns.push(...earlier.reruns)
    flaky.push(...earlier.flaky)
    rechecked = earlier.reruns.length > 0
    firstRound = earlier.rounds + 1
  }
  let failing = await gather(failingOf(first), deps)
  for (
    let round = firstRound;
    round <= config.rerunFailed && observation.verdict === 'red';
    round += 1
  ) {
    if (context.once) {
      // settle waits for no re-run: it requests them and ends; their completion settles.
      const started = await startReruns(context, observation, failing, round)
      if (!started) break
      reruns.push(...started.reruns)
      if (started.refused) break
      return {
        kind: 'still-running',
        checks: observation.checks,
        waitingFor: started.reruns.flatMap((rerun) =>
          rerun.checks.map((name) => `${name} (re-run)`)
        )
      }
    }
    const result = await rerunRound(context, observation, failing, round, reruns, flaky)
    if (!result) break
    observation = result.observation
    rechecked = true
    failing = result.failing
    if (result.refused) break
  }
  const infrastructure = failing
    .filter((check) => check.infrastructure)
    .map((check) => ({ check: check.name, cause: check.infrastructure as string, url: check.url }))
  const missing = observation.missingRequired.map(missingRequiredKey)
  let baseFailures = context.ledger.baseFailures
  let comparedWith: BaseFailures | null = null
  let preExisting: string[] = []
  let baseNote: string | null = null
  if (observation.verdict === 'red' && failing.length > 0) {
    const base = await baseFailuresOf(context, observation.pull?.baseRef)
    if ('kind' in base) return base
    baseNote = base.note
    if (base.base) baseFailures = base.base
    comparedWith = base.base
    preExisting = preExistingKeys(failing, comparedWith)
  }
  const pre = new Set(preExisting)
  const baseChecks =
    preExisting.length > 0 && baseFailures
      ? baseFailures.checks
          .filter((check) => check.keys.some((key) => pre.has(key)))
          .map((check) => ({ check: check.name, url: check.url }))
      : []
  const own = [...new Set([...ownKeys(failing, comparedWith), ...missing])]
  const newKeys =
    own.length > 0 || preExisting.length > 0 || observation.verdict !== 'red'
      ? own.sort()
      : [untrustedKey(buildKey('red', observation.reasons.join('; ')), deps.maskedValues)]
  return {
    observation,
    rechecked,
    failing,
    newKeys,
    classification: {
      preExisting,
      baseSha: baseFailures?.sha ?? null,
      baseNote,
      ...(baseChecks.length > 0 ? { baseChecks } : {}),
      flaky,
      infrastructure
    },
    reruns,
    baseFailures
  }
}
