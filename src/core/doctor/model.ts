/**
 * What the doctor (docs/commands.md: "doctor") reads and what it says, as plain data. Pure.
 */

/** gh-aw's autoloop workflow, as the README installs it. */
export const WORKFLOW_FILE = '.github/workflows/autoloop.md'
export const LOCK_FILE = '.github/workflows/autoloop.lock.yml'
export const WORKFLOWS_DIR = '.github/workflows'

/**
 * The oldest gh-aw release the integration works with: it compiled autoloop's own lock.
 * docs/commands.md ("doctor") names both constants.
 */
export const OLDEST_SUPPORTED_GH_AW = 'v0.65.6'
/**
 * The newest release known to have no `fallback-as-pull-request` (its push handler, vendored in
 * vendor/gh-aw-actions, has none: a push that does not fast-forward fails). The README's
 * version table tells its users to leave the key out.
 */
export const GH_AW_WITHOUT_PUSH_FALLBACK = 'v0.65.6'
/**
 * The newest gh-aw release whose compiled lock this version was tested with (its runtime scripts:
 * docs/gh-aw.md, "gh-aw conformance").
 */
export const NEWEST_TESTED_GH_AW = 'v0.72.1'
/**
 * The first release after gh-aw PR #31605, which stopped trusting `workflow_dispatch` in
 * pre-activation: from it on, a fixer run dispatched with GITHUB_TOKEN (actor
 * `github-actions[bot]`) is skipped unless `on.bots` lists the bot.
 */
export const FIRST_GH_AW_SKIPPING_BOT_DISPATCH = 'v0.73.0'

export type Level = 'ok' | 'warn' | 'fail'

export interface Finding {
  /** Stable id of the check (`ci-gate`, `memory-glob`, …). */
  id: string
  /** What is checked, in a few words. */
  title: string
  level: Level
  /** What was found. */
  message: string
  /** What to change; null when the check is ok. */
  fix: string | null
}

export interface RepoFile {
  path: string
  text: string
}

/** The files the doctor reads, and where from. */
export interface SetupFiles {
  /** `local: <dir>` or `contents API at <branch>`. */
  source: string
  workflow: RepoFile | null
  lock: RepoFile | null
  /** Every other workflow file (`*.yml`, `*.yaml`, not gh-aw locks). */
  others: RepoFile[]
  /** Workflow files not read (over the read cap). */
  skipped: number
}

/** Facts only the API can tell; null when unknown (offline). */
export interface RepoFacts {
  defaultBranch: string | null
  /** Whether the state branch exists; null when unknown. */
  stateBranchExists: boolean | null
  /** Why the state branch is unknown (offline, or the error), when it is. */
  stateBranchNote?: string
  /** The workflow file names on the default branch; null when unknown, absent when not asked. */
  defaultBranchWorkflows?: string[] | null
  /** Why they are unknown, when they are. */
  defaultBranchNote?: string
}

export interface DoctorReport {
  status: Level
  source: string
  /** False when the repository has no autoloop workflow at all (nothing else was checked). */
  found: boolean
  checks: Finding[]
}

export function statusOf(findings: readonly Finding[]): Level {
  if (findings.some((f) => f.level === 'fail')) return 'fail'
  if (findings.some((f) => f.level === 'warn')) return 'warn'
  return 'ok'
}
