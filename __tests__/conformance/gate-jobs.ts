/**
 * The gate's jobs in a gh-aw autoloop run, from the bundle (`node dist/index.js`, as the
 * runner runs it): `ci_gate` after safe_outputs and push_repo_memory, and `reconcile`.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runAction, type ActionRun } from '../helpers/run-action.js'
import { MEMORY_BRANCH } from './autoloop-run.js'
import { OWNER, REPO, startJob, type GhAwWorld } from './gh-aw-runtime.js'

/** The selection the scheduler handed over (the fixture it wrote, for this program). */
const SELECTION = readFileSync(
  join(import.meta.dirname, '../../__fixtures__/handover/selection-selected.json'),
  'utf8'
)

/** The `ci_gate` job: the bundled action (`node dist/index.js`), as the runner runs it. */
export async function gateJob(
  world: GhAwWorld,
  runId: number,
  iteration: { metric: number | null; improved: boolean; change: string },
  serverUrl: string
): Promise<ActionRun> {
  const job = startJob(world, 'ci_gate', runId)
  const selection = join(job.dir, 'autoloop.json')
  const iterationFile = join(job.dir, 'iteration.json')
  writeFileSync(selection, SELECTION)
  writeFileSync(iterationFile, JSON.stringify(iteration))
  return runAction({
    inputs: {
      push: 'false',
      'selection-file': selection,
      'iteration-file': iterationFile,
      'state-branch': MEMORY_BRANCH,
      'dispatch-workflow': 'autoloop.lock.yml',
      'create-pr': 'false',
      'poll-interval-seconds': '1',
      'checks-grace-seconds': '3'
    },
    env: {
      GITHUB_API_URL: world.apiUrl,
      GITHUB_SERVER_URL: serverUrl,
      GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
      GITHUB_RUN_ID: String(runId)
    },
    timeoutMs: 60_000
  })
}

/**
 * `reconcile` (the `ci_reconcile` job, or a schedule), from the bundle. `workspace`: the job's
 * checkout of the workflows, which its doctor reads (without one the doctor says nothing).
 */
export function reconcileJob(
  world: GhAwWorld,
  runId: number,
  serverUrl: string,
  workspace?: string
): Promise<ActionRun> {
  return runAction({
    inputs: { command: 'reconcile', 'state-branch': MEMORY_BRANCH },
    env: {
      GITHUB_API_URL: world.apiUrl,
      GITHUB_SERVER_URL: serverUrl,
      GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
      GITHUB_RUN_ID: String(runId),
      ...(workspace ? { GITHUB_WORKSPACE: workspace } : {})
    },
    timeoutMs: 60_000
  })
}
