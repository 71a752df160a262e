/**
 * Smoke tests of the bundle as the runner runs it: `node dist/index.js` with `INPUT_*`
 * variables, GITHUB_API_URL at the fake, the output and summary files, the exit code. The
 * fake runs on real time here (the bundle uses the system clock), so timelines are seconds.
 * Everything else is tested in-process (see __tests__/integration).
 */
import { describe, expect, it } from '@jest/globals'
import {
  startFakeGitHub,
  type CheckRunPlan,
  type Scenario
} from '../../__fixtures__/fake-github/index.js'
import { expectValidRequests } from '../helpers/fake-run.js'
import { runAction, type ActionRun } from '../helpers/run-action.js'
import { programFiles } from '../app/commands/lifecycle-helpers.js'

const SHA = 'c0ffee'.padEnd(40, '0')
const BRANCH = 'autoloop/perf'

const check = (name: string, seconds: number, conclusion: 'success' | 'failure'): CheckRunPlan => ({
  sha: SHA,
  name,
  timeline: [
    { at: 0, status: 'queued' },
    { at: seconds, status: 'completed', conclusion }
  ]
})

async function withLiveFake(
  scenario: Scenario,
  body: (
    env: Record<string, string>,
    fake: Awaited<ReturnType<typeof startFakeGitHub>>
  ) => Promise<void>
): Promise<void> {
  const fake = await startFakeGitHub({
    scenario: { branches: { [BRANCH]: SHA }, ...scenario },
    realTime: true
  })
  try {
    await body(
      {
        GITHUB_API_URL: fake.apiUrl,
        GITHUB_SERVER_URL: fake.serverUrl,
        GITHUB_REPOSITORY: `${fake.state.owner}/${fake.state.repo}`
      },
      fake
    )
    expectValidRequests(fake)
  } finally {
    await fake.close()
  }
}

/** Inputs that keep a real-time run short: poll every second, a few seconds of grace. */
const QUICK = { 'poll-interval-seconds': '1', 'checks-grace-seconds': '2', push: 'false' }

// Each test has its own fake and its own process, and mostly waits in real time (the client
// keeps writes a second apart): they run side by side.
describe('node dist/index.js, as the runner runs it', () => {
  it.concurrent('green: exit 0, every output set, the job summary written', async () => {
    await withLiveFake({ checkRuns: [check('test', 1, 'success')] }, async (env) => {
      const run: ActionRun = await runAction({ inputs: { program: 'perf', ...QUICK }, env })
      expect(run.exitCode).toBe(0)
      expect(run.outputs).toMatchObject({
        status: 'success',
        verdict: 'green',
        sha: SHA,
        attempt: '0'
      })
      expect(Object.keys(run.outputs)).toEqual(
        expect.arrayContaining(['dispatched', 'pre-existing', 'failure-summary-path', 'resumed'])
      )
      expect(run.summary).toContain('🟢 green')
    })
  })

  it.concurrent(
    'red with fail-on-red: the step fails with an error annotation, the outputs still set',
    async () => {
      await withLiveFake({ checkRuns: [check('test', 1, 'failure')] }, async (env) => {
        const run = await runAction({
          inputs: { program: 'perf', 'fail-on-red': 'true', ...QUICK },
          env
        })
        expect(run.exitCode).toBe(1)
        expect(run.outputs).toMatchObject({ status: 'failure', verdict: 'red' })
        expect(run.errors.join('\n')).toContain('fail-on-red is set')
      })
    }
  )

  it.concurrent('a bad input: exit 1, the input named, no request sent', async () => {
    await withLiveFake({}, async (env, fake) => {
      const run = await runAction({
        inputs: { program: 'perf', 'pre-existing-failures': 'maybe' },
        env
      })
      expect(run.exitCode).toBe(1)
      expect(run.outputs.status).toBe('error')
      expect(run.errors.join('\n')).toContain('input `pre-existing-failures`')
      expect(fake.requests).toEqual([])
    })
  })

  it.concurrent(
    'reconcile reads the state branch with git, spending no rate limit on an idle program',
    async () => {
      await withLiveFake(
        { contents: { 'memory/autoloop': programFiles('perf') } },
        async (env, fake) => {
          const run = await runAction({ inputs: { command: 'reconcile' }, env })
          expect(run.exitCode).toBe(0)
          expect(run.outputs).toMatchObject({ status: 'reconciled', resumed: '[]', errors: '[]' })
          expect(fake.gitRequests.some((request) => request.service === 'git-upload-pack')).toBe(
            true
          )
          expect(fake.rateLimit.pointsSpent).toBe(0)
        }
      )
    }
  )
})
