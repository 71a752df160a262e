import { describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gitMemoryBranchReader, isProgramFile } from '../../src/adapters/memory-branch.js'
import { tempDir } from '../helpers/temp-dir.js'
import { fixtureText, toCrlf } from '../statefile/helpers.js'

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'autoloop test',
  GIT_AUTHOR_EMAIL: 'test@autoloop.invalid',
  GIT_COMMITTER_NAME: 'autoloop test',
  GIT_COMMITTER_EMAIL: 'test@autoloop.invalid',
  GIT_CONFIG_NOSYSTEM: '1'
}

describe('isProgramFile', () => {
  it.each([
    ['perf.md', true],
    ['ci-gate/perf.json', true],
    ['notes/perf.md', false],
    ['ci-gate/deeper/perf.json', false],
    ['ci-gate/perf.md', false],
    ['perf.json', false],
    ['README.txt', false]
  ])('%s → %s', (path, expected) => {
    expect(isProgramFile(path)).toBe(expected)
  })
})

describe('gitMemoryBranchReader', () => {
  const root = tempDir('memory-branch-')
  const remote = join(root, 'remote.git')
  const work = join(root, 'work')
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim()
  const files: Record<string, string> = {
    'perf.md': fixtureText(),
    'crlf.md': `\uFEFF${toCrlf(fixtureText())}`,
    'ci-gate/perf.json': '{"version": 2, "note": "🚦 ü"}\n',
    'notes/other.md': 'not a program file',
    'README.txt': 'nor this'
  }
  mkdirSync(join(work, 'ci-gate'), { recursive: true })
  mkdirSync(join(work, 'notes'), { recursive: true })
  git(root, 'init', '-q', '--bare', remote)
  git(work, 'init', '-q', '-b', 'memory/autoloop')
  for (const [path, text] of Object.entries(files)) writeFileSync(join(work, path), text)
  git(work, 'add', '.')
  git(work, 'commit', '-q', '-m', 'state')
  git(work, 'push', '-q', remote, 'memory/autoloop')
  const head = git(work, 'rev-parse', 'HEAD')
  const reader = gitMemoryBranchReader({
    remoteUrl: `file://${remote}`,
    serverUrl: 'https://github.com',
    token: 'test-token',
    tempDir: root
  })

  it('reads the state files and ledgers of the branch, byte for byte, with their blob SHAs as versions', async () => {
    const snapshot = await reader.read('memory/autoloop')
    expect(snapshot?.commit).toBe(head)
    expect([...(snapshot?.files.keys() ?? [])].sort()).toEqual([
      'ci-gate/perf.json',
      'crlf.md',
      'perf.md'
    ])
    for (const path of ['perf.md', 'crlf.md', 'ci-gate/perf.json']) {
      const text = files[path] as string
      expect(snapshot?.files.get(path)).toEqual({
        text,
        version: git(work, 'rev-parse', `HEAD:${path}`)
      })
    }
  })

  it('a branch that does not exist reads as none', async () => {
    expect(await reader.read('memory/nothing-here')).toBeNull()
  })

  it('a remote it cannot reach is an error that says what to check', async () => {
    const unreachable = gitMemoryBranchReader({
      remoteUrl: `file://${join(root, 'missing.git')}`,
      serverUrl: 'https://github.com',
      token: 'test-token',
      tempDir: root
    })
    await expect(unreachable.read('memory/autoloop')).rejects.toThrow(
      /Cannot fetch memory\/autoloop with git/
    )
  })
})
