/**
 * The fake's GraphQL endpoint (README: "GraphQL"): `createCommitOnBranch` as gh-aw's
 * signed-commit push sends it, with Octokit's own `graphql` client.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { Octokit } from '@octokit/rest'
import { startFakeGitHub, type FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { closeCheckingRequests, quiet, repo } from './support.js'

const MUTATION = `mutation($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid } }
}`
const BRANCH = 'autoloop/perf'
let fake: FakeGitHub | undefined

afterEach(async () => {
  const current = fake
  fake = undefined
  await closeCheckingRequests(current)
})

async function start(): Promise<{ fake: FakeGitHub; octokit: Octokit; head: string }> {
  fake = await startFakeGitHub({
    scenario: { contents: { [BRANCH]: { 'a.txt': 'a\n', 'gone.txt': 'bye\n' } } }
  })
  return {
    fake,
    octokit: new Octokit({ baseUrl: fake.apiUrl, log: quiet }),
    head: fake.state.branches[BRANCH]!
  }
}

const input = (expectedHeadOid: string) => ({
  branch: { repositoryNameWithOwner: `${repo.owner}/${repo.repo}`, branchName: BRANCH },
  message: { headline: 'perf: cache', body: 'why' },
  fileChanges: {
    additions: [{ path: 'dir/b.txt', contents: Buffer.from('b\n').toString('base64') }],
    deletions: [{ path: 'gone.txt' }]
  },
  expectedHeadOid
})

describe('POST /graphql createCommitOnBranch', () => {
  it('commits on the expected head: the changes, the message, committed by GitHub', async () => {
    const { fake, octokit, head } = await start()
    const result = await octokit.graphql<{ createCommitOnBranch: { commit: { oid: string } } }>(
      MUTATION,
      { input: input(head) }
    )
    const oid = result.createCommitOnBranch.commit.oid
    expect(fake.state.branches[BRANCH]).toBe(oid)
    expect(fake.readFile(BRANCH, 'dir/b.txt')).toBe('b\n')
    expect(fake.readFile(BRANCH, 'a.txt')).toBe('a\n')
    expect(fake.readFile(BRANCH, 'gone.txt')).toBeUndefined()
    const { data } = await octokit.rest.git.getCommit({ ...repo, commit_sha: oid })
    expect(data).toMatchObject({
      message: 'perf: cache\n\nwhy',
      parents: [{ sha: head }],
      committer: { name: 'GitHub', email: 'noreply@github.com' },
      author: { name: 'github-actions[bot]' }
    })
    expect(fake.requests.find((r) => r.route === 'POST /graphql')?.openapi.valid).toBe(true)
  })

  it('a stale expectedHeadOid is refused with STALE_DATA and moves nothing', async () => {
    const { fake, octokit, head } = await start()
    const moved = fake.commit(BRANCH, { 'c.txt': 'c\n' }, 'someone else')
    await expect(octokit.graphql(MUTATION, { input: input(head) })).rejects.toMatchObject({
      errors: [{ type: 'STALE_DATA' }]
    })
    expect(fake.state.branches[BRANCH]).toBe(moved)
  })

  it('a fault on the route refuses it (what makes gh-aw fall back to git push)', async () => {
    const { fake, octokit, head } = await start()
    fake.addFault({
      kind: 'status',
      status: 403,
      route: 'POST /graphql',
      message: 'Resource not accessible by integration'
    })
    await expect(octokit.graphql(MUTATION, { input: input(head) })).rejects.toMatchObject({
      status: 403
    })
    expect(fake.state.branches[BRANCH]).toBe(head)
  })

  it('an input that does not fit the mutation is invalid, with the reason; another query is unimplemented', async () => {
    const { fake, octokit, head } = await start()
    await expect(
      octokit.graphql(MUTATION, { input: { ...input(head), expectedHeadOid: 'HEAD' } })
    ).rejects.toMatchObject({ errors: [{ type: 'INVALID' }] })
    await expect(octokit.graphql('query { viewer { login } }')).rejects.toBeDefined()
    expect(fake.invalidRequests().map((r) => r.openapi.errors)).toEqual([
      ['input.expectedHeadOid: GitObjectID! (40 hex digits) is required']
    ])
    expect(fake.unimplementedRequests().map((r) => r.route)).toEqual(['POST /graphql'])
    expect(fake.state.branches[BRANCH]).toBe(head)
    fake.requests.splice(0)
  })
})

describe('routes the gh-aw scripts call', () => {
  it('no branch has rules: 404 Branch not protected; pulls carry their labels', async () => {
    const { octokit } = await start()
    await expect(
      octokit.rest.repos.getBranchProtection({ ...repo, branch: BRANCH })
    ).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('Branch not protected')
    })
    const { data } = await octokit.rest.pulls.create({
      ...repo,
      head: BRANCH,
      base: 'main',
      title: 't'
    })
    await octokit.rest.issues.addLabels({
      ...repo,
      issue_number: data.number,
      labels: ['autoloop']
    })
    const pull = await octokit.rest.pulls.get({ ...repo, pull_number: data.number })
    expect(pull.data.labels.map((l) => l.name)).toEqual(['autoloop'])
  })

  it("collaborator permission: the scenario role, GitHub's legacy permission beside it, none for others", async () => {
    fake = await startFakeGitHub({
      scenario: { collaborators: { octocat: 'maintain', hubot: 'admin' } }
    })
    const octokit = new Octokit({ baseUrl: fake.apiUrl, log: quiet })
    const permission = async (username: string) =>
      (await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username })).data
    expect(await permission('octocat')).toMatchObject({
      permission: 'write',
      role_name: 'maintain'
    })
    expect(await permission('hubot')).toMatchObject({ permission: 'admin', role_name: 'admin' })
    expect(await permission('github-actions[bot]')).toMatchObject({
      permission: 'none',
      user: { login: 'github-actions[bot]', type: 'Bot' }
    })
  })
})
