/**
 * What the fix command gets from the runner's environment (README: "As a plain step"): the
 * action run in-process with the variables a runner sets, `INPUT_*` among them, since
 * `@actions/core` reads inputs from there.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CheckRunPlan } from '../../__fixtures__/fake-github/index.js'
import { BRANCH, PROGRAM, withFake } from '../helpers/fake-run.js'
import { runInProcess } from '../helpers/in-process.js'
import { createLocalRepo } from '../helpers/git-repo.js'
import { tempDir } from '../helpers/temp-dir.js'

const GITHUB_TOKEN = 'ghs_githubTokenOfTheJob0123456789'
const PUSH_TOKEN = 'github_pat_pushTokenOfTheProgram0123456789'

const red: CheckRunPlan = {
  branch: BRANCH,
  head: 1,
  name: 'unit',
  timeline: [
    { at: 0, status: 'queued' },
    { at: 240, status: 'completed', conclusion: 'failure' }
  ]
}

/** The variables `env -0` printed, by name. */
function variables(file: string): Map<string, string> {
  const entries = readFileSync(file, 'utf8')
    .split('\0')
    .filter(Boolean)
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const)
  return new Map(entries)
}

describe('the fix command environment', () => {
  it('holds no input, no runner token and no token of the action; fix-command-env passes one on', async () => {
    const repo = createLocalRepo(BRANCH)
    repo.commit('value.txt', '0\n', 'iteration')
    const envFile = join(tempDir('autoloop-env-'), 'env')
    await withFake({ gitDir: repo.bare, checkRuns: [red] }, async (fake) => {
      const run = await runInProcess(fake, {
        inputs: {
          program: PROGRAM,
          'github-token': GITHUB_TOKEN,
          'push-token': PUSH_TOKEN,
          'state-dir': tempDir('autoloop-state-'),
          'fix-command': `env -0 > "${envFile}"`,
          'fix-command-env': 'NPM_AUTH'
        },
        env: {
          'INPUT_GITHUB-TOKEN': GITHUB_TOKEN,
          'INPUT_PUSH-TOKEN': PUSH_TOKEN,
          INPUT_PROGRAM: PROGRAM,
          ACTIONS_RUNTIME_TOKEN: 'runtime-token',
          ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-token',
          ACTIONS_ID_TOKEN_REQUEST_URL: 'https://oidc.example/token',
          GITHUB_TOKEN,
          GH_TOKEN: GITHUB_TOKEN,
          PUSH_URL: `https://x-access-token:${PUSH_TOKEN}@github.example/o/r.git`,
          NPM_AUTH: 'npm-registry-token',
          KEPT: 'kept'
        },
        cwd: repo.work
      })
      // The command committed nothing: the gate pauses as stuck, after running it once.
      expect(run.outputs.status).toBe('paused')
    })
    const env = variables(envFile)
    const names = [...env.keys()]
    expect(names.filter((name) => /^(INPUT_|ACTIONS_)/.test(name))).toEqual([])
    expect(names).not.toContain('GITHUB_TOKEN')
    expect(names).not.toContain('GH_TOKEN')
    expect(names).not.toContain('PUSH_URL')
    const values = [...env.values()].join('\n')
    expect(values).not.toContain(GITHUB_TOKEN)
    expect(values).not.toContain(PUSH_TOKEN)
    expect(env.get('NPM_AUTH')).toBe('npm-registry-token')
    expect(env.get('KEPT')).toBe('kept')
    expect(env.get('AUTOLOOP_PROGRAM')).toBe(PROGRAM)
  })
})
