/**
 * The fake's two contents stores are one model: the same operations on the in-memory store
 * and on a real bare repository give the same SHAs, trees, files and refusals, and the
 * memory store copied to disk is a repository git itself accepts.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from '@jest/globals'
import { MemoryRepo } from '../../__fixtures__/fake-github/contents-memory.js'
import {
  RefMovedError,
  type ContentStore,
  type Identity
} from '../../__fixtures__/fake-github/contents-store.js'
import { GitRepo } from '../../__fixtures__/fake-github/git.js'

const dirs: string[] = []
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

function bareDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fake-store-'))
  dirs.push(dir)
  return join(dir, 'repo.git')
}

const author: Identity = {
  name: 'a[bot]',
  email: 'a@users.noreply.github.com',
  date: 1_772_366_400_123
}
const github: Identity = { name: 'GitHub', email: 'noreply@github.com', date: 1_772_366_460_000 }

/** A history with nested paths, an overwrite, a deletion, an empty commit and two branches. */
function play(store: ContentStore) {
  const root = store.writeCommit({
    branch: 'memory/autoloop',
    parent: null,
    files: { 'perf.md': '# perf\n', 'ci-gate/perf.json': '{}', 'a/b/c.txt': 'deep\n' },
    message: 'seed memory/autoloop',
    author
  })
  const second = store.writeCommit({
    branch: 'memory/autoloop',
    parent: root,
    files: { 'ci-gate/perf.json': '{"v":1}', 'a-b.txt': Buffer.from([0, 1, 2, 255]) },
    deletions: ['a/b/c.txt'],
    message: 'second\n\nwith a body\n',
    author,
    committer: github
  })
  const empty = store.writeCommit({
    branch: 'memory/autoloop',
    parent: second,
    files: {},
    message: 'ci: trigger checks',
    author
  })
  store.setBranch('copy', second)
  const other = store.writeCommit({
    branch: 'other',
    parent: null,
    files: { 'x.txt': 'x' },
    message: 'other',
    author
  })
  store.deleteBranch('other')
  let refused: unknown
  try {
    store.writeCommit({
      branch: 'copy',
      parent: root,
      files: { 'z.txt': 'z' },
      message: 'late',
      author
    })
  } catch (error) {
    refused = error
  }
  return {
    shas: { root, second, empty, other },
    refusedAsMoved: refused instanceof RefMovedError,
    heads: store.heads(),
    commits: [root, second, empty].map((sha) => store.commit(sha)),
    notACommit: store.commit('0'.repeat(40)),
    rootTree: store.tree(root, true),
    secondTree: store.tree(second),
    treeOfTree: store.tree(store.commit(second)?.tree ?? ''),
    files: ['perf.md', 'ci-gate/perf.json', 'a-b.txt', 'a/b/c.txt', 'a', 'a/b', ''].map((p) =>
      store.path(second, p)
    ),
    rootDir: store.path(root, 'a'),
    blob: store.blob(store.path(second, 'a-b.txt')?.sha ?? '')
  }
}

describe('the in-memory store and the git repository', () => {
  it('answer every operation alike, SHAs included', () => {
    const memory = play(new MemoryRepo())
    const git = play(new GitRepo(bareDir(), 'main'))
    expect(memory).toEqual(git)
    expect(memory.refusedAsMoved).toBe(true)
    expect(memory.heads).toEqual({ 'memory/autoloop': memory.shas.empty, copy: memory.shas.second })
    expect(memory.files[3]).toBeUndefined() // the deleted file
    expect(memory.blob).toEqual(Buffer.from([0, 1, 2, 255]))
  })

  it('copied to disk, is a repository git reads and checks object by object', () => {
    const memory = new MemoryRepo()
    const { shas } = play(memory)
    const dir = bareDir()
    const disk = new GitRepo(dir, 'main')
    memory.writeTo(dir)
    const git = (...args: string[]) =>
      execFileSync('git', [`--git-dir=${dir}`, ...args], { encoding: 'utf8' }).trim()
    expect(git('fsck', '--strict', '--no-dangling')).toBe('')
    expect(git('rev-parse', 'refs/heads/memory/autoloop')).toBe(shas.empty)
    expect(git('show', `${shas.second}:ci-gate/perf.json`)).toBe('{"v":1}')
    expect(disk.heads()).toEqual(memory.heads())
    expect(disk.tree(shas.root, true)).toEqual(memory.tree(shas.root, true))
  })
})
