/**
 * The `gate` command up to its verdict: push the iteration, find or open the program's
 * PR, wait for every check on the exact head SHA, and reduce them to one verdict.
 */
import picomatch from 'picomatch'
import type { Clock } from '../clock.js'
import type { Logger } from '../log.js'
import type { ProgramConfig } from '../inputs.js'
import type { GitHubPort, PullInfo } from '../github/port.js'
import type { GitPort } from '../git.js'
import type { CheckView, ReducePolicy } from '../checks/reduce.js'
import { waitForVerdict } from '../checks/wait.js'
import { ActionError, errorMessage } from '../errors.js'

export interface RunnerContext {
  /** GITHUB_RUN_ID: this workflow run, whose own jobs are never waited on. */
  runId: number | undefined
  runAttempt: number | undefined
  serverUrl: string
}

export interface GateDeps {
  github: GitHubPort
  git: GitPort
  clock: Clock
  log: Logger
  runner: RunnerContext
}

export type VerdictKind = 'green' | 'red' | 'no-checks' | 'ci-timeout'

export interface GateVerdict {
  sha: string
  pull: PullInfo | null
  verdict: VerdictKind
  /** Why, one line each (failing checks, missing required checks); may quote check names, so untrusted. */
  reasons: string[]
  /** Our own advice for the verdict (the no-checks cause and fix); trusted markdown. */
  explanation?: string
  checks: CheckView[]
  /** When the wait started and ended (ms epoch). */
  startedAt: number
  finishedAt: number
  polls: number
}

export function noChecksExplanation(config: ProgramConfig, pushed: boolean): string {
  const lines = [
    `No check reported a result for this commit within ${config.checksGraceSeconds} s, and silence is never read as green.`
  ]
  if (pushed && !config.pushToken) {
    lines.push(
      'The likeliest cause: the push was made with the default GITHUB_TOKEN, and pushes made with GITHUB_TOKEN start no workflow runs. ' +
        'Pass `push-token` with a GitHub App installation token or a fine-grained personal access token (Contents: read and write; Workflows: write if the iteration edits workflow files) so the push starts CI.'
    )
  } else {
    lines.push(
      'Check that a workflow runs on pushes to this branch (its `on: push: branches:` filter must match it) and that the token used for the push can start workflow runs.'
    )
  }
  lines.push('If this branch really has no CI, set `allow-no-checks: true`.')
  return lines.join(' ')
}

async function resolveSha(
  config: ProgramConfig,
  deps: GateDeps
): Promise<{ sha: string; pushed: boolean }> {
  if (config.push) {
    const sha = config.sha ?? (await deps.git.headSha())
    deps.log.info(`Pushing ${sha} to ${config.branch} (fast-forward only)`)
    await deps.git.push(sha, config.branch)
    return { sha, pushed: true }
  }
  if (config.sha) return { sha: config.sha, pushed: false }
  const head = await deps.github.branchHead(config.branch)
  if (!head)
    throw new ActionError(
      `Branch ${config.branch} does not exist, and \`push\` is false, so there is no commit to gate.`,
      {
        fix: 'push the iteration first, pass `sha`, or leave `push` at its default (true).'
      }
    )
  return { sha: head, pushed: false }
}

export async function findOrOpenPull(
  config: ProgramConfig,
  deps: GateDeps,
  known: number | undefined
): Promise<PullInfo | null> {
  const { github, log } = deps
  const number = config.pr ?? known
  if (number !== undefined) {
    const pull = await github.getPull(number)
    if (pull && pull.state === 'open' && pull.headRef === config.branch) return pull
    log.warning(
      pull
        ? `PR #${number} is ${pull.state} with head ${pull.headRef}, not an open PR of ${config.branch}; looking for one by branch`
        : `PR #${number} does not exist; looking for one by branch`
    )
  }
  const open = await github.findOpenPull(config.branch)
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

export interface WaitWindow {
  /** When the grace period for check registration starts (the push, or an earlier gate of the same SHA). */
  graceFrom: number
  /** The iteration's wall-clock cap. */
  deadline: number
}

export async function pushAndWait(
  config: ProgramConfig,
  deps: GateDeps,
  /** Called once the SHA is pushed and the PR known, before waiting: records the attempt. */
  begin: (sha: string, pull: PullInfo | null) => Promise<WaitWindow>,
  knownPull: number | undefined
): Promise<GateVerdict & { pushed: boolean }> {
  const { github, clock, log, runner } = deps
  const { sha, pushed } = await resolveSha(config, deps)
  const pull = await findOrOpenPull(config, deps, knownPull)
  if (pull && pull.headSha !== sha)
    log.info(
      `PR #${pull.number} shows head ${pull.headSha.slice(0, 12)}; the gate reads checks of ${sha.slice(0, 12)} itself`
    )

  const ownCheckSuiteId =
    runner.runId !== undefined ? await github.workflowRunCheckSuiteId(runner.runId) : undefined
  const isIgnored = config.ignoreChecks.length > 0 ? picomatch(config.ignoreChecks) : () => false
  const policy: ReducePolicy = {
    requiredChecks: config.requiredChecks,
    isIgnored,
    ownWorkflowRunId: runner.runId,
    ownCheckSuiteId,
    failFast: config.failFast,
    allowNoChecks: config.allowNoChecks,
    graceMs: config.checksGraceSeconds * 1000
  }
  const { graceFrom, deadline } = await begin(sha, pull)
  const startedAt = clock.now()
  log.info(
    `Waiting for every check on ${sha} (poll ${config.pollIntervalSeconds} s, grace ${config.checksGraceSeconds} s, deadline ${new Date(deadline).toISOString()})`
  )
  const result = await waitForVerdict({
    sha,
    readChecks: (ref) => github.readChecks(ref),
    policy,
    clock,
    log,
    pollIntervalMs: config.pollIntervalSeconds * 1000,
    graceFrom,
    deadline
  })
  const base = { sha, pull, pushed, startedAt, finishedAt: result.finishedAt, polls: result.polls }
  if (result.kind === 'ci-timeout') {
    return {
      ...base,
      verdict: 'ci-timeout',
      checks: result.checks,
      reasons: [
        `ci-timeout: still waiting for ${result.waitingFor.join(', ') || 'checks'} at the wall-clock cap`
      ]
    }
  }
  const { verdict } = result
  return {
    ...base,
    verdict: verdict.kind,
    checks: verdict.checks,
    reasons: verdict.reasons,
    ...(verdict.kind === 'no-checks' ? { explanation: noChecksExplanation(config, pushed) } : {})
  }
}
