/**
 * gh-aw's push handlers and membership check (vendored, unmodified, for every tag in
 * vendor/gh-aw-actions) around the gate from dist/, in the order of a real autoloop run
 * (docs/gh-aw.md: "gh-aw conformance"). Every assertion is on branch contents, the fake's records,
 * gh-aw's step outputs or the gate's outputs; none on what gh-aw logs.
 */
import { describe, expect, it } from '@jest/globals'
import {
  describeTags,
  isLockTag,
  done,
  INITIAL,
  commitOf,
  live,
  BOT,
  ITERATION,
  pushIteration,
  existsIn
} from './scenario.js'
import { PROGRAM, PROGRAM_BRANCH, agentJob, ghAwWorld, safeOutputsJob } from './autoloop-run.js'
import { gateJob } from './gate-jobs.js'
import {
  CI_TRIGGER_TOKEN,
  lockStepEnv,
  runScript,
  startJob,
  type GhAwWorld
} from './gh-aw-runtime.js'
import { ledgerOf, programFiles } from '../app/commands/lifecycle-helpers.js'
import { tempDir } from '../helpers/temp-dir.js'
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

  describe('when gh-aw adds the empty CI-trigger commit', () => {
    it("autoloop's lock wires the CI-trigger secret into the handler step", () => {
      const env = lockStepEnv(
        'safe_outputs',
        { id: 'process_safe_outputs' },
        ghAwWorld(tempDir('gh-aw-world-')).expressions(1)
      )
      expect(env.GH_AW_CI_TRIGGER_TOKEN).toBe(CI_TRIGGER_TOKEN)
    })

    it('two new commits in one push: no empty commit; the gate finds no checks on the second', async () => {
      const { world, fake } = await live(programFiles(PROGRAM, INITIAL))
      const before = fake.state.branches[PROGRAM_BRANCH]!
      const agent = await agentJob(world, {
        tag,
        runId: 19_000_000_131,
        change: { 'src/ranges.js': 'one\n' },
        message: 'perf: first half',
        more: [{ change: { 'src/ranges.js': 'two\n' }, message: 'perf: second half' }]
      })
      const safe = await safeOutputsJob(world, agent, { tag })
      expect(safe.failed).toBe(false)
      const head = commitOf(world, PROGRAM_BRANCH)
      expect(head.subject).toBe('perf: second half')
      expect(commitOf(world, head.parents[0]!)).toMatchObject({
        subject: 'perf: first half',
        parents: [before]
      })
      const gate = await gateJob(world, agent.job.runId, ITERATION, fake.serverUrl)
      expect(gate.outputs).toMatchObject({ verdict: 'no-checks', sha: head.sha })
    })

    it.each([
      [29, true],
      [30, false]
    ])(
      'the cycle guard: %i empty commits among the last 60: empty commit pushed %s',
      async (empties, pushed) => {
        const { world, fake } = await live(programFiles(PROGRAM, INITIAL))
        for (let i = 0; i < empties; i += 1) fake.commit(PROGRAM_BRANCH, {}, 'ci: trigger checks')
        await agentJob(world, {
          tag,
          runId: 19_000_000_141,
          change: { 'src/ranges.js': 'x\n' },
          message: 'perf'
        }).then((agent) => safeOutputsJob(world, agent, { tag }))
        expect(commitOf(world, PROGRAM_BRANCH).subject).toBe(pushed ? 'ci: trigger checks' : 'perf')
      }
    )
  })

  describe("create_pull_request (a program's first iteration)", () => {
    /** The lock's handler configuration, with create_pull_request's keys changed. */
    const handlerConfig = (world: GhAwWorld, change: Record<string, unknown>) => {
      const env = lockStepEnv('safe_outputs', { id: 'process_safe_outputs' }, world.expressions(1))
      const config = JSON.parse(env.GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG!) as Record<
        string,
        Record<string, unknown>
      >
      config.create_pull_request = { ...config.create_pull_request, ...change }
      return { GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG: JSON.stringify(config) }
    }

    it("autoloop's lock (no preserve-branch-name): the branch gets a random suffix, the PR is opened from it, the empty commit on top", async () => {
      const { world, fake } = await live(programFiles(PROGRAM, INITIAL), {}, false)
      const agent = await agentJob(world, {
        tag,
        runId: 19_000_000_151,
        change: { 'src/ranges.js': 'first\n' },
        message: 'perf: first iteration',
        kind: 'create'
      })
      const safe = await safeOutputsJob(world, agent, { tag })
      expect(safe.failed).toBe(false)
      expect(fake.state.pulls).toHaveLength(1)
      const pull = fake.state.pulls[0]!
      expect(pull.head).toMatch(new RegExp(`^${PROGRAM_BRANCH}-[0-9a-f]{16}$`))
      expect(pull).toMatchObject({ base: 'main', draft: true })
      expect(safe.outputs.created_pr_number).toBe(String(pull.number))
      const head = commitOf(world, pull.head)
      expect(head).toMatchObject({ subject: 'ci: trigger checks', author: BOT })
      // counted as origin/main..HEAD: the one agent commit, on top of main
      const pushed = commitOf(world, head.parents[0]!)
      expect(pushed.subject).toBe('perf: first iteration')
      expect(pushed.parents).toEqual([commitOf(world, 'main').sha])
      expect(existsIn(world, `refs/heads/${PROGRAM_BRANCH}`)).toBe(false)
    })

    it("with preserve-branch-name (autoloop's workflow source): autoloop/<program>; the gate gates its empty commit", async () => {
      const { world, fake } = await live(programFiles(PROGRAM, INITIAL), {}, false)
      const agent = await agentJob(world, {
        tag,
        runId: 19_000_000_161,
        change: { 'src/ranges.js': 'first\n' },
        message: 'perf: first iteration',
        kind: 'create'
      })
      const safe = await safeOutputsJob(world, agent, {
        tag,
        env: handlerConfig(world, { preserve_branch_name: true })
      })
      expect(safe.failed).toBe(false)
      expect(fake.state.pulls.map((p) => p.head)).toEqual([PROGRAM_BRANCH])
      const head = commitOf(world, PROGRAM_BRANCH)
      expect(head.subject).toBe('ci: trigger checks')
      const pushed = commitOf(world, head.parents[0]!)
      fake.state.checkRuns.push(done(head.sha, 'test', 'success'))
      const gate = await gateJob(world, agent.job.runId, ITERATION, fake.serverUrl)
      expect(gate.errors).toEqual([])
      expect(gate.outputs).toMatchObject({ status: 'success', verdict: 'green', sha: head.sha })
      expect(ledgerOf(fake, PROGRAM)!.attempts[0]).toMatchObject({
        sha: head.sha,
        agentSha: pushed.sha
      })
    })

    it('two commits on the new branch: no empty commit', async () => {
      const { world } = await live(programFiles(PROGRAM, INITIAL), {}, false)
      const agent = await agentJob(world, {
        tag,
        runId: 19_000_000_171,
        change: { 'src/ranges.js': 'one\n' },
        message: 'perf: one',
        more: [{ change: { 'src/ranges.js': 'two\n' }, message: 'perf: two' }],
        kind: 'create'
      })
      const safe = await safeOutputsJob(world, agent, {
        tag,
        env: handlerConfig(world, { preserve_branch_name: true })
      })
      expect(safe.failed).toBe(false)
      expect(commitOf(world, PROGRAM_BRANCH).subject).toBe('perf: two')
    })
  })

  describe('the membership check (pre_activation) of a run the gate dispatched', () => {
    /** gh-aw's check_membership and check_command_position with the lock's environment. */
    async function preActivation(options: {
      event: string
      actor: string
      allowedBots?: string
    }): Promise<{ activated: boolean; result: string | undefined; asked: number }> {
      const { world, fake } = await live(programFiles(PROGRAM, INITIAL), {
        collaborators: { octocat: 'write' }
      })
      const job = startJob(world, 'pre_activation', 19_000_000_501)
      const env = {
        GITHUB_EVENT_NAME: options.event,
        GITHUB_ACTOR: options.actor,
        ...(options.allowedBots ? { GH_AW_ALLOWED_BOTS: options.allowedBots } : {})
      }
      const payload = {
        inputs: { program: PROGRAM },
        ref: 'refs/heads/main',
        workflow: '.github/workflows/autoloop.lock.yml'
      }
      const step = (id: string, script: string) =>
        runScript(job, {
          tag,
          script,
          payload,
          env: { ...lockStepEnv('pre_activation', { id }, world.expressions(job.runId)), ...env }
        })
      const membership = await step('check_membership', 'check_membership')
      const position = await step('check_command_position', 'check_command_position')
      expect([membership.failed, position.failed]).toEqual([false, false])
      return {
        // the lock's `activated` output
        activated:
          membership.outputs.is_team_member === 'true' &&
          position.outputs.command_position_ok === 'true',
        result: membership.outputs.result,
        asked: fake.requests.filter((r) => r.route?.includes('/collaborators/')).length
      }
    }

    // This tag predates gh-aw PR #31605, which stops trusting workflow_dispatch: with the
    // lock's roles (write among them) every dispatched run is let through, bot or not.
    it.each([
      ['without on.bots', undefined],
      ['with on.bots: [github-actions[bot]]', 'github-actions[bot]']
    ])(
      'workflow_dispatch by github-actions[bot], %s: activated, without asking',
      async (_, allowedBots) => {
        expect(
          await preActivation({
            event: 'workflow_dispatch',
            actor: 'github-actions[bot]',
            ...(allowedBots ? { allowedBots } : {})
          })
        ).toEqual({ activated: true, result: 'safe_event', asked: 0 })
      }
    )

    // What #31605 makes of a dispatched run: the permission check this tag already applies to
    // repository_dispatch. github-actions[bot] has no role: only on.bots lets it through.
    it('an event it checks, by github-actions[bot]: not activated; with on.bots: activated', async () => {
      const bot = { event: 'repository_dispatch', actor: 'github-actions[bot]' }
      expect(await preActivation(bot)).toMatchObject({
        activated: false,
        result: 'insufficient_permissions'
      })
      expect(await preActivation({ ...bot, allowedBots: 'github-actions[bot]' })).toMatchObject({
        activated: true,
        result: 'authorized_bot'
      })
      expect(await preActivation({ event: 'repository_dispatch', actor: 'octocat' })).toMatchObject(
        { activated: true, result: 'authorized' }
      )
    })
  })
})
