import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from '@jest/globals'
import { Octokit } from '@octokit/rest'
import { startFakeGitHub } from '../../__fixtures__/fake-github/index.js'
import type { FakeGitHub, Scenario } from '../../__fixtures__/fake-github/index.js'
import { closeCheckingRequests, quiet, repo, statusOf } from './support.js'

const run = promisify(execFile)
const START = Date.parse('2026-03-01T12:00:00Z')
const MEMORY = 'memory/autoloop'
// `printf 'hello\n' | git hash-object --stdin`
const HELLO_BLOB = 'ce013625030ba8dba906f756967f9e9ca394464a'
const TOKEN_HEADER = `Authorization: Basic ${Buffer.from('x-access-token:ghs_fake').toString('base64')}`

let fake: FakeGitHub | undefined
const cleanups: Array<() => void> = []

async function start(scenario: Scenario = {}): Promise<{ fake: FakeGitHub; octokit: Octokit }> {
  fake = await startFakeGitHub({ scenario: { startTime: START, ...scenario } })
  return { fake, octokit: new Octokit({ baseUrl: fake.apiUrl, log: quiet }) }
}

afterEach(async () => {
  const current = fake
  fake = undefined
  try {
    await closeCheckingRequests(current)
  } finally {
    cleanups.splice(0).forEach((f) => f())
  }
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fake-github-test-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Runs the git client without blocking the event loop (the fake answers in this process). */
async function gitClient(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', '-c', 'init.defaultBranch=main', ...args],
    {
      cwd,
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', NO_PROXY: '127.0.0.1' },
      maxBuffer: 64 * 1024 * 1024
    }
  )
  return stdout.trim()
}

function gitIn(gitDir: string, ...args: string[]): string {
  return execFileSync('git', [`--git-dir=${gitDir}`, ...args], { encoding: 'utf8' }).trim()
}

describe('contents and branches backed by git', () => {
  it('seeds one real commit per branch, nested paths included, and serves files, listings and trees from it', async () => {
    const files: Record<string, string> = { 'perf.md': 'hello\n', 'ci-gate/perf.json': '{}\n' }
    for (let i = 0; i < 300; i++) files[`notes/n${String(i).padStart(3, '0')}.md`] = `note ${i}\n`
    const { fake, octokit } = await start({ contents: { [MEMORY]: files } })

    const head = fake.state.branches[MEMORY] ?? ''
    expect(gitIn(fake.gitDir, 'rev-parse', `refs/heads/${MEMORY}`)).toBe(head)
    expect(gitIn(fake.gitDir, 'rev-list', '--count', head)).toBe('1') // one commit, not 302
    expect(gitIn(fake.gitDir, 'ls-tree', '-r', '--name-only', head).split('\n')).toHaveLength(302)
    expect(gitIn(fake.gitDir, 'show', `${head}:ci-gate/perf.json`)).toBe('{}')

    const file = await octokit.rest.repos.getContent({ ...repo, path: 'perf.md', ref: MEMORY })
    expect(file.data).toMatchObject({ type: 'file', sha: HELLO_BLOB, size: 6 })
    const nested = await octokit.rest.repos.getContent({
      ...repo,
      path: 'ci-gate/perf.json',
      ref: MEMORY
    })
    expect(nested.data).toMatchObject({
      path: 'ci-gate/perf.json',
      sha: gitIn(fake.gitDir, 'rev-parse', `${head}:ci-gate/perf.json`)
    })
    const dir = await octokit.rest.repos.getContent({ ...repo, path: 'ci-gate', ref: MEMORY })
    expect(dir.data).toMatchObject([{ type: 'file', name: 'perf.json', path: 'ci-gate/perf.json' }])
    const notes = await octokit.rest.repos.getContent({ ...repo, path: 'notes', ref: MEMORY })
    expect(notes.data).toHaveLength(300)

    const tree = await octokit.rest.git.getTree({ ...repo, tree_sha: head })
    expect(tree.data.sha).toBe(gitIn(fake.gitDir, 'rev-parse', `${head}^{tree}`))
    expect(tree.data.tree.map((e) => e.path)).toEqual(['ci-gate', 'notes', 'perf.md'])
    const deep = await octokit.rest.git.getTree({
      ...repo,
      tree_sha: tree.data.sha,
      recursive: '1'
    })
    expect(deep.data.tree.filter((e) => e.type === 'blob')).toHaveLength(302)
    expect(fake.readFile(MEMORY, 'notes/n299.md')).toBe('note 299\n')
    expect(fake.readFile(MEMORY, 'nope.md')).toBeUndefined()
  })

  it('turns contents writes into commits on the branch, with compare-and-swap against git', async () => {
    const { fake, octokit } = await start({ contents: { [MEMORY]: { 'perf.md': 'hello\n' } } })
    const put = (path: string, text: string, sha?: string) =>
      octokit.rest.repos.createOrUpdateFileContents({
        ...repo,
        path,
        branch: MEMORY,
        message: `write ${path}`,
        content: Buffer.from(text).toString('base64'),
        ...(sha ? { sha } : {})
      })
    const seed = fake.state.branches[MEMORY] ?? ''
    const created = await put('ci-gate/perf.json', '{"attempts":[]}\n')
    expect(created.status).toBe(201)
    const first = created.data.commit.sha ?? ''
    expect(gitIn(fake.gitDir, 'rev-parse', `refs/heads/${MEMORY}`)).toBe(first)
    expect(gitIn(fake.gitDir, 'rev-parse', `${first}^`)).toBe(seed)
    expect(gitIn(fake.gitDir, 'log', '-1', '--format=%s|%an|%at', first)).toBe(
      `write ci-gate/perf.json|github-actions[bot]|${START / 1000}`
    )
    expect(created.data.content?.sha).toBe(
      gitIn(fake.gitDir, 'rev-parse', `${first}:ci-gate/perf.json`)
    )

    expect(await statusOf(put('perf.md', 'v2'))).toBe(422)
    expect(await statusOf(put('perf.md', 'v2', 'f'.repeat(40)))).toBe(409)
    const updated = await put('perf.md', 'v2\n', HELLO_BLOB)
    expect(updated.status).toBe(200)
    expect(fake.readFile(MEMORY, 'perf.md')).toBe('v2\n')
    expect(fake.readFile(MEMORY, 'ci-gate/perf.json')).toBe('{"attempts":[]}\n')
    expect(fake.headsOf(MEMORY)).toEqual([seed, first, updated.data.commit.sha])

    // someone else pushes straight to the repository: the API follows it, a stale sha loses
    const work = tempDir()
    await gitClient(work, 'clone', '-q', '--branch', MEMORY, fake.gitDir, 'w')
    writeFileSync(join(work, 'w', 'perf.md'), 'pushed\n')
    await gitClient(join(work, 'w'), 'commit', '-qam', 'direct push')
    await gitClient(join(work, 'w'), 'push', '-q', 'origin', MEMORY)
    const pushed = await gitClient(join(work, 'w'), 'rev-parse', 'HEAD')
    expect(await statusOf(put('perf.md', 'v3', updated.data.content?.sha))).toBe(409)
    expect(fake.state.branches[MEMORY]).toBe(pushed)
    const now = await octokit.rest.repos.getContent({ ...repo, path: 'perf.md', ref: MEMORY })
    expect(Buffer.from((now.data as { content: string }).content, 'base64').toString()).toBe(
      'pushed\n'
    )
  })

  it('memoryPush copies whole files over the head, reverting what another writer changed in them', async () => {
    const { fake, octokit } = await start({
      contents: { [MEMORY]: { 'perf.md': 'v1\n', 'other.md': 'o1\n' } }
    })
    // the agent's snapshot, taken now
    const snapshot = { 'perf.md': fake.readFile(MEMORY, 'perf.md') ?? '' }
    // the gate writes perf.md and its ledger meanwhile
    const current = await octokit.rest.repos.getContent({ ...repo, path: 'perf.md', ref: MEMORY })
    await octokit.rest.repos.createOrUpdateFileContents({
      ...repo,
      path: 'perf.md',
      branch: MEMORY,
      message: 'gate',
      content: Buffer.from('v1 + gate section\n').toString('base64'),
      sha: (current.data as { sha: string }).sha
    })
    const gate = fake.state.branches[MEMORY]
    const pushed = fake.memoryPush(MEMORY, snapshot)
    expect(gitIn(fake.gitDir, 'rev-parse', `${pushed}^`)).toBe(gate)
    expect(gitIn(fake.gitDir, 'log', '-1', '--format=%s', pushed)).toBe(
      'Update repo memory from workflow run 1'
    )
    expect(fake.readFile(MEMORY, 'perf.md')).toBe('v1\n') // the gate's write is gone
    expect(fake.readFile(MEMORY, 'other.md')).toBe('o1\n') // files not copied stay
    expect(fake.state.branches[MEMORY]).toBe(pushed)
  })

  it('lets a branch made from a made-up head take contents writes: its git history starts there', async () => {
    // what the action does when the state branch is missing: branch off main, then write
    const { fake, octokit } = await start()
    const main = fake.state.branches.main ?? ''
    await octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${MEMORY}`, sha: main })
    const created = await octokit.rest.repos.createOrUpdateFileContents({
      ...repo,
      path: 'perf.md',
      branch: MEMORY,
      message: 'create perf.md',
      content: Buffer.from('state\n').toString('base64')
    })
    expect(created.status).toBe(201)
    const head = created.data.commit.sha ?? ''
    expect(fake.state.branches[MEMORY]).toBe(head)
    expect(fake.headsOf(MEMORY)).toEqual([main, head])
    expect(gitIn(fake.gitDir, 'rev-list', '--parents', head)).toBe(head) // a root commit
    expect(fake.readFile(MEMORY, 'perf.md')).toBe('state\n')
    expect(fake.state.branches.main).toBe(main)
    const again = fake.commit('autoloop/x', { 'a.ts': 'x' }, 'first')
    expect(fake.readFile(again, 'a.ts')).toBe('x')
  })

  it('keeps made-up branches working and moves git refs with the API', async () => {
    const made = 'd'.repeat(40)
    const { fake, octokit } = await start({
      branches: { 'autoloop/x': made },
      contents: { [MEMORY]: { 'a.md': 'a' } }
    })
    expect(
      (await octokit.rest.repos.getBranch({ ...repo, branch: 'autoloop/x' })).data.commit.sha
    ).toBe(made)
    expect(
      await statusOf(octokit.rest.repos.getContent({ ...repo, path: 'a.md', ref: made }))
    ).toBe(404)

    // a ref created through the API at a git commit is a git branch too
    const memory = fake.state.branches[MEMORY] ?? ''
    await octokit.rest.git.createRef({ ...repo, ref: 'refs/heads/copy', sha: memory })
    expect(gitIn(fake.gitDir, 'rev-parse', 'refs/heads/copy')).toBe(memory)
    await octokit.rest.git.updateRef({ ...repo, ref: 'heads/copy', sha: made, force: true })
    expect(() =>
      gitIn(fake.gitDir, 'rev-parse', '--verify', '--quiet', 'refs/heads/copy')
    ).toThrow()
    expect(fake.state.branches.copy).toBe(made)
    await octokit.rest.git.deleteRef({ ...repo, ref: 'heads/copy' })
    expect(fake.state.branches.copy).toBeUndefined()

    // a branch deleted in git is gone from the API
    gitIn(fake.gitDir, 'update-ref', '-d', `refs/heads/${MEMORY}`)
    expect(await statusOf(octokit.rest.repos.getBranch({ ...repo, branch: MEMORY }))).toBe(404)
  })

  it('creates its repository only when used and removes it on close; a given gitDir stays', async () => {
    const plain = await startFakeGitHub({ scenario: {} })
    const dir = plain.gitDir
    expect(existsSync(join(dir, 'HEAD'))).toBe(true)
    await plain.close()
    expect(existsSync(dir)).toBe(false)

    const given = join(tempDir(), 'given.git')
    const withDir = await startFakeGitHub({
      scenario: { gitDir: given, contents: { main: { 'a.md': 'a' } } }
    })
    expect(withDir.gitDir).toBe(given)
    await withDir.close()
    expect(gitIn(given, 'show', 'main:a.md')).toBe('a')
  })
})

describe('commits', () => {
  it('serves tree and parents of git commits the same way from both commit endpoints, and tells the empty CI-trigger commit', async () => {
    const { fake, octokit } = await start({ contents: { 'autoloop/perf': { 'a.ts': 'x' } } })
    const agent = fake.commit('autoloop/perf', { 'a.ts': 'y' }, 'Improve perf')
    const trigger = fake.commit('autoloop/perf', {}, 'ci: trigger checks')

    const viaGit = await octokit.rest.git.getCommit({ ...repo, commit_sha: trigger })
    expect(viaGit.data).toMatchObject({
      sha: trigger,
      message: 'ci: trigger checks',
      parents: [{ sha: agent }],
      author: { name: 'github-actions[bot]', date: '2026-03-01T12:00:00Z' }
    })
    const parent = await octokit.rest.git.getCommit({ ...repo, commit_sha: agent })
    expect(viaGit.data.tree.sha).toBe(parent.data.tree.sha) // empty: same tree as its parent
    expect(viaGit.data.tree.sha).toBe(gitIn(fake.gitDir, 'rev-parse', `${trigger}^{tree}`))

    const viaRef = await octokit.rest.repos.getCommit({ ...repo, ref: 'autoloop/perf' })
    expect(viaRef.data.sha).toBe(trigger)
    expect(viaRef.data.commit.tree.sha).toBe(viaGit.data.tree.sha)
    expect(viaRef.data.parents.map((p) => p.sha)).toEqual([agent])
    expect(viaRef.data.commit.message).toBe('ci: trigger checks')
    const branch = await octokit.rest.repos.getBranch({ ...repo, branch: 'autoloop/perf' })
    expect(branch.data.commit.commit.tree.sha).toBe(viaGit.data.tree.sha)
  })

  it('serves scenario-declared commits, and 404 for a commit it does not know', async () => {
    const head = 'e'.repeat(40)
    const agent = 'a'.repeat(40)
    const { octokit } = await start({
      branches: { 'autoloop/perf': head },
      commits: {
        [head]: { tree: 't'.repeat(40), parents: [agent], message: 'ci: trigger checks' },
        [agent]: { tree: 't'.repeat(40), parents: ['b'.repeat(40)], message: 'Improve' }
      }
    })
    const viaGit = await octokit.rest.git.getCommit({ ...repo, commit_sha: head })
    expect(viaGit.data).toMatchObject({
      tree: { sha: 't'.repeat(40) },
      parents: [{ sha: agent }],
      message: 'ci: trigger checks'
    })
    const viaRef = await octokit.rest.repos.getCommit({ ...repo, ref: 'autoloop/perf' })
    expect(viaRef.data.commit.tree.sha).toBe('t'.repeat(40))
    expect(viaRef.data.parents.map((p) => p.sha)).toEqual([agent])
    expect(
      await statusOf(octokit.rest.git.getCommit({ ...repo, commit_sha: '9'.repeat(40) }))
    ).toBe(404)
  })
})

describe('git over HTTP', () => {
  it('serves a clone and a shallow single-branch fetch (protocol v2), costing no rate limit', async () => {
    const { fake } = await start({
      contents: { [MEMORY]: { 'perf.md': 'v1\n', 'ci-gate/perf.json': '{}\n' } }
    })
    fake.memoryPush(MEMORY, { 'perf.md': 'v2\n' })
    const work = tempDir()
    await gitClient(
      work,
      '-c',
      'protocol.version=2',
      'clone',
      '-q',
      '--depth',
      '1',
      '--single-branch',
      '--branch',
      MEMORY,
      fake.gitUrl,
      'memory'
    )
    expect(readFileSync(join(work, 'memory', 'perf.md'), 'utf8')).toBe('v2\n')
    expect(readFileSync(join(work, 'memory', 'ci-gate', 'perf.json'), 'utf8')).toBe('{}\n')
    expect(await gitClient(join(work, 'memory'), 'rev-list', '--count', 'HEAD')).toBe('1')

    fake.memoryPush(MEMORY, { 'perf.md': 'v3\n' })
    await gitClient(join(work, 'memory'), 'fetch', '-q', '--depth', '1', 'origin', MEMORY)
    expect(await gitClient(join(work, 'memory'), 'show', 'FETCH_HEAD:perf.md')).toBe('v3')

    expect(fake.requests).toEqual([])
    expect(fake.rateLimit.pointsSpent).toBe(0)
    expect(
      fake.gitRequests.map((r) => `${r.method} ${r.service} ${r.protocol} ${r.status}`)
    ).toEqual([
      'GET git-upload-pack version=2 200',
      'POST git-upload-pack version=2 200',
      'POST git-upload-pack version=2 200',
      'GET git-upload-pack version=2 200',
      'POST git-upload-pack version=2 200',
      'POST git-upload-pack version=2 200'
    ])
  })

  it('speaks protocol v0 too, with and without the .git suffix', async () => {
    const { fake } = await start({ contents: { main: { 'a.txt': 'a\n' } } })
    const work = tempDir()
    await gitClient(
      work,
      '-c',
      'protocol.version=0',
      'clone',
      '-q',
      fake.gitUrl.replace(/\.git$/, ''),
      'c'
    )
    expect(readFileSync(join(work, 'c', 'a.txt'), 'utf8')).toBe('a\n')
    expect(fake.gitRequests.every((r) => r.protocol === null && r.status === 200)).toBe(true)
    expect(fake.gitRequests[0]?.path).toBe('/octo-org/demo/info/refs')
  })

  it('requires Basic credentials when gitAuth is required, in the form actions/checkout sends', async () => {
    const { fake } = await start({ gitAuth: 'required', contents: { main: { 'a.txt': 'a\n' } } })
    const work = tempDir()
    await expect(gitClient(work, 'clone', '-q', fake.gitUrl, 'anonymous')).rejects.toThrow()
    expect(fake.gitRequests[0]).toMatchObject({ authorization: false, status: 401 })

    await gitClient(
      work,
      '-c',
      `http.extraheader=${TOKEN_HEADER}`,
      'clone',
      '-q',
      fake.gitUrl,
      'ok'
    )
    expect(readFileSync(join(work, 'ok', 'a.txt'), 'utf8')).toBe('a\n')
    expect(fake.gitRequests.slice(1).every((r) => r.authorization && r.status === 200)).toBe(true)
  })

  it('inflates a gzip-encoded request body, refuses pushes and other repositories', async () => {
    const { fake } = await start({ contents: { [MEMORY]: { 'a.md': 'a' } } })
    const pkt = (line: string) => (line.length + 4).toString(16).padStart(4, '0') + line
    // a protocol v2 ls-refs command (pkt-lines: command, delimiter, argument, flush)
    const command = `${pkt('command=ls-refs\n')}0001${pkt('ref-prefix refs/heads/\n')}0000`
    const answer = await fetch(`${fake.gitUrl}/git-upload-pack`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-git-upload-pack-request',
        'content-encoding': 'gzip',
        'git-protocol': 'version=2'
      },
      body: gzipSync(command)
    })
    expect(answer.status).toBe(200)
    expect(await answer.text()).toContain(`${fake.state.branches[MEMORY]} refs/heads/${MEMORY}`)

    const push = await fetch(`${fake.gitUrl}/info/refs?service=git-receive-pack`)
    expect(push.status).toBe(403)
    const other = await fetch(
      `${fake.serverUrl}/someone/else.git/info/refs?service=git-upload-pack`
    )
    expect(other.status).toBe(404)
    expect(fake.gitRequests.map((r) => r.status)).toEqual([200, 403, 404])
  })
})
