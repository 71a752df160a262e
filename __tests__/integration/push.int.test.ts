/**
 * The gate pushing the checkout's HEAD itself (`push: true`): a real `git push` to a local
 * bare repository that the fake API serves as the repository, the action run in-process.
 */
import { describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { BRANCH, PROGRAM, withFake } from '../helpers/fake-run.js'
import { createLocalRepo } from '../helpers/git-repo.js'
import { runInProcess } from '../helpers/in-process.js'
import { tempDir } from '../helpers/temp-dir.js'
import { ledgerOf, stateFileOf } from '../app/commands/lifecycle-helpers.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'

const stateDir = () => tempDir('autoloop-state-')

describe('gate with a real push to a local bare repository', () => {
  it('pushes local HEAD to autoloop/<program> and gates exactly that SHA', async () => {
    const repo = createLocalRepo(BRANCH)
    const sha = repo.commit('metric.txt', '0.91\n', 'iteration 1')
    await withFake(
      {
        gitDir: repo.bare,
        checkRuns: [
          {
            branch: BRANCH,
            head: 1,
            name: 'test',
            timeline: [
              { at: 0, status: 'queued' },
              { at: 240, status: 'completed', conclusion: 'success' }
            ]
          }
        ]
      },
      async (fake) => {
        const run = await runInProcess(fake, {
          inputs: { program: PROGRAM, 'state-dir': stateDir() },
          cwd: repo.work
        })
        expect(run.outputs).toMatchObject({ status: 'success', verdict: 'green', sha })
        expect(
          execFileSync('git', ['rev-parse', BRANCH], { cwd: repo.bare, encoding: 'utf8' }).trim()
        ).toBe(sha)
        // Checks were read for the pushed SHA, never for a branch name or a PR.
        const refs = fake.requests
          .filter((r) => r.route?.endsWith('/check-runs'))
          .map((r) => r.path.split('/')[5])
        expect(new Set(refs)).toEqual(new Set([sha]))
      }
    )
  })

  it('a rejected push is an error that says the branch moved', async () => {
    const repo = createLocalRepo(BRANCH)
    repo.commit('metric.txt', '0.91\n', 'iteration 1')
    repo.git('push', '-q', 'origin', BRANCH)
    // Someone else moves the branch; the local iteration is no longer a fast-forward.
    repo.git('reset', '-q', '--hard', 'HEAD~1')
    repo.commit('metric.txt', '0.95\n', 'another iteration')
    await withFake({ gitDir: repo.bare }, async (fake) => {
      const run = await runInProcess(fake, {
        inputs: { program: PROGRAM, 'state-dir': stateDir() },
        cwd: repo.work
      })
      expect(run.exitCode).toBe(1)
      expect(run.outputs.status).toBe('error')
      const error = run.errors.join('\n')
      expect(error).toContain(`Push to ${BRANCH} was rejected: the branch moved`)
      expect(error).toContain('never force-pushes')
      expect(fake.requests.filter((r) => r.route?.endsWith('/check-runs'))).toEqual([])
    })
  })

  it('a push that starts no CI pauses as blocked (no fix can help), explaining the GITHUB_TOKEN rule', async () => {
    const repo = createLocalRepo(BRANCH)
    const sha = repo.commit('metric.txt', '0.91\n', 'iteration 1')
    await withFake({ gitDir: repo.bare, contents: { 'memory/autoloop': {} } }, async (fake) => {
      const run = await runInProcess(fake, {
        inputs: { program: PROGRAM, 'checks-grace-seconds': '60' },
        cwd: repo.work
      })
      expect(run.outputs).toMatchObject({
        status: 'paused',
        verdict: 'no-checks',
        'pause-reason': `ci-blocked: no CI ran on ${sha.slice(0, 12)} within 60 s`,
        'attempts-remaining': '5'
      })
      expect(run.summary).toContain('pushes made with GITHUB_TOKEN start no workflow runs')
      expect(run.summary).toContain('`push-token`')
      // The fixer reads it too, in the failure summary.
      expect(run.outputs['failure-summary']).toContain('`push-token`')
      const reading = readLikeScheduler(stateFileOf(fake, PROGRAM) as string)
      expect(reading).toMatchObject({ skipped: true, fields: { paused: 'true' } })
      // No fix attempt was spent: the one attempt is blocked, not red.
      const ledger = ledgerOf(fake, PROGRAM)
      expect(ledger?.attempts.map((a) => [a.index, a.state])).toEqual([[0, 'blocked']])
    })
  })
})
