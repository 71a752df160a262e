/**
 * The jobs of one autoloop workflow run, in the lock's order, each running gh-aw's own
 * scripts (gh-aw-runtime.ts): the agent job (the repo-memory clone, the agent's commit and
 * memory edits, gh-aw's patch), `safe_outputs` (the push handler, its CI-trigger commit),
 * `push_repo_memory`. The gate's jobs between and after them are in gate-jobs.ts. No jest
 * here: `npm run demo` runs these jobs too.
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Scenario } from '../../__fixtures__/fake-github/index.js'
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

/** The world's fake scenario: its bare repository, the program's branch, PR and files. */
export function autoloopScenario(
  world: GhAwWorld,
  memory: Record<string, string>,
  extra: Partial<Scenario> = {},
  /** false: the program has no branch and no PR yet (its first iteration opens them). */
  programBranch = true
): Scenario {
  return {
    owner: OWNER,
    repo: REPO,
    gitDir: world.gitDir,
    ...extra,
    contents: {
      main: { 'README.md': '# demo\n', 'src/ranges.js': 'module.exports = {}\n' },
      ...(programBranch
        ? {
            [PROGRAM_BRANCH]: { 'README.md': '# demo\n', 'src/ranges.js': 'module.exports = {}\n' }
          }
        : {}),
      [MEMORY_BRANCH]: memory,
      ...extra.contents
    },
    pulls: programBranch
      ? [
          {
            number: PULL,
            head: PROGRAM_BRANCH,
            title: `[Autoloop: ${PROGRAM}] improve coverage`,
            draft: true
          }
        ]
      : []
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
    /** The agent's edits to its memory snapshot. */
    editMemory?: (memoryDir: string) => void
    /** The program's branch and its pull request; default `autoloop/coverage`, #5. */
    branch?: string
    pull?: number
    /** Commits after the first, each its own. */
    more?: Array<{ change: Record<string, string>; message: string }>
    /**
     * `push`: push_to_pull_request_branch onto the existing branch (default); `create`:
     * create_pull_request, the branch made from `main` (the program's first iteration).
     */
    kind?: 'push' | 'create'
  }
): Promise<AgentJob> {
  const job = startJob(world, 'agent', options.runId)
  const branch = options.branch ?? PROGRAM_BRANCH
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
  const create = options.kind === 'create'
  if (create) jobGit(job, workspace, 'checkout', '-b', branch)
  else {
    jobGit(job, workspace, 'fetch', 'origin', `${branch}:${branch}`)
    jobGit(job, workspace, 'checkout', branch)
  }
  for (const commit of [
    { change: options.change, message: options.message },
    ...(options.more ?? [])
  ]) {
    for (const [path, text] of Object.entries(commit.change))
      writeFileSync(join(workspace, path), text)
    jobGit(job, workspace, 'add', '-A')
    jobGit(job, workspace, 'commit', '-m', commit.message)
  }
  const localSha = jobGit(job, workspace, 'rev-parse', 'HEAD').trim()
  options.editMemory?.(memoryDir)

  const patch = await runScript(job, {
    tag: options.tag,
    script: 'generate_git_patch',
    cwd: workspace,
    env: { GITHUB_WORKSPACE: workspace },
    // what the safe-outputs tool asks for: only the new commits for a push, all for a PR
    call: {
      fn: 'generateGitPatch',
      args: [branch, 'main', { mode: create ? 'full' : 'incremental' }]
    }
  })
  const result = patch.result as { success?: boolean; patchPath?: string; baseCommit?: string }
  if (!result?.success || !result.patchPath)
    throw new Error(
      `gh-aw made no patch: ${JSON.stringify(result)}\n${patch.stdout}${patch.stderr}`
    )
  const item = {
    ...(create
      ? {
          type: 'create_pull_request',
          title: `[Autoloop: ${branch.replace(/^autoloop\//, '')}] ${options.message}`,
          body: 'The first iteration of the program.'
        }
      : {
          type: 'push_to_pull_request_branch',
          pull_request_number: options.pull ?? PULL,
          message: options.message
        }),
    branch,
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

export { ghAwWorld }
