import { describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { BRANCH, PROGRAM, actionEnv, withFake } from '../helpers/fake-run.js'
import { createLocalRepo } from '../helpers/git-repo.js'
import { runAction } from '../helpers/run-action.js'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const stateDir = () => mkdtempSync(join(tmpdir(), 'autoloop-state-'))

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
        const run = await runAction({
          inputs: { program: PROGRAM, 'state-dir': stateDir() },
          env: actionEnv(fake, { GITHUB_WORKSPACE: repo.work })
        })
        expect(run.outputs).toMatchObject({ status: 'success', verdict: 'green', sha })
        expect(
          execFileSync('git', ['rev-parse', BRANCH], { cwd: repo.bare, encoding: 'utf8' }).trim()
        ).toBe(sha)
        expect(run.stdout).toContain(`Pushing ${sha} to ${BRANCH} (fast-forward only)`)
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
      const run = await runAction({
        inputs: { program: PROGRAM, 'state-dir': stateDir() },
        env: actionEnv(fake, { GITHUB_WORKSPACE: repo.work })
      })
      expect(run.exitCode).toBe(1)
      expect(run.outputs.status).toBe('error')
      const error = decodeURIComponent(run.errors.join('\n'))
      expect(error).toContain(`Push to ${BRANCH} was rejected: the branch moved`)
      expect(error).toContain('never force-pushes')
      expect(fake.requests.filter((r) => r.route?.endsWith('/check-runs'))).toEqual([])
    })
  })

  it('a push that starts no CI ends no-checks, explaining the GITHUB_TOKEN rule', async () => {
    const repo = createLocalRepo(BRANCH)
    repo.commit('metric.txt', '0.91\n', 'iteration 1')
    await withFake({ gitDir: repo.bare }, async (fake) => {
      const run = await runAction({
        inputs: { program: PROGRAM, 'checks-grace-seconds': '60', 'state-dir': stateDir() },
        env: actionEnv(fake, { GITHUB_WORKSPACE: repo.work })
      })
      expect(run.outputs).toMatchObject({ status: 'failure', verdict: 'no-checks' })
      expect(run.summary).toContain('pushes made with GITHUB_TOKEN start no workflow runs')
      expect(run.summary).toContain('`push-token`')
    })
  })
})
