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
import { waitForChecks, type WaitWindow } from '../wait-for-checks.js'

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

async function rerunRound(
  context: RedContext,
  observation: GateObservation,
  failing: FailingCheck[],
  round: number,
  reruns: Rerun[],
  flaky: Classification['flaky']
): Promise<{ observation: GateObservation; failing: FailingCheck[]; refused: boolean } | null> {
  const { deps } = context
  const candidates = rerunCandidates(failing, round === 1)
  if (candidates.size === 0) return null
  if (deps.clock.now() >= context.window.deadline) return null
  const failedIds = new Map<string, number>()
  for (const [runId, { checks, why }] of candidates) {
    const rerun: Rerun = {
      workflowRunId: runId,
      requestedAt: new Date(deps.clock.now()).toISOString(),
      checks: checks.map((check) => check.name),
      why,
      url: runUrl(deps.environment, runId),
      outcome: 'pending'
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
      reruns.push({ ...rerun, outcome: 'refused' })
      return { observation, failing, refused: true }
    }
    reruns.push(rerun)
    for (const check of checks) {
      const view = observation.checks.find((c) => c.name === check.name && isCounted(c))
      if (view) failedIds.set(check.name, view.id)
    }
  }
  let next: GateObservation
  try {
    await awaitRerunsStarted(context, observation.sha, failedIds)
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
  const stillFailing = new Set(failingOf(next).map((check) => check.name))
  // Passed, not merely "not failing": a re-run still running at the wall-clock cap is neither.
  const passed = new Set(
    next.checks
      .filter((check) => isCounted(check) && check.state === 'passed')
      .map((check) => check.name)
  )
  for (const [, { checks }] of candidates) {
    for (const check of checks) {
      if (passed.has(check.name)) flaky.push({ check: check.name, url: check.url })
    }
  }
  for (const rerun of reruns) {
    if (rerun.outcome !== 'pending') continue
    if (rerun.checks.some((name) => stillFailing.has(name))) rerun.outcome = 'failed'
    else if (rerun.checks.every((name) => passed.has(name))) rerun.outcome = 'passed'
  }
  const regathered = await gather(failingOf(next), deps)
  return { observation: next, failing: regathered, refused: false }
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
): Promise<{ base: BaseFailures | null; note: string | null }> {
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
): Promise<{ base: BaseFailures | null; note: string | null }> {
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
  const polled = await poll({
    what: `the checks of the base branch head ${sha.slice(0, 12)}`,
    read: async () => reduceChecks(await deps.github.readChecks(sha), policy, Infinity),
    done: (verdict) => verdict.kind !== 'pending',
    clock: deps.clock,
    log: deps.log,
    intervalMs: config.pollIntervalSeconds * 1000,
    deadline: context.window.deadline
  })
  const verdict = polled.value
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
): Promise<RedFindings> {
  const { config, deps } = context
  let observation = first
  let failing = await gather(failingOf(first), deps)
  const reruns: Rerun[] = []
  const flaky: Classification['flaky'] = []
  let rechecked = false
  for (let round = 1; round <= config.rerunFailed && observation.verdict === 'red'; round += 1) {
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
