/**
 * Did the fix arrive, and if not, whose doing is it? Pure (README: "gh-aw autoloop", "When
 * no fix arrives"). A red attempt with budget left starts a fixer run; when the branch head
 * has not moved since, the loop is stuck only if the fixer's agent ran and its push landed
 * (or it had nothing to push). Otherwise no fix could have come, and the program pauses
 * `ci-blocked` with the cause, spending no fix attempt:
 * - the fixer run never ran its agent: gh-aw's `pre_activation` did not let
 *   `github-actions[bot]` start it (`on.bots`), it waits for approval, `activation` failed,
 *   the run was cancelled, or the agent job failed;
 * - the push did not land: `safe_outputs` failed or was cancelled (the `safe-outputs-result`
 *   input, or the fixer run's job), or gh-aw diverted it to a fallback branch and PR.
 */
import type { PullInfo, WorkflowJobInfo, WorkflowRunState } from '../github.js'
import type { Blocked } from './classify.js'

/** gh-aw's job ids, which are the job names the API reports (gh-aw gives them no `name:`). */
const JOB = {
  preActivation: 'pre_activation',
  activation: 'activation',
  agent: 'agent',
  safeOutputs: 'safe_outputs'
} as const

const FAILED: ReadonlySet<string> = new Set([
  'failure',
  'cancelled',
  'timed_out',
  'startup_failure',
  'action_required',
  'stale'
])

export type FixerRunVerdict =
  /** The run has not ended and nothing says yet that its agent will not run. */
  | { kind: 'running' }
  /** The agent ran and its push landed or it had nothing to push: a fix attempt. */
  | { kind: 'agent-ran' }
  /** No fix could have come from this run: why, and what to do. */
  | { kind: 'no-fix'; blocked: Blocked }

const BOTS_FIX =
  'add `bots: ["github-actions[bot]"]` under `on:` in `.github/workflows/autoloop.md` and run `gh aw compile autoloop` (in gh-aw releases after v0.72 `pre_activation` no longer trusts `workflow_dispatch`, and the gate dispatches as `github-actions[bot]`, which holds no repository role)'

function job(jobs: readonly WorkflowJobInfo[], name: string): WorkflowJobInfo | undefined {
  // A re-run lists each job once (the latest attempt), but a matrix or a renamed job could
  // repeat a name: the last one listed wins.
  return [...jobs].reverse().find((j) => j.name === name)
}

/**
 * The first failed step's name, as plain text: a workflow names its steps, and the name goes
 * into the pause reason and the advice, which are markdown.
 */
function failedStep(found: WorkflowJobInfo): string | null {
  const step = found.steps.find((s) => s.conclusion !== null && FAILED.has(s.conclusion))
  return step ? step.name.replace(/[^\w .,:()/'+-]/g, '').slice(0, 100) : null
}

function noFix(runId: number, cause: string, fix: string, url: string | null): FixerRunVerdict {
  const where = url ? ` ([run ${runId}](${url}))` : ''
  return {
    kind: 'no-fix',
    blocked: {
      cause: `fixer run ${runId} did not run the agent: ${cause}`,
      advice: `The fixer run${where} started for the red attempt never ran its agent: ${cause}. No fix could arrive, so no fix attempt was spent. To fix: ${fix}. \`reconcile\` resumes the program once the head of its branch has a verdict, and the next gate continues.`
    }
  }
}

function pushNotLanded(runId: number, conclusion: string, url: string | null): FixerRunVerdict {
  const where = url ? ` ([run ${runId}](${url}))` : ''
  return {
    kind: 'no-fix',
    blocked: {
      cause: `the push of fixer run ${runId} did not land: safe_outputs ended ${conclusion}`,
      advice: pushAdvice(`fixer run${where}`, conclusion)
    }
  }
}

function pushAdvice(whose: string, result: string): string {
  return `The agent of the ${whose} ran, but gh-aw's \`safe_outputs\` job ended \`${result}\`, so its commit never reached the program branch: this is not a fixer that pushed nothing, and no fix attempt was spent. Read the \`safe_outputs\` log: a push refused as non-fast-forward means the branch moved while the agent worked (another run pushed, or someone did); a patch that did not apply, or a push token without Contents: write, fail there too. \`reconcile\` resumes the program once the head of its branch has a verdict.`
}

/**
 * What a fixer run did, from its state and its jobs (the latest attempt of each). gh-aw's
 * `pre_activation` that outputs `activated=false` shows as a successful `pre_activation`
 * with every later job skipped.
 */
export function judgeFixerRun(
  runId: number,
  run: WorkflowRunState,
  jobs: readonly WorkflowJobInfo[],
  url: string | null = null
): FixerRunVerdict {
  if (run.kind === 'forbidden') return { kind: 'running' }
  if (run.kind === 'not-found')
    return noFix(
      runId,
      'the run does not exist (deleted, or never created)',
      'check that `dispatch-workflow` names the compiled workflow and that the token may read Actions runs (`actions: read`)',
      url
    )
  const waiting =
    run.status === 'waiting' ||
    run.status === 'action_required' ||
    run.conclusion === 'action_required' ||
    jobs.some((j) => j.status === 'waiting' || j.conclusion === 'action_required')
  if (waiting)
    return noFix(
      runId,
      'the run waits for approval',
      'approve it on its run page, or let runs started by `github-actions[bot]` run without approval (a required-reviewer environment or the repository’s approval policy for bots holds it)',
      url
    )
  const agent = job(jobs, JOB.agent)
  const ghAw = [JOB.preActivation, JOB.activation, JOB.agent].some((name) => job(jobs, name))
  // Not a gh-aw run (a plain fixer workflow): whether its fix arrived is the branch head's word.
  if (!ghAw) return run.status === 'completed' ? { kind: 'agent-ran' } : { kind: 'running' }
  if (agent?.conclusion === 'success') {
    const push = job(jobs, JOB.safeOutputs)
    if (push?.conclusion && FAILED.has(push.conclusion))
      return pushNotLanded(runId, push.conclusion, url)
    if (push && push.status !== 'completed' && run.status !== 'completed')
      return { kind: 'running' }
    return { kind: 'agent-ran' }
  }
  if (agent && agent.status !== 'completed') return { kind: 'running' }
  if (agent?.conclusion && FAILED.has(agent.conclusion)) {
    const step = failedStep(agent)
    return noFix(
      runId,
      `the agent job ended ${agent.conclusion}${step ? ` at step "${step}"` : ''}`,
      agent.conclusion === 'cancelled'
        ? 'see why the run was cancelled (a concurrency group, a maintainer, or the job timeout), then start it again'
        : 'read the agent job’s log; when the scheduler step failed, the dispatched `program` input names no configured program',
      url
    )
  }
  if (run.status !== 'completed') return { kind: 'running' }
  // The agent job never ran: find the job that stopped it.
  const pre = job(jobs, JOB.preActivation)
  const activation = job(jobs, JOB.activation)
  if (pre?.conclusion && FAILED.has(pre.conclusion))
    return noFix(
      runId,
      `pre_activation ended ${pre.conclusion}${failedStep(pre) ? ` at step "${failedStep(pre)}"` : ''}`,
      'read the pre_activation job’s log (it checks the role of the actor that started the run, `github-actions[bot]` for a dispatched fixer)',
      url
    )
  if (pre?.conclusion === 'success' && (!activation || activation.conclusion === 'skipped'))
    return noFix(
      runId,
      'pre_activation did not activate it (`activated=false`: its actor `github-actions[bot]` holds no required role, and every later job was skipped)',
      BOTS_FIX,
      url
    )
  if (activation?.conclusion && FAILED.has(activation.conclusion))
    return noFix(
      runId,
      `activation ended ${activation.conclusion}${failedStep(activation) ? ` at step "${failedStep(activation)}"` : ''}`,
      'read the activation job’s log: a lock file older than its `.md` source fails there (run `gh aw compile autoloop` and commit both files)',
      url
    )
  if (run.conclusion === 'cancelled')
    return noFix(
      runId,
      'the run was cancelled before the agent ran',
      'see who or what cancelled it (a concurrency group with `cancel-in-progress`, or a maintainer), then start it again',
      url
    )
  return noFix(
    runId,
    `the agent job was ${agent ? (agent.conclusion ?? agent.status) : 'not in the run'} (run ${run.conclusion ?? run.status})`,
    'open the run and check the `if:` conditions of its jobs; the workflow must be the gh-aw autoloop workflow with the `ci_gate` job',
    url
  )
}

/** gh-aw's result for `safe_outputs` says the push did not land: the cause, else null. */
export function safeOutputsBlocked(
  result: string | undefined,
  runId: number | null
): Blocked | null {
  if (result !== 'failure' && result !== 'cancelled') return null
  const run = runId === null ? 'this run' : `run ${runId}`
  return {
    cause: `the push of ${run} did not land: safe_outputs ended ${result}`,
    advice: pushAdvice(run, result)
  }
}

/** The prefix of gh-aw's fallback branches for `branch`: `<branch>-fallback-<timestamp>`. */
export function fallbackPrefix(branch: string): string {
  return `${branch}-fallback-`
}

/**
 * gh-aw's `fallback-as-pull-request` diverted a push: a PR from `<branch>-fallback-*` into
 * the program branch opened at or after `since` (epoch ms), the newest; else such a branch
 * whose head was committed since then (its PR could not be opened); else null.
 */
export function fallbackBlocked(
  branch: string,
  pulls: readonly (PullInfo & { createdAt: number })[],
  since: number,
  branches: readonly { name: string; committedAt: number | null }[] = []
): Blocked | null {
  const found = pulls
    .filter(
      (pull) =>
        pull.baseRef === branch &&
        pull.headRef.startsWith(fallbackPrefix(branch)) &&
        pull.createdAt >= since
    )
    .sort((a, b) => b.createdAt - a.createdAt)[0]
  if (!found) {
    const diverted = branches
      .filter(
        (b) =>
          b.name.startsWith(fallbackPrefix(branch)) &&
          b.committedAt !== null &&
          b.committedAt >= since
      )
      .sort((a, b) => (b.committedAt ?? 0) - (a.committedAt ?? 0))[0]
    if (!diverted) return null
    return {
      cause: `the fix was pushed to ${diverted.name}, not to ${branch}`,
      advice: `gh-aw could not push the fix onto \`${branch}\` (the branch moved: a non-fast-forward push) and, with \`fallback-as-pull-request\` on (gh-aw's default), pushed it to the new branch \`${diverted.name}\` instead. The program branch did not move: this is not a fixer that pushed nothing, and no fix attempt was spent. Merge that branch into \`${branch}\` or delete it, and set \`fallback-as-pull-request: false\` under \`push-to-pull-request-branch\` so a push that cannot land fails \`safe_outputs\` (which the gate reads). \`reconcile\` resumes the program once the head of its branch has a verdict.`
    }
  }
  return {
    cause: `the fix was pushed to ${found.headRef} (PR #${found.number}), not to ${branch}`,
    advice: `gh-aw could not push the fix onto \`${branch}\` (the branch moved: a non-fast-forward push) and, with \`fallback-as-pull-request\` on (gh-aw's default), pushed it to \`${found.headRef}\` and opened [PR #${found.number}](${found.url}) into the program branch instead. The program branch did not move: this is not a fixer that pushed nothing, and no fix attempt was spent. Merge or close that PR, and set \`fallback-as-pull-request: false\` under \`push-to-pull-request-branch\` so a push that cannot land fails \`safe_outputs\` (which the gate reads). \`reconcile\` resumes the program once the head of its branch has a verdict.`
  }
}
