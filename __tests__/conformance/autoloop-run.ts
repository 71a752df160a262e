/**
 * The jobs of one autoloop workflow run, in the lock's order, each running gh-aw's own
 * scripts (gh-aw-runtime.ts): the agent job (the repo-memory clone, the agent's commit and
 * memory edits, gh-aw's patch), `safe_outputs` (the push handler, its CI-trigger commit),
 * `push_repo_memory`, and the gate from `dist/` between and after them.
 */
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Scenario } from '../../__fixtures__/fake-github/index.js'
import { runAction, type ActionRun } from '../helpers/run-action.js'
import {
  OWNER,
  REPO,
  checkout,
  ghAwWorld,
  jobGit,
  lockStepEnv,
  runScript,
  runShell,
  startJob,
  transferArtifact,
  type GhAwWorld,
  type Job,
  type StepRun
} from './gh-aw-runtime.js'

export const PROGRAM = 'coverage'
export const PROGRAM_BRANCH = `autoloop/${PROGRAM}`
export const MEMORY_BRANCH = 'memory/autoloop'
export const PULL = 5
const MEMORY_DIR = '/tmp/gh-aw/repo-memory/default'

/** The world's fake scenario: its bare repository, the program's branch, PR and files. */
export function autoloopScenario(
  world: GhAwWorld,
  memory: Record<string, string>,
  extra: Partial<Scenario> = {}
): Scenario {
  return {
    owner: OWNER,
    repo: REPO,
    gitDir: world.gitDir,
    ...extra,
    contents: {
      main: { 'README.md': '# demo\n', 'src/ranges.js': 'module.exports = {}\n' },
      [PROGRAM_BRANCH]: { 'README.md': '# demo\n', 'src/ranges.js': 'module.exports = {}\n' },
      [MEMORY_BRANCH]: memory,
      ...extra.contents
    },
    pulls: [
      {
        number: PULL,
        head: PROGRAM_BRANCH,
        title: `[Autoloop: ${PROGRAM}] improve coverage`,
        draft: true
      }
    ]
  }
}

export interface AgentJob {
  job: Job
  /** The agent's working copy of the memory branch (/tmp/gh-aw/repo-memory/default). */
  memoryDir: string
  /** The agent's own commit (its local SHA). */
  localSha: string
  clone: StepRun
}

/**
 * The agent job up to its end: gh-aw's repo-memory clone (the lock's step), the agent's
 * commit on the program branch and its memory edits, then gh-aw's patch of that commit and
 * the `push_to_pull_request_branch` item in agent_output.json (what the safe-outputs tool
 * writes when the agent calls it).
 */
export async function agentJob(
  world: GhAwWorld,
  options: {
    tag: string
    runId: number
    change: Record<string, string>
    message: string
    /** Edits to the memory snapshot, made after `beforeEdits` ran. */
    editMemory?: (memoryDir: string) => void
  }
): Promise<AgentJob> {
  const job = startJob(world, 'agent', options.runId)
  const clone = await runShell(job, {
    tag: options.tag,
    script: 'clone_repo_memory_branch.sh',
    env: lockStepEnv(
      'agent',
      { name: 'Clone repo-memory branch (default)' },
      world.expressions(job.runId)
    )
  })
  const memoryDir = join(job.ghAwDir, 'repo-memory', 'default')
  const workspace = checkout(job)
  jobGit(job, workspace, 'fetch', 'origin', `${PROGRAM_BRANCH}:${PROGRAM_BRANCH}`)
  jobGit(job, workspace, 'checkout', PROGRAM_BRANCH)
  for (const [path, text] of Object.entries(options.change))
    writeFileSync(join(workspace, path), text)
  jobGit(job, workspace, 'add', '-A')
  jobGit(job, workspace, 'commit', '-m', options.message)
  const localSha = jobGit(job, workspace, 'rev-parse', 'HEAD').trim()
  options.editMemory?.(memoryDir)

  const patch = await runScript(job, {
    tag: options.tag,
    script: 'generate_git_patch',
    cwd: workspace,
    env: { GITHUB_WORKSPACE: workspace },
    call: { fn: 'generateGitPatch', args: [PROGRAM_BRANCH, 'main', { mode: 'incremental' }] }
  })
  const result = patch.result as { success?: boolean; patchPath?: string; baseCommit?: string }
  if (!result?.success || !result.patchPath)
    throw new Error(
      `gh-aw made no patch: ${JSON.stringify(result)}\n${patch.stdout}${patch.stderr}`
    )
  const item = {
    type: 'push_to_pull_request_branch',
    branch: PROGRAM_BRANCH,
    pull_request_number: PULL,
    message: options.message,
    patch_path: result.patchPath,
    ...(result.baseCommit ? { base_commit: result.baseCommit } : {})
  }
  writeFileSync(
    join(job.ghAwDir, 'agent_output.json'),
    JSON.stringify({ items: [item], errors: [] })
  )
  return { job, memoryDir, localSha, clone }
}

/** The `safe_outputs` job: gh-aw's handler manager with the lock's configuration. */
export async function safeOutputsJob(
  world: GhAwWorld,
  agent: AgentJob,
  options: { tag: string; env?: Record<string, string | undefined> }
): Promise<StepRun> {
  const job = startJob(world, 'safe_outputs', agent.job.runId)
  // download-artifact `agent` into /tmp/gh-aw/: the output file and the patch
  for (const file of readdirSync(agent.job.ghAwDir).filter(
    (f) => f.endsWith('.json') || f.endsWith('.patch')
  ))
    transferArtifact(join(agent.job.ghAwDir, file), join(job.ghAwDir, file))
  const workspace = checkout(job)
  return runScript(job, {
    tag: options.tag,
    script: 'safe_output_handler_manager',
    cwd: workspace,
    env: {
      ...lockStepEnv('safe_outputs', { id: 'process_safe_outputs' }, world.expressions(job.runId)),
      GITHUB_WORKSPACE: workspace,
      ...options.env
    }
  })
}

/**
 * The `push_repo_memory` job: the agent's memory folder as its artifact (hidden files are
 * not uploaded), a checkout, then gh-aw's push_repo_memory with the lock's environment.
 * `beforePull`, when given, runs after gh-aw committed and before it pulls (a git hook).
 */
export async function pushRepoMemoryJob(
  world: GhAwWorld,
  agent: AgentJob,
  options: { tag: string; env?: Record<string, string | undefined>; hook?: string }
): Promise<StepRun> {
  const job = startJob(world, 'push_repo_memory', agent.job.runId)
  const artifact = join(job.ghAwDir, 'repo-memory', 'default')
  transferArtifact(agent.memoryDir, artifact)
  rmSync(join(artifact, '.git'), { recursive: true, force: true })
  const workspace = checkout(job)
  if (options.hook) {
    const hooks = join(job.dir, 'hooks')
    transferArtifact(options.hook, join(hooks, 'post-commit'))
    jobGit(job, workspace, 'config', 'core.hooksPath', hooks)
  }
  return runScript(job, {
    tag: options.tag,
    script: 'push_repo_memory',
    cwd: workspace,
    env: {
      ...lockStepEnv(
        'push_repo_memory',
        { id: 'push_repo_memory_default' },
        world.expressions(job.runId)
      ),
      GITHUB_WORKSPACE: workspace,
      ...options.env
    }
  })
}

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

/** `reconcile` (the `ci_reconcile` job, or a schedule), from the bundle. */
export function reconcileJob(
  world: GhAwWorld,
  runId: number,
  serverUrl: string
): Promise<ActionRun> {
  return runAction({
    inputs: { command: 'reconcile', 'state-branch': MEMORY_BRANCH },
    env: {
      GITHUB_API_URL: world.apiUrl,
      GITHUB_SERVER_URL: serverUrl,
      GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
      GITHUB_RUN_ID: String(runId)
    },
    timeoutMs: 60_000
  })
}

export { ghAwWorld, MEMORY_DIR }
