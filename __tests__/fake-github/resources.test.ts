import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from '@jest/globals'
import { Octokit } from '@octokit/rest'
import { startFakeGitHub } from '../../__fixtures__/fake-github/index.js'
import type { FakeGitHub, Scenario } from '../../__fixtures__/fake-github/index.js'
import { quiet, repo, statusOf } from './support.js'

// `printf 'hello\n' | git hash-object --stdin`
const HELLO_BLOB = 'ce013625030ba8dba906f756967f9e9ca394464a'

let fake: FakeGitHub | undefined
const cleanups: Array<() => void> = []

async function start(scenario: Scenario = {}): Promise<{ fake: FakeGitHub; octokit: Octokit }> {
  fake = await startFakeGitHub({ scenario })
  return { fake, octokit: new Octokit({ baseUrl: fake.apiUrl, log: quiet }) }
}

afterEach(async () => {
  if (fake) {
    expect(
      fake.invalidRequests().map((r) => `${r.method} ${r.path}: ${r.openapi.errors.join('; ')}`)
    ).toEqual([])
    await fake.close()
  }
  fake = undefined
  cleanups.splice(0).forEach((f) => f())
})

describe('pulls, issues, comments and labels', () => {
  it('finds no pull for a branch, creates a draft one (201), then finds it by head', async () => {
    const sha = '1'.repeat(40)
    const { fake, octokit } = await start({ branches: { 'autoloop/x': sha } })
    const find = () =>
      octokit.rest.pulls.list({ ...repo, head: 'octo-org:autoloop/x', state: 'open' })
    expect((await find()).data).toEqual([])

    const created = await octokit.rest.pulls.create({
      ...repo,
      head: 'autoloop/x',
      base: 'main',
      title: 'Autoloop x',
      draft: true
    })
    expect(created.status).toBe(201)
    expect(created.data).toMatchObject({
      draft: true,
      title: 'Autoloop x',
      head: { sha, ref: 'autoloop/x' },
      state: 'open'
    })

    const found = (await find()).data
    expect(found.map((p) => p.number)).toEqual([created.data.number])
    expect(
      (await octokit.rest.pulls.list({ ...repo, head: 'someone-else:autoloop/x' })).data
    ).toEqual([])

    const again = await octokit.rest.pulls
      .create({ ...repo, head: 'autoloop/x', base: 'main', title: 'dup' })
      .catch(
        (e: { status: number; response: { data: { errors: Array<{ message?: string }> } } }) => e
      )
    expect(again).toMatchObject({ status: 422 })
    expect(JSON.stringify(again)).toContain(
      'A pull request already exists for octo-org:autoloop/x.'
    )

    fake.setBranch('autoloop/x', '2'.repeat(40))
    const got = await octokit.rest.pulls.get({ ...repo, pull_number: created.data.number })
    expect(got.data.head.sha).toBe('2'.repeat(40))
    // a pull request is an issue too
    const issue = await octokit.rest.issues.get({ ...repo, issue_number: created.data.number })
    expect(issue.data.pull_request).toBeDefined()
  })

  it('lists, creates and edits issue comments; adds and removes labels', async () => {
    const { fake, octokit } = await start({
      issues: [
        {
          number: 12,
          title: 'Program x',
          labels: ['autoloop-program'],
          comments: ['first', { body: 'by human', user: 'maintainer' }]
        }
      ]
    })
    const issue = await octokit.rest.issues.get({ ...repo, issue_number: 12 })
    expect(issue.data.labels.map((l) => (typeof l === 'string' ? l : l.name))).toEqual([
      'autoloop-program'
    ])

    const comments = await octokit.rest.issues.listComments({ ...repo, issue_number: 12 })
    expect(comments.data.map((c) => [c.body, c.user?.login])).toEqual([
      ['first', 'github-actions[bot]'],
      ['by human', 'maintainer']
    ])
    const posted = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 12,
      body: '<!-- AUTOLOOP:STATUS -->\nhi'
    })
    expect(posted.status).toBe(201)
    await octokit.rest.issues.updateComment({ ...repo, comment_id: posted.data.id, body: 'edited' })
    expect(fake.state.comments.find((c) => c.id === posted.data.id)?.body).toBe('edited')

    await octokit.rest.issues.addLabels({
      ...repo,
      issue_number: 12,
      labels: ['autoloop-completed']
    })
    const removed = await octokit.rest.issues.removeLabel({
      ...repo,
      issue_number: 12,
      name: 'autoloop-program'
    })
    expect(removed.data.map((l) => l.name)).toEqual(['autoloop-completed'])
    expect(
      await statusOf(octokit.rest.issues.removeLabel({ ...repo, issue_number: 12, name: 'nope' }))
    ).toBe(404)
    expect(fake.state.labels).toEqual(['autoloop-program', 'autoloop-completed'])
    expect(await statusOf(octokit.rest.issues.get({ ...repo, issue_number: 99 }))).toBe(404)
    expect(
      await statusOf(octokit.rest.issues.get({ owner: 'other', repo: 'demo', issue_number: 12 }))
    ).toBe(404)
  })
})

describe('contents, refs and branches', () => {
  it('serves files with their git blob SHA and directory listings', async () => {
    const { octokit } = await start({
      contents: { 'memory/autoloop': { 'x.md': 'hello\n', 'dir/a.md': 'a', 'dir/sub/b.md': 'b' } }
    })
    const file = await octokit.rest.repos.getContent({
      ...repo,
      path: 'x.md',
      ref: 'memory/autoloop'
    })
    expect(file.data).toMatchObject({ type: 'file', sha: HELLO_BLOB, encoding: 'base64', size: 6 })
    const content = (file.data as { content: string }).content
    expect(Buffer.from(content, 'base64').toString('utf8')).toBe('hello\n')

    const dir = await octokit.rest.repos.getContent({
      ...repo,
      path: 'dir',
      ref: 'memory/autoloop'
    })
    expect(
      (dir.data as Array<{ name: string; type: string }>).map((e) => `${e.type}:${e.name}`)
    ).toEqual(['file:a.md', 'dir:sub'])
    expect(await statusOf(octokit.rest.repos.getContent({ ...repo, path: 'x.md' }))).toBe(404) // not on main
    expect(
      await statusOf(octokit.rest.repos.getContent({ ...repo, path: 'x.md', ref: 'nope' }))
    ).toBe(404)
  })

  it('writes with compare-and-swap: 201 create, 422 without sha, 409 on a stale sha, 200 update', async () => {
    const { fake, octokit } = await start({
      contents: { 'memory/autoloop': { 'x.md': 'hello\n' } }
    })
    const put = (path: string, text: string, sha?: string) =>
      octokit.rest.repos.createOrUpdateFileContents({
        ...repo,
        path,
        branch: 'memory/autoloop',
        message: `write ${path}`,
        content: Buffer.from(text).toString('base64'),
        ...(sha ? { sha } : {})
      })
    const before = fake.state.branches['memory/autoloop']
    const created = await put('new.md', 'new')
    expect(created.status).toBe(201)
    expect(fake.state.branches['memory/autoloop']).not.toBe(before)

    expect(await statusOf(put('x.md', 'v2'))).toBe(422)
    expect(await statusOf(put('x.md', 'v2', 'f'.repeat(40)))).toBe(409)
    const updated = await put('x.md', 'v2', HELLO_BLOB)
    expect(updated.status).toBe(200)
    expect(await statusOf(put('x.md', 'v3', HELLO_BLOB))).toBe(409) // now stale
    const now = await octokit.rest.repos.getContent({
      ...repo,
      path: 'x.md',
      ref: 'memory/autoloop'
    })
    expect((now.data as { sha: string }).sha).toBe(updated.data.content?.sha)
    expect(fake.headsOf('memory/autoloop')).toHaveLength(3) // seed, new.md, x.md v2
  })

  it('creates, reads and moves branch refs', async () => {
    const { fake, octokit } = await start()
    const main = fake.state.branches.main ?? ''
    expect((await octokit.rest.repos.getBranch({ ...repo, branch: 'main' })).data.commit.sha).toBe(
      main
    )
    expect(await statusOf(octokit.rest.git.getRef({ ...repo, ref: 'heads/autoloop/x' }))).toBe(404)
    const created = await octokit.rest.git.createRef({
      ...repo,
      ref: 'refs/heads/autoloop/x',
      sha: main
    })
    expect(created.status).toBe(201)
    expect(
      (await octokit.rest.git.getRef({ ...repo, ref: 'heads/autoloop/x' })).data.object.sha
    ).toBe(main)
    expect(
      await statusOf(
        octokit.rest.git.createRef({ ...repo, ref: 'refs/heads/autoloop/x', sha: main })
      )
    ).toBe(422)
    await octokit.rest.git.updateRef({
      ...repo,
      ref: 'heads/autoloop/x',
      sha: 'd'.repeat(40),
      force: true
    })
    expect(
      (await octokit.rest.repos.getBranch({ ...repo, branch: 'autoloop/x' })).data.commit.sha
    ).toBe('d'.repeat(40))
    expect(fake.headsOf('autoloop/x')).toEqual([main, 'd'.repeat(40)])
  })

  it('reads branch heads and files from a bare git repository, so a real push is visible', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-github-git-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const bare = join(dir, 'remote.git')
    const work = join(dir, 'work')
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], {
        cwd,
        encoding: 'utf8'
      }).trim()
    git(dir, 'init', '-q', '--bare', '-b', 'main', bare)
    git(dir, 'init', '-q', '-b', 'main', work)
    writeFileSync(join(work, 'a.txt'), 'hello\n')
    git(work, 'add', 'a.txt')
    git(work, 'commit', '-q', '-m', 'first')
    git(work, 'push', '-q', bare, 'main')
    const first = git(work, 'rev-parse', 'HEAD')

    const { fake, octokit } = await start({
      gitDir: bare,
      checkRuns: [
        {
          branch: 'autoloop/x',
          head: 1,
          name: 'test',
          timeline: [{ at: 0, status: 'completed', conclusion: 'failure' }]
        }
      ]
    })
    expect((await octokit.rest.repos.getBranch({ ...repo, branch: 'main' })).data.commit.sha).toBe(
      first
    )
    const file = await octokit.rest.repos.getContent({ ...repo, path: 'a.txt', ref: 'main' })
    expect(file.data).toMatchObject({ sha: HELLO_BLOB })

    writeFileSync(join(work, 'b.txt'), 'b\n')
    git(work, 'add', 'b.txt')
    git(work, 'commit', '-q', '-m', 'second')
    git(work, 'push', '-q', bare, 'HEAD:refs/heads/autoloop/x')
    const second = git(work, 'rev-parse', 'HEAD')

    const runs = await octokit.rest.checks.listForRef({ ...repo, ref: 'autoloop/x' })
    expect(runs.data.check_runs.map((r) => [r.head_sha, r.conclusion])).toEqual([
      [second, 'failure']
    ])
    expect(fake.headsOf('autoloop/x')).toEqual([second])
    expect((await octokit.rest.repos.getCommit({ ...repo, ref: second })).data.sha).toBe(second)
  })
})
