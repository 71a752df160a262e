/**
 * The gate's observations, effects only (README: "The fix loop"): the commit to gate (pushed,
 * given, or the branch head), whether it is gh-aw's empty CI-trigger commit, whether a fix
 * could have arrived, the program's PR, every check on that exact SHA waited for and reduced
 * to one verdict (docs/decisions.md: "How checks become a verdict"), why no fix can help, and
 * for a red verdict its findings (`failures.ts`). What they settle into is `decide`'s.
 */
import type { ProgramConfig } from '../../core/inputs.js'
import type { BranchStanding, PullInfo } from '../../core/github.js'
import { isCounted, type ReducePolicy } from '../../core/checks/reduce.js'
import type { GateObservation } from '../../core/checks/observation.js'
import { readChecksOnce, waitForChecks, type StillRunning } from '../wait-for-checks.js'
import { checkPolicy } from '../../core/checks/policy.js'
import { ActionError, errorMessage } from '../../core/errors.js'
import type { CommandDeps } from '../command-deps.js'
import { blockedCause, type Blocked } from '../../core/rules/classify.js'
import { deadlineOf } from '../../core/rules/guard.js'
import {
  beginKind,
  latestAttempt,
  updateAttempt,
  type Attempt,
  type BeganAttempt,
  type Rerun
} from '../../core/ledger.js'
import { needsFindings, type Observed } from '../../core/rules/decide.js'
import type { ProgramFiles } from '../program-files.js'
import { whyNoFix } from '../fixer-check.js'
import { findRedFindings } from './failures.js'
import type { RedFindings } from '../../core/checks/findings.js'
import { iterationOf, write, type GateRun } from './run.js'

type WaitDeps = Pick<CommandDeps, 'github' | 'git' | 'clock' | 'log' | 'environment'>

export interface GatedHead {
  sha: string
  /** Whether this step pushed it. */
  pushed: boolean
}

/**
 * Where the branch stands, read with the program's files (one request with a GraphQL state
 * store); null when the port cannot read it at once.
 */
export async function readStanding(
  config: ProgramConfig,
  deps: WaitDeps
): Promise<BranchStanding | null> {
  if (!deps.github.standing) return null
  return deps.github.standing({
    branch: config.branch,
    ...(config.sha && !config.push ? { sha: config.sha } : {}),
    ...(config.base ? { base: config.base } : {})
  })
}

/** The commit to gate: pushed from the checkout, given by `sha`, or the branch head. */
export async function resolveHead(
  config: ProgramConfig,
  deps: WaitDeps,
  standing?: BranchStanding | null
): Promise<GatedHead> {
  if (config.push) {
    const sha = config.sha ?? (await deps.git.headSha())
    deps.log.info(`Pushing ${sha} to ${config.branch} (fast-forward only)`)
    await deps.git.push(sha, config.branch)
    return { sha, pushed: true }
  }
  if (config.sha) return { sha: config.sha, pushed: false }
  const head = standing ? standing.head : await deps.github.branchHead(config.branch)
  if (!head)
    throw new ActionError(
      `Branch ${config.branch} does not exist, and \`push\` is false, so there is no commit to gate.`,
      { fix: 'push the iteration first, pass `sha`, or leave `push` at its default (true).' }
    )
  return { sha: head, pushed: false }
}

/**
 * The agent's commit when `sha` is gh-aw's empty CI-trigger commit: one parent, the same tree
 * (README: "gh-aw autoloop"). Null otherwise, and when the commit cannot be read.
 */
export async function ciTriggerParent(
  sha: string,
  deps: WaitDeps,
  standing?: BranchStanding | null
): Promise<string | null> {
  const read = standing?.commit
  if (read?.sha === sha) {
    const parent = read.parents.length === 1 ? read.parents[0] : undefined
    return parent !== undefined && read.parentTree === read.tree ? parent : null
  }
  try {
    const commit = await deps.github.commit(sha)
    const parent = commit?.parents.length === 1 ? commit.parents[0] : undefined
    if (!commit || !parent) return null
    const parentCommit = await deps.github.commit(parent)
    return parentCommit?.tree === commit.tree ? parent : null
  } catch (error) {
    deps.log.warning(
      `Could not read commit ${sha.slice(0, 12)} (${errorMessage(error)}); gating it as it is`
    )
    return null
  }
}

export async function findOrOpenPull(
  config: ProgramConfig,
  deps: WaitDeps,
  known: number | undefined,
  standing?: BranchStanding | null
): Promise<PullInfo | null> {
  const { github, log } = deps
  const number = config.pr ?? known
  // The branch's open PR read at the start: when it is the one known, it needs no request.
  if (number !== undefined && standing?.openPull?.number === number) return standing.openPull
  if (number !== undefined) {
    const pull = await github.getPull(number)
    if (pull && pull.state === 'open' && pull.headRef === config.branch) return pull
    log.warning(
      pull
        ? `PR #${number} is ${pull.state} with head ${pull.headRef}, not an open PR of ${config.branch}; looking for one by branch`
        : `PR #${number} does not exist; looking for one by branch`
    )
  }
  const open = standing ? standing.openPull : await github.findOpenPull(config.branch)
  if (open) return open
  if (!config.createPr) return null
  const base = config.base ?? (await github.defaultBranch())
  try {
    const created = await github.createDraftPull({
      title: `[Autoloop: ${config.program}]`,
      head: config.branch,
      base,
      body: `Draft pull request of the autoloop program \`${config.program}\`, opened by autoloop-ci-gate so that CI runs on every iteration pushed to \`${config.branch}\`.`
    })
    log.info(`Opened draft PR #${created.number} for ${config.branch}`)
    return created
  } catch (error) {
    log.warning(
      `Could not open a draft PR for ${config.branch} (the gate goes on without one): ${errorMessage(error)}`
    )
    return null
  }
}

/** What the gate saw on the attempt's commit, beside the decision's input. */
export interface Seen {
  observation: GateObservation | null
  findings: RedFindings | null
}

export const NOTHING_SEEN: Seen = { observation: null, findings: null }

function policyOf(run: GateRun): ReducePolicy {
  run.policy ??= checkPolicy(run.config, run.deps.environment.runId)
  return run.policy
}

/**
 * The branch head did not move since the red attempt, but no fix could have arrived (this
 * run's push failed, gh-aw diverted it, or the fixer run never ran its agent): the cause,
 * else null (the fixer pushed nothing: the no-progress guard judges it).
 */
export async function noFixArrived(
  run: GateRun,
  files: ProgramFiles,
  head: GatedHead
): Promise<{ latest: Attempt; blocked: Blocked } | null> {
  const { config, deps } = run
  const kind = beginKind(files.ledger, { sha: head.sha, runId: deps.environment.runId ?? null })
  const latest = latestAttempt(files.ledger)
  if (kind !== 'no-new-commit' || !latest) return null
  const blocked = await whyNoFix(deps, {
    branch: config.branch,
    latest,
    safeOutputsResult: config.safeOutputsResult
  })
  return blocked ? { latest, blocked } : null
}

/**
 * Looks at the checks of the attempt's commit, and when they are red, whose failures they
 * are. The polling gate waits for CI to finish (`poll`); `settle` looks once and waits for
 * nothing (`once`: README, "Settling on events"), and gets `StillRunning` when CI, a re-run it
 * requested, or the base branch head's CI is still running.
 */
export async function observe(
  run: GateRun,
  began: BeganAttempt & { files: ProgramFiles },
  head: GatedHead,
  pull: PullInfo | null,
  mode: 'poll' | 'once' = 'poll'
): Promise<{ observed: Observed; seen: Seen } | StillRunning> {
  const { config, deps } = run
  const iteration = iterationOf(began.ledger)
  const window = { graceFrom: Date.parse(began.attempt.startedAt), deadline: deadlineOf(iteration) }
  const policy = policyOf(run)
  const index = began.attempt.index
  const agentSha = began.attempt.agentSha ?? null
  const looked =
    mode === 'once'
      ? await readChecksOnce(deps, head.sha, pull, policy, window)
      : await waitForChecks(config, deps, head.sha, pull, policy, window)
  if ('kind' in looked) return looked
  let observation = looked
  let blocked = await blockedOf(run, observation, head, agentSha)
  let findings: RedFindings | null = null
  const earlier = mode === 'once' ? (began.attempt.reruns ?? []) : []
  // A re-run an earlier settle requested is judged even when the checks are green now: a
  // failure that passed on re-run is flaky, never hidden.
  const rerunsToJudge =
    observation.verdict === 'green' && earlier.some((rerun) => rerun.outcome === 'pending')
  if (needsFindings(observation.verdict, blocked) || rerunsToJudge) {
    const found = await findRedFindings(
      {
        config,
        deps,
        policy,
        window,
        ledger: began.ledger,
        standing: run.standing ?? null,
        recordRerun: (rerun) => recordRerun(run, index, rerun),
        ...(mode === 'once' ? { once: { earlier } } : {})
      },
      observation
    )
    if ('kind' in found) return found
    findings = found
    // After re-runs the checks may say something else: green, still running at the wall
    // clock, nothing but skipped checks, a run waiting for approval.
    if (findings.rechecked) {
      observation = findings.observation
      blocked = await blockedOf(run, observation, head, agentSha)
    }
  }
  return {
    observed: { kind: 'checks', index, verdict: observation.verdict, blocked, findings },
    seen: { observation, findings }
  }
}

/** Runs waiting for approval, or no CI at all: no fix can help (null when something can). */
async function blockedOf(
  run: GateRun,
  observation: GateObservation,
  head: GatedHead,
  agentSha: string | null
): Promise<Blocked | null> {
  const { config, deps } = run
  const counted = observation.checks.filter(isCounted)
  const approval = counted
    .filter((check) => check.conclusion === 'action_required')
    .map((check) => check.name)
  if (observation.verdict === 'no-checks' || approval.length > 0) {
    try {
      const runs = await deps.github.workflowRunsOf(head.sha)
      for (const workflowRun of runs)
        if (
          workflowRun.status === 'action_required' ||
          workflowRun.conclusion === 'action_required' ||
          workflowRun.status === 'waiting'
        )
          approval.push(workflowRun.name || `run ${workflowRun.id}`)
    } catch (error) {
      deps.log.debug(`Could not list the workflow runs of ${head.sha}: ${errorMessage(error)}`)
    }
  }
  return blockedCause({
    sha: head.sha,
    awaitingApproval: [...new Set(approval)],
    noChecks: observation.verdict === 'no-checks',
    pushed: head.pushed,
    pushToken: Boolean(config.pushToken),
    ciTriggerCommit: agentSha !== null,
    checksGraceSeconds: config.checksGraceSeconds
  })
}

async function recordRerun(run: GateRun, index: number, rerun: Rerun): Promise<void> {
  await write(run, (current) => {
    const attempt = current.ledger.attempts.find((a) => a.index === index)
    if (!attempt) return { ledger: current.ledger, value: null }
    return {
      ledger: updateAttempt(current.ledger, index, (a) => ({
        ...a,
        reruns: [...(a.reruns ?? []), rerun]
      })),
      value: null
    }
  })
}
