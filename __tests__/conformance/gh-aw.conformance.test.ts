/**
 * gh-aw's own runtime scripts (vendored, unmodified, for every tag in vendor/gh-aw-actions)
 * around the gate from dist/, in the order of a real autoloop run (README: "gh-aw
 * conformance"). Every assertion is on branch contents, the fake's records, gh-aw's step
 * outputs or the gate's outputs; none on what gh-aw logs.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs'
import { join } from 'node:path'
import {
  startFakeGitHub,
  type CheckRunPlan,
  type FakeGitHub,
  type Scenario
} from '../../__fixtures__/fake-github/index.js'
import { emptyLedger, beginAttempt, completeAttempt, ledgerPath } from '../../src/loop/ledger.js'
import { ISSUE, ledgerOf, programFiles, stateFileOf } from '../commands/lifecycle-helpers.js'
import { ciGateSection, corpusLog } from '../helpers/gh-aw.js'
import { DIST_ENTRY } from '../helpers/run-action.js'
import { tempDir } from '../helpers/temp-dir.js'
import {
  MEMORY_BRANCH,
  PROGRAM,
  PROGRAM_BRANCH,
  agentJob,
  autoloopScenario,
  ghAwWorld,
  pushRepoMemoryJob,
  safeOutputsJob,
  type AgentJob
} from './autoloop-run.js'
import { gateJob, reconcileJob } from './gate-jobs.js'
import {
  LOCK_PATH,
  lockStepEnv,
  runScript,
  startJob,
  vendoredTags,
  type GhAwWorld
} from './gh-aw-runtime.js'

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
const describeTags =
  missing.length === 0 && TAGS.length > 0 ? describe.each(TAGS) : describe.skip.each(['none'])

/** gh-aw v0.65.6 is the tag autoloop's lock pins; later tags changed the memory push. */
const isLockTag = (tag: string) => tag === 'v0.65.6'

const JEST_LOG = corpusLog('jest/assertion/job-log.log')
const done = (sha: string, name: string, conclusion: 'success' | 'failure'): CheckRunPlan => ({
  sha,
  name,
  timeline: [{ at: 0, status: 'completed', conclusion }],
  ...(conclusion === 'failure'
    ? { log: JEST_LOG, rerun: [{ conclusion: 'failure', log: JEST_LOG }] }
    : {})
})

/** A ledger whose last iteration ended green a day ago (what an earlier gate left). */
function greenLedger() {
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

const INITIAL = {
  issue: ISSUE,
  iterationCount: 4,
  bestMetric: 0.81,
  recentStatuses: ['accepted' as const]
}

interface Commit {
  sha: string
  parents: string[]
  tree: string
  author: string
  committer: string
  subject: string
}

function commitOf(world: GhAwWorld, ref: string): Commit {
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

async function live(memory: Record<string, string>, extra: Partial<Scenario> = {}) {
  const world = ghAwWorld(tempDir('gh-aw-world-'))
  const fake = await startFakeGitHub({
    scenario: autoloopScenario(world, memory, extra),
    realTime: true
  })
  open.push(fake)
  world.apiUrl = fake.apiUrl
  return { world, fake }
}

const BOT = 'github-actions[bot] <github-actions[bot]@users.noreply.github.com>'
const ITERATION = { metric: 0.86, improved: true, change: 'cache parsed ranges' }

/** The agent's memory edits: a lesson learned (a line the gate never writes). */
const addLesson = (lesson: string) => (dir: string) => {
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
async function pushIteration(
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

describeTags('gh-aw %s', (tag) => {
  describe('push_to_pull_request_branch, then the gate', () => {
    it('the agent commit lands through GraphQL, gh-aw adds the empty CI-trigger commit; the gate gates that head and records the agent commit', async () => {
      const { world, fake } = await live(programFiles(PROGRAM, INITIAL))
      const { agent, safe, before, head } = await pushIteration(world, fake, tag, 19_000_000_101)

      // The head: gh-aw's empty commit, one parent, the parent's tree, the job's identity.
      expect(head).toMatchObject({ subject: 'ci: trigger checks', author: BOT })
      expect(head.parents).toHaveLength(1)
      const pushed = commitOf(world, head.parents[0]!)
      expect(head.tree).toBe(pushed.tree)
      // Under it the agent's change, re-created by GraphQL createCommitOnBranch: committed
      // by GitHub, a new SHA, on top of the branch as it was.
      expect(pushed).toMatchObject({ subject: 'perf: cache parsed ranges', committer: 'GitHub' })
      expect(pushed.parents).toEqual([before])
      expect(pushed.sha).not.toBe(agent.localSha)
      expect(fake.requests.filter((r) => r.route === 'POST /graphql').map((r) => r.status)).toEqual(
        [200]
      )
      // push_commit_sha: v0.65.6 exports the job's local SHA (after `git am`), which is not
      // on the remote; later tags export the pushed one.
      if (isLockTag(tag)) {
        expect(safe.outputs.push_commit_sha).not.toBe(pushed.sha)
        expect(existsIn(world, safe.outputs.push_commit_sha!)).toBe(false)
      } else expect(safe.outputs.push_commit_sha).toBe(pushed.sha)

      // CI runs on the head (the CI-trigger token's push); the agent's commit gets no checks.
      fake.state.checkRuns.push(
        done(head.sha, 'test', 'success'),
        done(head.sha, 'lint', 'success')
      )
      const gate = await gateJob(world, agent.job.runId, ITERATION, fake.serverUrl)
      expect(gate.errors).toEqual([])
      expect(gate.outputs).toMatchObject({
        status: 'success',
        verdict: 'green',
        sha: head.sha,
        attempt: '0'
      })
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]).toMatchObject({
        sha: head.sha,
        agentSha: pushed.sha,
        state: 'green'
      })
    })

    it('GraphQL refused: gh-aw falls back to git push; the same two commits, the agent commit as the job committed it', async () => {
      const { world, fake } = await live(programFiles(PROGRAM, INITIAL), {
        faults: [
          {
            kind: 'status',
            status: 403,
            route: 'POST /graphql',
            count: 'always',
            message: 'Resource not accessible by integration'
          }
        ]
      })
      const { before, head, safe } = await pushIteration(world, fake, tag, 19_000_000_111)
      expect(head).toMatchObject({ subject: 'ci: trigger checks', author: BOT })
      const pushed = commitOf(world, head.parents[0]!)
      expect(pushed).toMatchObject({
        subject: 'perf: cache parsed ranges',
        committer: 'github-actions[bot]'
      })
      expect(pushed.parents).toEqual([before])
      expect(head.tree).toBe(pushed.tree)
      expect(safe.outputs.push_commit_sha).toBe(pushed.sha)
      expect(fake.requests.filter((r) => r.route === 'POST /graphql').map((r) => r.status)).toEqual(
        [403]
      )
    })

    it('no CI-trigger token: no empty commit; the gate finds no checks on the agent commit and says so', async () => {
      const { world, fake } = await live(programFiles(PROGRAM, INITIAL))
      const { agent, before, head } = await pushIteration(world, fake, tag, 19_000_000_121, {
        safeEnv: { GH_AW_CI_TRIGGER_TOKEN: '' }
      })
      expect(head.subject).toBe('perf: cache parsed ranges')
      expect(head.parents).toEqual([before])
      const gate = await gateJob(world, agent.job.runId, ITERATION, fake.serverUrl)
      expect(gate.outputs).toMatchObject({ verdict: 'no-checks', sha: head.sha, status: 'paused' })
      expect(gate.outputs['pause-reason']).toMatch(/^ci-blocked: no CI ran on /)
    })
  })

  describe('push_repo_memory after the gate wrote', () => {
    /** Run 1's agent snapshot is taken; its push lands; the gate (red) writes; then the memory push. */
    async function gateThenMemoryPush(env: Record<string, string | undefined>) {
      const memory = programFiles(PROGRAM, INITIAL, greenLedger())
      const { world, fake } = await live(memory)
      const { agent, head } = await pushIteration(world, fake, tag, 19_000_000_201, {
        editMemory: addLesson('parse once, cache the ranges')
      })
      const snapshot = readFileSync(join(agent.memoryDir, `${PROGRAM}.md`), 'utf8')
      const staleLedger = readFileSync(join(agent.memoryDir, ledgerPath(PROGRAM)), 'utf8')
      fake.state.checkRuns.push(done(head.sha, 'test', 'failure'))
      const gate = await gateJob(world, agent.job.runId, ITERATION, fake.serverUrl)
      expect(gate.outputs).toMatchObject({ verdict: 'red', sha: head.sha })
      const gated = {
        md: stateFileOf(fake, PROGRAM)!,
        ledger: readFileSync0(fake, ledgerPath(PROGRAM))
      }
      expect(ciGateSection(gated.md)).toContain('fix attempt 1 of 5')
      const memoryPush = await pushRepoMemoryJob(world, agent, { tag, env })
      expect(memoryPush.failed).toBe(false)
      return { world, fake, agent, snapshot, staleLedger, gated }
    }

    it("with autoloop's file-glob: <program>.md is the agent's whole stale copy, the ledger keeps the gate's revision, reconcile projects it again", async () => {
      const { world, fake, snapshot, gated } = await gateThenMemoryPush({})
      const memoryHead = commitOf(world, MEMORY_BRANCH)
      expect(memoryHead.subject).toBe('Update repo memory from workflow run 19000000201')
      expect(stateFileOf(fake, PROGRAM)).toBe(snapshot)
      expect(ciGateSection(stateFileOf(fake, PROGRAM)!)).not.toContain('fix attempt 1 of 5')
      expect(readFileSync0(fake, ledgerPath(PROGRAM))).toBe(gated.ledger)

      const reconcile = await reconcileJob(world, 19_000_000_202, fake.serverUrl)
      expect(reconcile.errors).toEqual([])
      const repaired = stateFileOf(fake, PROGRAM)!
      expect(ciGateSection(repaired)).toContain('fix attempt 1 of 5')
      expect(repaired).toContain('- parse once, cache the ranges')
      expect(readFileSync0(fake, ledgerPath(PROGRAM))).toBe(gated.ledger)
    })

    it("without a file-glob (gh-aw's default): the stale ledger in the snapshot is pushed too, the ledger goes back", async () => {
      const { fake, snapshot, staleLedger, gated } = await gateThenMemoryPush({
        FILE_GLOB_FILTER: undefined
      })
      expect(stateFileOf(fake, PROGRAM)).toBe(snapshot)
      expect(readFileSync0(fake, ledgerPath(PROGRAM))).toBe(staleLedger)
      expect(staleLedger).not.toBe(gated.ledger)
    })

    it('nothing is deleted: a file the snapshot lacks stays on the branch', async () => {
      const { world, fake } = await live(programFiles(PROGRAM, INITIAL))
      const agent = await agentJob(world, {
        tag,
        runId: 19_000_000_301,
        change: { 'src/ranges.js': 'x\n' },
        message: 'perf',
        editMemory: addLesson('a lesson')
      })
      fake.commit(MEMORY_BRANCH, { 'other.md': '# another program\n' }, 'another program starts')
      const push = await pushRepoMemoryJob(world, agent, { tag })
      expect(push.failed).toBe(false)
      expect(fake.readFile(MEMORY_BRANCH, 'other.md')).toBe('# another program\n')
      expect(stateFileOf(fake, PROGRAM)).toContain('- a lesson')
    })
  })

  describe('two runs overlapping: a gate write lands while the memory push runs', () => {
    /** A post-commit hook: says it is ready, then waits until told to go on. */
    function pausingHook(dir: string): { hook: string; ready: string; go: string } {
      const ready = join(dir, 'ready')
      const go = join(dir, 'go')
      const hook = join(dir, 'post-commit')
      writeFileSync(
        hook,
        `#!/bin/sh\ntouch '${ready}'\ni=0\nwhile [ ! -e '${go}' ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n`
      )
      chmodSync(hook, 0o755)
      return { hook, ready, go }
    }

    async function race(extra: Partial<Scenario> = {}) {
      const memory = programFiles(PROGRAM, INITIAL, greenLedger())
      const { world, fake } = await live(memory, extra)
      // Run 2's agent took its snapshot before run 1's gate wrote.
      const run2 = await agentJob(world, {
        tag,
        runId: 19_000_000_402,
        change: { 'README.md': '# demo, run 2\n' },
        message: 'docs',
        editMemory: addLesson('run 2 learned this')
      })
      // Run 1 pushed; its CI is red.
      const { agent: run1, head } = await pushIteration(world, fake, tag, 19_000_000_401)
      fake.state.checkRuns.push(done(head.sha, 'test', 'failure'))
      // Run 2's memory push starts: it fetched and committed, and waits before it pulls.
      const pause = pausingHook(tempDir('gh-aw-hook-'))
      const pushing = pushRepoMemoryJob(world, run2, { tag, hook: pause.hook })
      while (!existsSync(pause.ready)) await new Promise((r) => setTimeout(r, 50))
      const before = commitOf(world, MEMORY_BRANCH).sha
      // Run 1's gate writes meanwhile.
      const gate = await gateJob(world, run1.job.runId, ITERATION, fake.serverUrl)
      expect(gate.outputs).toMatchObject({ verdict: 'red' })
      const gated = {
        md: stateFileOf(fake, PROGRAM)!,
        ledger: readFileSync0(fake, ledgerPath(PROGRAM))
      }
      writeFileSync(pause.go, '')
      const push = await pushing
      expect(push.failed).toBe(false)
      const snapshot = readFileSync(join(run2.memoryDir, `${PROGRAM}.md`), 'utf8')
      return { world, fake, run2, gated, snapshot, before }
    }

    const mixed = async (result: Awaited<ReturnType<typeof race>>) => {
      const { world, fake, gated, snapshot } = result
      const text = stateFileOf(fake, PROGRAM)!
      // A line-level mix: run 2's lesson and the gate's brief both survive.
      expect(text).not.toBe(snapshot)
      expect(text).not.toBe(gated.md)
      expect(text).toContain('- run 2 learned this')
      expect(ciGateSection(text)).toContain('fix attempt 1 of 5')
      // by a merge (`pull --no-rebase -X ours`), never a force-push
      const head = commitOf(world, MEMORY_BRANCH)
      expect(head.parents).toHaveLength(2)
      expect(head.parents).toContain(commitOf(world, `${MEMORY_BRANCH}~1`).sha)
      expect(readFileSync0(fake, ledgerPath(PROGRAM))).toBe(gated.ledger)
      // reconcile: the ledger stands, the projection is the gate's again with the lesson kept
      const reconcile = await reconcileJob(world, 19_000_000_403, fake.serverUrl)
      expect(reconcile.errors).toEqual([])
      const after = stateFileOf(fake, PROGRAM)!
      expect(ciGateSection(after)).toContain('fix attempt 1 of 5')
      expect(after).toContain('- run 2 learned this')
      expect(readFileSync0(fake, ledgerPath(PROGRAM))).toBe(gated.ledger)
    }

    if (isLockTag(tag)) {
      it('git push rejected, `pull -X ours` merges: a line-level mix; the ledger untouched; reconcile projects again', async () => {
        await mixed(await race())
      })
    } else {
      it('GraphQL reads the head at push time: the whole stale file lands on top of the gate write; the ledger untouched; reconcile projects again', async () => {
        const { world, fake, gated, snapshot } = await race()
        expect(stateFileOf(fake, PROGRAM)).toBe(snapshot)
        expect(commitOf(world, MEMORY_BRANCH).parents).toHaveLength(1)
        expect(commitOf(world, MEMORY_BRANCH).committer).toBe('GitHub')
        expect(readFileSync0(fake, ledgerPath(PROGRAM))).toBe(gated.ledger)
        const reconcile = await reconcileJob(world, 19_000_000_403, fake.serverUrl)
        expect(reconcile.errors).toEqual([])
        expect(ciGateSection(stateFileOf(fake, PROGRAM)!)).toContain('fix attempt 1 of 5')
        expect(stateFileOf(fake, PROGRAM)).toContain('- run 2 learned this')
      })

      it('GraphQL refused: the non-fast-forward git push is retried after `pull -X ours`: the same line-level mix', async () => {
        await mixed(
          await race({
            faults: [
              {
                kind: 'status',
                status: 403,
                route: 'POST /graphql',
                count: 'always',
                message: 'Resource not accessible by integration'
              }
            ]
          })
        )
      })
    }
  })

  describe('the membership check of a run the gate dispatched (actor github-actions[bot], workflow_dispatch)', () => {
    async function activated(allowedBots: string | undefined): Promise<boolean> {
      const { world, fake } = await live(programFiles(PROGRAM, INITIAL))
      const job = startJob(world, 'pre_activation', 19_000_000_501)
      const env = {
        GITHUB_EVENT_NAME: 'workflow_dispatch',
        GITHUB_ACTOR: 'github-actions[bot]',
        ...(allowedBots ? { GH_AW_ALLOWED_BOTS: allowedBots } : {})
      }
      const payload = {
        inputs: { program: PROGRAM },
        ref: 'refs/heads/main',
        workflow: '.github/workflows/autoloop.lock.yml'
      }
      const membership = await runScript(job, {
        tag,
        script: 'check_membership',
        payload,
        env: {
          ...lockStepEnv(
            'pre_activation',
            { id: 'check_membership' },
            world.expressions(job.runId)
          ),
          ...env
        }
      })
      const position = await runScript(job, {
        tag,
        script: 'check_command_position',
        payload,
        env: {
          ...lockStepEnv(
            'pre_activation',
            { id: 'check_command_position' },
            world.expressions(job.runId)
          ),
          ...env
        }
      })
      expect([membership.failed, position.failed]).toEqual([false, false])
      expect(fake.requests.filter((r) => r.route?.includes('collaborators'))).toEqual([])
      // the lock's `activated` output
      return (
        membership.outputs.is_team_member === 'true' &&
        position.outputs.command_position_ok === 'true'
      )
    }

    // This tag predates gh-aw PR #31605, which stops trusting workflow_dispatch: the lock's
    // `write` role lets every dispatched run through, bot or not.
    it('without on.bots: activated (this tag still trusts workflow_dispatch)', async () => {
      expect(await activated(undefined)).toBe(true)
    })

    it('with on.bots: [github-actions[bot]]: activated', async () => {
      expect(await activated('github-actions[bot]')).toBe(true)
    })
  })
})

function existsIn(world: GhAwWorld, sha: string): boolean {
  try {
    execFileSync('git', [`--git-dir=${world.gitDir}`, 'cat-file', '-e', `${sha}^{commit}`], {
      stdio: 'ignore'
    })
    return true
  } catch {
    return false
  }
}

function readFileSync0(fake: FakeGitHub, path: string): string | undefined {
  return fake.readFile(MEMORY_BRANCH, path)
}

void (null as unknown as AgentJob)
