/**
 * gh-aw's memory push (vendored, unmodified, for every tag in vendor/gh-aw-actions) against
 * what the gate from dist/ wrote, alone and racing a gate write, and reconcile after it, whose
 * doctor reads the job's checkout of the workflows (docs/gh-aw.md: "gh-aw conformance"). Assertions
 * are on branch contents and the gate's outputs.
 */
import { describe, expect, it } from '@jest/globals'
import {
  describeTags,
  isLockTag,
  done,
  greenLedger,
  INITIAL,
  commitOf,
  live,
  ITERATION,
  addLesson,
  pushIteration,
  readFileSync0
} from './scenario.js'
import { MEMORY_BRANCH, PROGRAM, agentJob, pushRepoMemoryJob } from './autoloop-run.js'
import { LOCK_PATH, lockStepEnv } from './gh-aw-runtime.js'
import { gateJob, reconcileJob } from './gate-jobs.js'
import { type Scenario } from '../../__fixtures__/fake-github/index.js'
import { programFiles, stateFileOf } from '../app/commands/lifecycle-helpers.js'
import { ciGateSection } from '../helpers/gh-aw.js'
import { tempDir } from '../helpers/temp-dir.js'
import { ledgerPath } from '../../src/core/ledger.js'
import { existsSync, readFileSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
/** autoloop's checkout as published (438782ff): its workflows, read where they are. */
const PUBLISHED = resolve(dirname(LOCK_PATH), '../..')

/**
 * A checkout of autoloop's workflows with the memory's `file-glob` removed from autoloop.md and
 * from the lock's push_repo_memory step (the environment the scenario above runs gh-aw's push
 * without), everything else as published. Written to a temporary folder, removed after the tests.
 */
function checkoutWithoutGlob(): string {
  const glob = lockStepEnv('push_repo_memory', { id: 'push_repo_memory_default' }, {})
  expect(glob.FILE_GLOB_FILTER).toBe('*.md')
  const dir = tempDir('autoloop-no-glob-')
  const workflows = join(dir, '.github', 'workflows')
  mkdirSync(workflows, { recursive: true })
  const edits: [string, RegExp][] = [
    ['autoloop.md', /^ +file-glob: .*\n/gm],
    ['autoloop.lock.yml', /^ +FILE_GLOB_FILTER: .*\n/gm]
  ]
  for (const [file, line] of edits) {
    const text = readFileSync(join(dirname(LOCK_PATH), file), 'utf8')
    expect(text.match(line)).toHaveLength(1)
    writeFileSync(join(workflows, file), text.replace(line, ''))
  }
  return dir
}

/** The level of each check in the `doctor` output reconcile sets. */
function doctorLevels(run: { outputs: Record<string, string> }): Record<string, string> {
  const report = JSON.parse(run.outputs.doctor ?? '') as { checks: { id: string; level: string }[] }
  return Object.fromEntries(report.checks.map((check) => [check.id, check.level]))
}

describeTags('gh-aw %s', (tag) => {
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
        ledger: readFileSync0(fake, ledgerPath(PROGRAM)),
        head: commitOf(world, MEMORY_BRANCH).sha
      }
      expect(ciGateSection(gated.md)).toContain('fix attempt 1 of 5')
      const memoryPush = await pushRepoMemoryJob(world, agent, { tag, env })
      expect(memoryPush.failed).toBe(false)
      return { world, fake, agent, snapshot, staleLedger, gated }
    }

    it("with autoloop's file-glob: <program>.md is the agent's whole stale copy, the ledger keeps the gate's revision, reconcile projects it again; its doctor passes memory-glob", async () => {
      const { world, fake, snapshot, gated } = await gateThenMemoryPush({})
      const memoryHead = commitOf(world, MEMORY_BRANCH)
      // a fast-forward on top of the gate's write: no failure, no conflict seen
      expect(memoryHead).toMatchObject({
        subject: 'Update repo memory from workflow run 19000000201',
        parents: [gated.head]
      })
      expect(stateFileOf(fake, PROGRAM)).toBe(snapshot)
      expect(ciGateSection(stateFileOf(fake, PROGRAM)!)).not.toContain('fix attempt 1 of 5')
      expect(readFileSync0(fake, ledgerPath(PROGRAM))).toBe(gated.ledger)

      // ci_reconcile with its checkout of autoloop's workflows, read where they are
      const reconcile = await reconcileJob(world, 19_000_000_202, fake.serverUrl, PUBLISHED)
      expect(reconcile.errors).toEqual([])
      expect(doctorLevels(reconcile)['memory-glob']).toBe('ok')
      const repaired = stateFileOf(fake, PROGRAM)!
      expect(ciGateSection(repaired)).toContain('fix attempt 1 of 5')
      expect(repaired).toContain('- parse once, cache the ranges')
      expect(readFileSync0(fake, ledgerPath(PROGRAM))).toBe(gated.ledger)
    })

    it("without a file-glob (gh-aw's default): the stale ledger in the snapshot is pushed too, the ledger goes back; reconcile's doctor fails memory-glob", async () => {
      const { world, fake, snapshot, staleLedger, gated } = await gateThenMemoryPush({
        FILE_GLOB_FILTER: undefined
      })
      expect(stateFileOf(fake, PROGRAM)).toBe(snapshot)
      expect(readFileSync0(fake, ledgerPath(PROGRAM))).toBe(staleLedger)
      expect(staleLedger).not.toBe(gated.ledger)

      const reconcile = await reconcileJob(
        world,
        19_000_000_203,
        fake.serverUrl,
        checkoutWithoutGlob()
      )
      // fail-soft: the doctor's failure is in its output and summary, reconcile succeeds
      expect(reconcile.exitCode).toBe(0)
      expect(doctorLevels(reconcile)['memory-glob']).toBe('fail')
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
      // Run 1's gate writes meanwhile.
      const gate = await gateJob(world, run1.job.runId, ITERATION, fake.serverUrl)
      expect(gate.outputs).toMatchObject({ verdict: 'red' })
      const gated = {
        md: stateFileOf(fake, PROGRAM)!,
        ledger: readFileSync0(fake, ledgerPath(PROGRAM)),
        head: commitOf(world, MEMORY_BRANCH).sha
      }
      writeFileSync(pause.go, '')
      const push = await pushing
      expect(push.failed).toBe(false)
      const snapshot = readFileSync(join(run2.memoryDir, `${PROGRAM}.md`), 'utf8')
      return { world, fake, run2, gated, snapshot }
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
      expect(head.parents).toContain(gated.head)
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
        expect(commitOf(world, MEMORY_BRANCH).parents).toEqual([gated.head])
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
})
