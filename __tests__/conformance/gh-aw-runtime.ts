/**
 * gh-aw's released runtime scripts (vendor/gh-aw-actions/<tag>, unmodified) run as a compiled
 * autoloop workflow runs them (docs/gh-aw.md: "gh-aw conformance"): each step a child process with
 * the environment variables autoloop's lock sets for it, `actions/github-script`'s globals
 * (github-script.mjs), real git, and the fake GitHub API. Remotes that the scripts build as
 * `https://x-access-token:<token>@github.com/<owner>/<repo>.git` reach the fake's bare
 * repository through `url.<file:///…>.insteadOf` in the job's global git config.
 *
 * The scripts write fixed paths under /tmp/gh-aw/. Each job gets its own folder mounted
 * there: as root, a private mount namespace (`unshare -m` + a bind mount), so jobs of
 * parallel tests never meet; elsewhere one job at a time holds a lock and /tmp/gh-aw is a
 * symbolic link to its folder.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  writeFileSync
} from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parse } from 'yaml'
import { parseOutputFile } from '../helpers/output-file.js'

const ROOT = resolve(import.meta.dirname, '../..')
export const VENDOR = join(ROOT, 'vendor', 'gh-aw-actions')
/** autoloop's compiled workflow (made by gh-aw v0.65.6); read where it is, never copied. */
export const LOCK_PATH = resolve(
  ROOT,
  '../shared/autoloop/438782ff/.github/workflows/autoloop.lock.yml'
)
const RUNNER = join(import.meta.dirname, 'github-script.mjs')
const GH_AW_TMP = '/tmp/gh-aw'
const LOCK_DIR = '/tmp/gh-aw.conformance-lock'

export const OWNER = 'octo-org'
export const REPO = 'demo'
/** The job's GITHUB_TOKEN and the GH_AW_CI_TRIGGER_TOKEN secret (a PAT) as the fake sees them. */
export const GITHUB_TOKEN = 'ghs_conformance_github_token'
export const CI_TRIGGER_TOKEN = 'ghp_conformance_ci_trigger'
const SERVER_URL = 'https://github.com'

/** The vendored tags, oldest first (GH_AW_TAGS=v1,v2 narrows them). */
export function vendoredTags(): string[] {
  const all = existsSync(VENDOR)
    ? readdirSync(VENDOR)
        .filter((tag) => /^v\d+\.\d+\.\d+$/.test(tag))
        .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    : []
  const wanted = process.env.GH_AW_TAGS?.split(',').map((tag) => tag.trim())
  return wanted ? all.filter((tag) => wanted.includes(tag)) : all
}

// --- autoloop's lock ------------------------------------------------------------------------

interface LockStep {
  id?: string
  name?: string
  env?: Record<string, string | number | boolean>
}
interface LockJob {
  env?: Record<string, string>
  steps: LockStep[]
}

let lockJobs: Record<string, LockJob> | undefined

function lock(): Record<string, LockJob> {
  lockJobs ??= (parse(readFileSync(LOCK_PATH, 'utf8')) as { jobs: Record<string, LockJob> }).jobs
  return lockJobs
}

/**
 * The environment autoloop's lock gives one step (the job's `env` under the step's), with
 * its `${{ … }}` expressions replaced by `values` (an expression not given: empty, as
 * GitHub does for a missing secret or output).
 */
export function lockStepEnv(
  job: string,
  step: { id?: string; name?: string },
  values: Record<string, string>
): Record<string, string> {
  const found = lock()[job]
  const lockStep = found?.steps.find((s) => (step.id ? s.id === step.id : s.name === step.name))
  if (!found || !lockStep)
    throw new Error(`autoloop's lock has no step ${JSON.stringify(step)} in ${job}`)
  const env: Record<string, string> = {}
  for (const [name, raw] of Object.entries({ ...found.env, ...lockStep.env })) {
    env[name] = String(raw).replace(
      /\$\{\{\s*(.+?)\s*\}\}/g,
      (_, expr: string) => values[expr] ?? ''
    )
  }
  return env
}

// --- one simulated GitHub: the fake's bare repository and the jobs' folders ----------------

export interface GhAwWorld {
  /** Folder holding `<owner>/<repo>.git` (the fake's `scenario.gitDir`) and the jobs. */
  root: string
  gitDir: string
  apiUrl: string
  /** Expressions of the lock and their values (`github.run_id` is set per job). */
  expressions(runId: number): Record<string, string>
}

/** A world under `root`: pass `gitDir` to the fake, then `attach(world, fake.apiUrl)`. */
export function ghAwWorld(root: string): GhAwWorld {
  mkdirSync(join(root, OWNER), { recursive: true })
  const gitDir = join(root, OWNER, `${REPO}.git`)
  const world: GhAwWorld = {
    root,
    gitDir,
    apiUrl: '',
    expressions: (runId) => ({
      'github.repository': `${OWNER}/${REPO}`,
      'github.run_id': String(runId),
      'github.server_url': SERVER_URL,
      'github.api_url': world.apiUrl,
      'github.token': GITHUB_TOKEN,
      'secrets.GITHUB_TOKEN': GITHUB_TOKEN,
      'secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN': GITHUB_TOKEN,
      'secrets.GH_AW_CI_TRIGGER_TOKEN': CI_TRIGGER_TOKEN,
      'steps.setup-agent-output-env.outputs.GH_AW_AGENT_OUTPUT': `${GH_AW_TMP}/agent_output.json`
    })
  }
  return world
}

/** A job's machine: its own HOME, global git config, RUNNER_TEMP and /tmp/gh-aw folder. */
export interface Job {
  name: string
  dir: string
  /** Mounted at /tmp/gh-aw while the job's steps run. */
  ghAwDir: string
  runId: number
  env: Record<string, string>
}

export function startJob(world: GhAwWorld, name: string, runId: number): Job {
  const dir = join(world.root, 'jobs', `${name}-${runId}-${Math.random().toString(36).slice(2, 8)}`)
  const ghAwDir = join(dir, 'gh-aw')
  const home = join(dir, 'home')
  const runnerTemp = join(dir, 'runner-temp')
  for (const folder of [ghAwDir, home, runnerTemp]) mkdirSync(folder, { recursive: true })
  const gitconfig = join(home, '.gitconfig')
  const target = `file://${world.root}/`
  // What the lock's "Configure Git credentials" steps set globally, and the remotes' redirect.
  const config = [
    '[user]',
    '\temail = github-actions[bot]@users.noreply.github.com',
    '\tname = github-actions[bot]',
    '[am]',
    '\tkeepcr = true',
    '[init]',
    '\tdefaultBranch = main',
    `[url "${target}"]`,
    ...[GITHUB_TOKEN, CI_TRIGGER_TOKEN].map(
      (token) => `\tinsteadOf = https://x-access-token:${token}@github.com/`
    ),
    '\tinsteadOf = https://github.com/',
    ''
  ]
  writeFileSync(gitconfig, config.join('\n'))
  return {
    name,
    dir,
    ghAwDir,
    runId,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      GIT_CONFIG_GLOBAL: gitconfig,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      RUNNER_TEMP: runnerTemp,
      GITHUB_ACTIONS: 'true',
      GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
      GITHUB_SERVER_URL: SERVER_URL,
      GITHUB_API_URL: world.apiUrl,
      GITHUB_RUN_ID: String(runId),
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_WORKFLOW: 'Autoloop',
      GITHUB_JOB: name,
      GITHUB_EVENT_NAME: 'schedule',
      GITHUB_ACTOR: 'octocat',
      GITHUB_REF: 'refs/heads/main'
    }
  }
}

/** Runs git in a folder with the job's git configuration; returns stdout. */
export function jobGit(job: Job, cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: job.env, encoding: 'utf8', stdio: 'pipe' })
}

/**
 * actions/checkout of the default branch (fetch-depth 1, persist-credentials false), then the
 * lock's "Configure Git credentials": origin with the job's token. Returns the workspace.
 */
export function checkout(job: Job, ref = 'main'): string {
  const workspace = join(job.dir, 'workspace')
  jobGit(
    job,
    job.dir,
    'clone',
    '--depth',
    '1',
    '--branch',
    ref,
    `${SERVER_URL}/${OWNER}/${REPO}.git`,
    workspace
  )
  jobGit(
    job,
    workspace,
    'remote',
    'set-url',
    'origin',
    `https://x-access-token:${GITHUB_TOKEN}@github.com/${OWNER}/${REPO}.git`
  )
  return workspace
}

/** An artifact: a job's folder copied into another job's (upload-artifact, download-artifact). */
export function transferArtifact(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true })
  cpSync(from, to, { recursive: true })
}

// --- running a step -------------------------------------------------------------------------

export interface StepRun {
  exitCode: number
  stdout: string
  stderr: string
  outputs: Record<string, string>
  /** Whether the step failed (`core.setFailed` or a non-zero exit). */
  failed: boolean
}

let isolation: 'namespace' | 'lock' | undefined

/** A private mount namespace where we are root and `unshare` works; else the lock. */
function isolationKind(): 'namespace' | 'lock' {
  if (isolation) return isolation
  // GH_AW_ISOLATION=lock forces the fallback (to try it where namespaces work)
  const probe =
    process.env.GH_AW_ISOLATION !== 'lock' &&
    process.getuid?.() === 0 &&
    spawnSync('unshare', ['-m', '--propagation', 'private', 'true'], { stdio: 'ignore' }).status ===
      0
  isolation = probe ? 'namespace' : 'lock'
  return isolation
}

async function withTmpLock<T>(ghAwDir: string, body: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(LOCK_DIR)
      writeFileSync(join(LOCK_DIR, 'pid'), String(process.pid))
      break
    } catch {
      if (lockHolderGone()) rmSync(LOCK_DIR, { recursive: true, force: true })
      else await new Promise((r) => setTimeout(r, 50))
    }
  }
  try {
    // an empty folder is the mount point a namespace run left: nothing to keep
    if (existsSync(GH_AW_TMP) && !isSymlink(GH_AW_TMP) && readdirSync(GH_AW_TMP).length === 0)
      rmdirSync(GH_AW_TMP)
    if (existsSync(GH_AW_TMP) || isSymlink(GH_AW_TMP)) {
      if (!isSymlink(GH_AW_TMP))
        throw new Error(
          `${GH_AW_TMP} exists and is not a link left by this suite: remove it, or run the conformance suite as root with unshare (see docs/gh-aw.md: "gh-aw conformance")`
        )
      unlinkSync(GH_AW_TMP)
    }
    symlinkSync(ghAwDir, GH_AW_TMP)
    return await body()
  } finally {
    if (isSymlink(GH_AW_TMP)) unlinkSync(GH_AW_TMP)
    rmSync(LOCK_DIR, { recursive: true, force: true })
  }
}

/** Whether the process that holds the lock has ended without releasing it. */
function lockHolderGone(): boolean {
  let pid: number
  try {
    pid = Number(readFileSync(join(LOCK_DIR, 'pid'), 'utf8'))
  } catch {
    return false // being taken right now, or released
  }
  try {
    process.kill(pid, 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

/** Runs a command as one of the job's steps: /tmp/gh-aw is the job's own folder. */
export function spawnStep(
  job: Job,
  command: string[],
  env: Record<string, string>,
  cwd: string
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const kind = isolationKind()
  const argv =
    kind === 'namespace'
      ? [
          'unshare',
          '-m',
          '--propagation',
          'private',
          'sh',
          '-c',
          'mkdir -p /tmp/gh-aw && mount --bind "$0" /tmp/gh-aw && exec "$@"',
          job.ghAwDir,
          ...command
        ]
      : command
  if (kind === 'namespace') mkdirSync(GH_AW_TMP, { recursive: true })
  const run = () =>
    new Promise<{ exitCode: number; stdout: string; stderr: string }>((resolveRun, reject) => {
      const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      child.on('error', reject)
      child.on('close', (code) => resolveRun({ exitCode: code ?? 1, stdout, stderr }))
    })
  return kind === 'namespace' ? run() : withTmpLock(job.ghAwDir, run)
}

export interface ScriptStep {
  tag: string
  /** A gh-aw script in setup/js, without `.cjs`. */
  script: string
  env?: Record<string, string | undefined>
  cwd?: string
  /** The token `github` is made with (github-script's `github-token`); default GITHUB_TOKEN. */
  token?: string
  /** The event payload (GITHUB_EVENT_PATH). */
  payload?: object
  /** Call this export with these arguments instead of `main()`; its result is `result`. */
  call?: { fn: string; args: unknown[] }
}

/** One `actions/github-script` step running a vendored gh-aw script. */
export async function runScript(
  job: Job,
  step: ScriptStep
): Promise<StepRun & { result?: unknown }> {
  const stepDir = join(job.dir, 'steps', `${step.script}-${Math.random().toString(36).slice(2, 8)}`)
  mkdirSync(stepDir, { recursive: true })
  const outputFile = join(stepDir, 'output')
  const resultFile = join(stepDir, 'result.json')
  const eventFile = join(stepDir, 'event.json')
  writeFileSync(outputFile, '')
  writeFileSync(join(stepDir, 'summary'), '')
  writeFileSync(eventFile, JSON.stringify(step.payload ?? {}))
  const request = join(stepDir, 'request.json')
  writeFileSync(
    request,
    JSON.stringify({
      dir: join(VENDOR, step.tag, 'setup', 'js'),
      script: step.script,
      ...(step.call ? { call: { ...step.call, resultFile } } : {})
    })
  )
  const env: Record<string, string> = {
    ...job.env,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: join(stepDir, 'summary'),
    GITHUB_EVENT_PATH: eventFile,
    GH_AW_SCRIPT_TOKEN: step.token ?? GITHUB_TOKEN
  }
  for (const [name, value] of Object.entries(step.env ?? {})) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  const cwd = step.cwd ?? job.dir
  const run = await spawnStep(job, [process.execPath, RUNNER, request], env, cwd)
  const failed = run.exitCode !== 0 || run.stdout.split('\n').some((l) => l.startsWith('::error::'))
  return {
    ...run,
    failed,
    outputs: parseOutputFile(readFileSync(outputFile, 'utf8')),
    ...(existsSync(resultFile)
      ? { result: JSON.parse(readFileSync(resultFile, 'utf8')) as unknown }
      : {})
  }
}

/** One `run: bash …` step running a vendored gh-aw shell script. */
export async function runShell(
  job: Job,
  step: { tag: string; script: string; env: Record<string, string> }
): Promise<StepRun> {
  const script = join(VENDOR, step.tag, 'setup', 'sh', step.script)
  const run = await spawnStep(job, ['bash', script], { ...job.env, ...step.env }, job.dir)
  return { ...run, failed: run.exitCode !== 0, outputs: {} }
}
