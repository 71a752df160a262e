/**
 * The git credential (README: "Security"): sent as a header through git's environment, never
 * on a command line, and masked in every form. A `git` on PATH in front of the real one
 * records the command line of every git process the adapters start.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeGitHub, type FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { memoryLogger } from '../../__fixtures__/log.js'
import { basicCredential, credentialForms, gitAuthEnv } from '../../src/adapters/credentials.js'
import { createGit } from '../../src/adapters/git.js'
import { run } from '../../src/main.js'
import { gitMemoryBranchReader } from '../../src/adapters/memory-branch.js'
import { createLocalRepo } from '../helpers/git-repo.js'
import { tempDir } from '../helpers/temp-dir.js'

const TOKEN = 'ghs_pushTokenValue0123456789abcdef'
const PATH = process.env.PATH
let argvLog = ''
let fake: FakeGitHub | undefined

beforeAll(() => {
  const bin = tempDir('autoloop-git-wrapper-')
  argvLog = join(bin, 'argv.log')
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argvLog}'\nexec '${realGit}' "$@"\n`
  )
  chmodSync(join(bin, 'git'), 0o755)
  writeFileSync(argvLog, '')
  process.env.PATH = `${bin}:${PATH}`
})

afterAll(() => {
  process.env.PATH = PATH
})

afterEach(async () => {
  await fake?.close()
  fake = undefined
})

const commandLines = () => readFileSync(argvLog, 'utf8')

describe('the git credential', () => {
  it('a push sends the token as a header, with no form of it on any git command line', async () => {
    fake = await startFakeGitHub({ scenario: { gitAuth: 'required' } })
    const repo = createLocalRepo('autoloop/perf')
    const sha = repo.commit('a.txt', 'a\n', 'iteration')
    repo.git('remote', 'set-url', 'origin', fake.gitUrl)
    const git = createGit({ cwd: repo.work, pushToken: TOKEN, serverUrl: fake.serverUrl })
    // The fake serves no push over HTTP (403), but only after it checked the credentials.
    await expect(git.push(sha, 'autoloop/perf')).rejects.toThrow()
    const pushes = fake.gitRequests.filter((r) => r.service === 'git-receive-pack')
    expect(pushes.length).toBeGreaterThan(0)
    expect(pushes.every((r) => r.authorization && r.status === 403)).toBe(true)
    expect(commandLines()).toContain('push --porcelain origin')
    for (const form of credentialForms(TOKEN)) expect(commandLines()).not.toContain(form)
  })

  it("reconcile's fetch of the state branch too", async () => {
    fake = await startFakeGitHub({
      scenario: { gitAuth: 'required', contents: { 'memory/autoloop': { 'perf.md': 'x\n' } } }
    })
    const reader = gitMemoryBranchReader({
      remoteUrl: fake.gitUrl,
      serverUrl: fake.serverUrl,
      token: TOKEN,
      tempDir: tempDir('autoloop-memory-')
    })
    const snapshot = await reader.read('memory/autoloop')
    expect(snapshot?.files.get('perf.md')?.text).toBe('x\n')
    expect(fake.gitRequests.every((r) => r.authorization)).toBe(true)
    expect(commandLines()).toContain('fetch --depth=1')
    for (const form of credentialForms(TOKEN)) expect(commandLines()).not.toContain(form)
  })

  it('is added after the GIT_CONFIG entries the environment has', () => {
    expect(gitAuthEnv('https://github.example/', TOKEN, { GIT_CONFIG_COUNT: '1' })).toEqual({
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_1: 'http.https://github.example/.extraheader',
      GIT_CONFIG_VALUE_1: '',
      GIT_CONFIG_KEY_2: 'http.https://github.example/.extraheader',
      GIT_CONFIG_VALUE_2: `AUTHORIZATION: basic ${basicCredential(TOKEN)}`
    })
    expect(Buffer.from(basicCredential(TOKEN), 'base64').toString()).toBe(`x-access-token:${TOKEN}`)
  })

  it('every form of both tokens is masked before anything runs', async () => {
    const secrets: string[] = []
    const inputs: Record<string, string> = {
      'github-token': 'ghs_jobToken0123456789',
      'push-token': TOKEN,
      program: 'perf',
      'state-dir': tempDir('autoloop-state-')
    }
    await run({
      io: {
        readInput: (name) => inputs[name] ?? '',
        setOutput: () => undefined,
        writeSummary: async () => undefined,
        setFailed: () => undefined,
        setSecret: (value) => void secrets.push(value)
      },
      log: memoryLogger(),
      connect: async () => {
        throw new Error('not connected in this test')
      }
    })
    expect(secrets.sort()).toEqual(
      [...credentialForms('ghs_jobToken0123456789'), ...credentialForms(TOKEN)].sort()
    )
  })
})
