/**
 * What the conformance test files share: the vendored tags to run (skipped, with a message,
 * without autoloop's lock or dist/), one live fake GitHub per scenario (every request it got
 * checked after the test), the commits on the fake's bare repository, and one autoloop
 * iteration's agent and safe_outputs jobs.
 */
import { afterEach, describe, expect, jest } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  startFakeGitHub,
  type CheckRunPlan,
  type FakeGitHub,
  type Scenario
} from '../../__fixtures__/fake-github/index.js'
import { emptyLedger, beginAttempt, completeAttempt } from '../../src/core/ledger.js'
import { ISSUE } from '../app/commands/lifecycle-helpers.js'
import { corpusLog } from '../helpers/gh-aw.js'
import { DIST_ENTRY } from '../helpers/run-action.js'
import { tempDir } from '../helpers/temp-dir.js'
import {
  MEMORY_BRANCH,
  PROGRAM,
  PROGRAM_BRANCH,
  agentJob,
  autoloopScenario,
  ghAwWorld,
  safeOutputsJob
} from './autoloop-run.js'
import { LOCK_PATH, vendoredTags, type GhAwWorld } from './gh-aw-runtime.js'

// Each scenario runs real git, several gh-aw steps and the bundled gate in child processes.
jest.setTimeout(120_000)

const TAGS = vendoredTags()
const missing = [
  [LOCK_PATH, "autoloop's lock"],
  [DIST_ENTRY, 'dist/ (npm run build)']
].filter(([path]) => !existsSync(path!))
if (missing.length > 0 || TAGS.length === 0)
  console.log(
    `gh-aw conformance skipped: missing ${[...missing.map(([p, what]) => `${what} at ${p}`), ...(TAGS.length ? [] : ['vendor/gh-aw-actions'])].join(', ')}`
  )
export const describeTags =
  missing.length === 0 && TAGS.length > 0 ? describe.each(TAGS) : describe.skip.each(['none'])

/** gh-aw v0.65.6 is the tag autoloop's lock pins; later tags changed the memory push. */
export const isLockTag = (tag: string) => tag === 'v0.65.6'

export const JEST_LOG = corpusLog('jest/assertion/job-log.log')
export const done = (
  sha: string,
  name: string,
  conclusion: 'success' | 'failure'
): CheckRunPlan => ({
  sha,
  name,
  timeline: [{ at: 0, status: 'completed', conclusion }],
  ...(conclusion === 'failure'
    ? { log: JEST_LOG, rerun: [{ conclusion: 'failure', log: JEST_LOG }] }
    : {})
})

/** A ledger whose last iteration ended green a day ago (what an earlier gate left). */
export function greenLedger() {
  const at = Date.now() - 24 * 3600_000
  let ledger = emptyLedger(PROGRAM, at)
  ledger = beginAttempt(ledger, {
    sha: 'a'.repeat(40),
    runId: 18_000_000_001,
    now: at,
    maxFixAttempts: 5,
    timeoutMinutes: 60
  }).ledger
  return completeAttempt(ledger, 0, { state: 'green', now: at + 300_000 })
}

export const INITIAL = {
  issue: ISSUE,
  iterationCount: 4,
  bestMetric: 0.81,
  recentStatuses: ['accepted' as const]
}

export interface Commit {
  sha: string
  parents: string[]
  tree: string
  author: string
  committer: string
  subject: string
}

export function commitOf(world: GhAwWorld, ref: string): Commit {
  const [sha, parents, tree, author, committer, subject] = execFileSync(
    'git',
    [
      `--git-dir=${world.gitDir}`,
      'log',
      '-1',
      '--format=%H%x00%P%x00%T%x00%an <%ae>%x00%cn%x00%s',
      ref
    ],
    { encoding: 'utf8' }
  )
    .trim()
    .split('\0')
  return {
    sha: sha!,
    parents: parents!.split(' ').filter(Boolean),
    tree: tree!,
    author: author!,
    committer: committer!,
    subject: subject!
  }
}

const open: FakeGitHub[] = []
// What gh-aw's scripts and the gate asked of the fake fits GitHub's description and was served.
afterEach(async () => {
  for (const fake of open.splice(0)) {
    try {
      expect(
        fake.invalidRequests().map((r) => `${r.method} ${r.path}: ${r.openapi.errors.join('; ')}`)
      ).toEqual([])
      expect(fake.unimplementedRequests().map((r) => `${r.method} ${r.path}`)).toEqual([])
    } finally {
      await fake.close()
    }
  }
})

export async function live(
  memory: Record<string, string>,
  extra: Partial<Scenario> = {},
  programBranch = true
) {
  const world = ghAwWorld(tempDir('gh-aw-world-'))
  const fake = await startFakeGitHub({
    scenario: autoloopScenario(world, memory, extra, programBranch),
    realTime: true
  })
  open.push(fake)
  world.apiUrl = fake.apiUrl
  return { world, fake }
}

export const BOT = 'github-actions[bot] <github-actions[bot]@users.noreply.github.com>'
export const ITERATION = { metric: 0.86, improved: true, change: 'cache parsed ranges' }

/** The agent's memory edits: a lesson learned (a line the gate never writes). */
export const addLesson = (lesson: string) => (dir: string) => {
  const file = join(dir, `${PROGRAM}.md`)
  writeFileSync(
    file,
    readFileSync(file, 'utf8').replace(
      '## 📚 Lessons Learned\n',
      `## 📚 Lessons Learned\n\n- ${lesson}\n`
    )
  )
}

/** Agent job + safe_outputs of one run; returns the agent, the pushed heads and the outputs. */
export async function pushIteration(
  world: GhAwWorld,
  fake: FakeGitHub,
  tag: string,
  runId: number,
  options: { editMemory?: (dir: string) => void; safeEnv?: Record<string, string | undefined> } = {}
) {
  const before = fake.state.branches[PROGRAM_BRANCH]!
  const agent = await agentJob(world, {
    tag,
    runId,
    change: { 'src/ranges.js': `module.exports = { run: ${runId} }\n` },
    message: 'perf: cache parsed ranges',
    ...(options.editMemory ? { editMemory: options.editMemory } : {})
  })
  expect(agent.clone.failed).toBe(false)
  const safe = await safeOutputsJob(world, agent, {
    tag,
    ...(options.safeEnv ? { env: options.safeEnv } : {})
  })
  expect(safe.failed).toBe(false)
  expect(safe.outputs.code_push_failure_count ?? '0').toBe('0')
  const head = commitOf(world, PROGRAM_BRANCH)
  return { agent, safe, before, head }
}

export function existsIn(world: GhAwWorld, sha: string): boolean {
  try {
    execFileSync('git', [`--git-dir=${world.gitDir}`, 'cat-file', '-e', `${sha}^{commit}`], {
      stdio: 'ignore'
    })
    return true
  } catch {
    return false
  }
}

export function readFileSync0(fake: FakeGitHub, path: string): string | undefined {
  return fake.readFile(MEMORY_BRANCH, path)
}
