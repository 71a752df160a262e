/**
 * The I/O around `core/rules/fixer-run.ts`: find the run a dispatch started, read its jobs, list
 * gh-aw's fallback PRs. The gate and `reconcile` ask it, when the branch head did not move
 * since a red attempt, whether a fix could have arrived (README: "When no fix arrives").
 * Fail-soft: what cannot be read is logged and never blocks the loop on its own.
 */
import type { Dispatch, Attempt } from '../core/ledger.js'
import type { Blocked } from '../core/rules/classify.js'
import {
  fallbackBlocked,
  fallbackPrefix,
  judgeFixerRun,
  safeOutputsBlocked,
  type FixerRunVerdict
} from '../core/rules/fixer-run.js'
import { errorMessage } from '../core/errors.js'
import type { CommandDeps } from './command-deps.js'

/** How often, and how far apart, a dispatched run is looked for when GitHub did not say which. */
export const LOCATE_TRIES = 3
const LOCATE_INTERVAL_MS = 5_000

/**
 * The run a sent dispatch started: the one GitHub returned, else the earliest
 * `workflow_dispatch` run of the workflow on the ref created since the dispatch (GitHub
 * Enterprise Server versions without `return_run_details` answer 204 without it). Null when
 * none is found (after `tries` looks, `LOCATE_INTERVAL_MS` apart) or it cannot be read.
 */
export async function locateFixerRun(
  deps: Pick<CommandDeps, 'github' | 'clock' | 'log'>,
  dispatch: Dispatch,
  tries = 1
): Promise<{ runId: number; url: string | null } | null> {
  if (dispatch.state !== 'sent') return null
  if (dispatch.runId !== null) return { runId: dispatch.runId, url: dispatch.url }
  for (let attempt = 1; attempt <= tries; attempt += 1) {
    try {
      const found = await deps.github.findDispatchedRun({
        workflow: dispatch.workflow,
        ref: dispatch.ref,
        since: Date.parse(dispatch.requestedAt)
      })
      if (found) return found
    } catch (error) {
      deps.log.warning(
        `Could not list the runs of ${dispatch.workflow} to find the fixer run: ${errorMessage(error)}`
      )
      return null
    }
    if (attempt < tries) await deps.clock.sleep(LOCATE_INTERVAL_MS)
  }
  deps.log.info(
    `No workflow_dispatch run of ${dispatch.workflow} on ${dispatch.ref} since ${dispatch.requestedAt} yet: the fixer run is not known`
  )
  return null
}

/** What the fixer run of `attempt` did (`running` when there is none, or it cannot be read). */
export async function fixerRunVerdict(
  deps: Pick<CommandDeps, 'github' | 'clock' | 'log'>,
  attempt: Attempt
): Promise<{ verdict: FixerRunVerdict; runId: number | null; url: string | null }> {
  const run = attempt.dispatch ? await locateFixerRun(deps, attempt.dispatch) : null
  if (!run) return { verdict: { kind: 'running' }, runId: null, url: null }
  try {
    const state = await deps.github.workflowRunStatus(run.runId)
    const jobs = state.kind === 'found' ? await deps.github.workflowRunJobs(run.runId) : []
    return { verdict: judgeFixerRun(run.runId, state, jobs, run.url), ...run }
  } catch (error) {
    deps.log.warning(`Could not read the fixer run ${run.runId}: ${errorMessage(error)}`)
    return { verdict: { kind: 'running' }, ...run }
  }
}

/** The fallback branches read per check, newest names last (gh-aw names them by time). */
const MAX_FALLBACK_BRANCHES = 3

/**
 * A fallback PR gh-aw opened into `branch` since `since` (epoch ms), or a fallback branch
 * committed since then, as a blocked cause.
 */
export async function fallbackOf(
  deps: Pick<CommandDeps, 'github' | 'log'>,
  branch: string,
  since: number
): Promise<Blocked | null> {
  const prefix = fallbackPrefix(branch)
  const failSoft = async <T>(what: string, read: () => Promise<T>, none: T): Promise<T> => {
    try {
      return await read()
    } catch (error) {
      deps.log.warning(`Could not read ${what} of ${branch}: ${errorMessage(error)}`)
      return none
    }
  }
  const pulls = await failSoft('the PRs', () => deps.github.pullsInto(branch, prefix), [])
  const found = fallbackBlocked(branch, pulls, since)
  if (found) return found
  const branches = await failSoft(
    "gh-aw's fallback branches",
    async () => {
      const refs = (await deps.github.branchesStartingWith(prefix)).slice(-MAX_FALLBACK_BRANCHES)
      return Promise.all(
        refs.map(async (ref) => ({
          name: ref.name,
          committedAt: (await deps.github.commit(ref.sha))?.committedAt ?? null
        }))
      )
    },
    []
  )
  return fallbackBlocked(branch, pulls, since, branches)
}

/**
 * Why no fix arrived after the red attempt `latest` although the branch head did not move,
 * or null when its fixer had its chance (its agent ran and its push landed): in this order,
 * this run's `safe_outputs` failed (`safe-outputs-result`), gh-aw diverted a push to a
 * fallback PR, the fixer run never ran its agent or its push failed.
 */
export async function whyNoFix(
  deps: Pick<CommandDeps, 'github' | 'clock' | 'log' | 'environment'>,
  input: { branch: string; latest: Attempt; safeOutputsResult: string | undefined }
): Promise<Blocked | null> {
  const ownRun = deps.environment.runId ?? null
  const own = safeOutputsBlocked(input.safeOutputsResult, ownRun)
  if (own) return own
  const since = Date.parse(input.latest.endedAt ?? input.latest.startedAt)
  const fallback = await fallbackOf(deps, input.branch, since)
  if (fallback) return fallback
  const dispatch = input.latest.dispatch
  // This run is the fixer: its agent ran (the gate runs after it), and its push is above.
  if (!dispatch || (ownRun !== null && dispatch.runId === ownRun)) return null
  const { verdict } = await fixerRunVerdict(deps, input.latest)
  return verdict.kind === 'no-fix' ? verdict.blocked : null
}
