/**
 * The fake's GraphQL endpoint (README: "GraphQL"): `createCommitOnBranch` as gh-aw's
 * signed-commit push sends it, with Octokit's own `graphql` client.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { Octokit } from '@octokit/rest'
import { validateSchema } from 'graphql'
import {
  startFakeGitHub,
  type FakeGitHub,
  type Scenario
} from '../../__fixtures__/fake-github/index.js'
import { githubSchema } from '../../__fixtures__/fake-github/graphql.js'
import { manualClock } from '../../__fixtures__/clock.js'
import { memoryLogger } from '../../__fixtures__/log.js'
import { createGitHubClient, type GitHubClient } from '../../src/adapters/github/client.js'
import { RestGitHub } from '../../src/adapters/github/rest.js'
import { StateConflictError } from '../../src/core/state-errors.js'
import { blobVersion, ContentsApiStore } from '../../src/adapters/store.js'
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

/** The fake started on `scenario`, the REST adapter on it, and a state store on `branch`. */
async function connect(scenario: Scenario, branch: string) {
  fake = await startFakeGitHub({ scenario })
  const client = createGitHubClient({
    token: 't',
    baseUrl: fake.apiUrl,
    clock: manualClock(fake.now()),
    log: memoryLogger(),
    retryBackoffMs: 1
  })
  const github = new RestGitHub(client, repo)
  return { fake, github, store: new ContentsApiStore(github, { branch }) }
}

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

describe("GitHub's GraphQL schema", () => {
  it('is the installed @octokit/graphql-schema, valid for graphql-js (the fake builds it assuming so)', () => {
    const { schema, version } = githubSchema()
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
      packages: Record<string, { version: string }>
    }
    expect(version).toBe(lock.packages['node_modules/@octokit/graphql-schema']?.version)
    expect(validateSchema(schema)).toEqual([])
    expect(schema.getMutationType()?.getFields().createCommitOnBranch).toBeDefined()
  })

  it('introspection is answered from it: the fields of a Blob', async () => {
    fake = await startFakeGitHub({})
    const octokit = new Octokit({ baseUrl: fake.apiUrl, log: quiet })
    const answer = await octokit.graphql<{ __type: { fields: { name: string }[] } }>(
      'query { __type(name: "Blob") { fields { name } } }'
    )
    const fields = answer.__type.fields.map((field) => field.name)
    expect(fields).toEqual(expect.arrayContaining(['oid', 'text', 'byteSize', 'isTruncated']))
    expect(fields).not.toContain('size')
  })
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

  it("an input that does not fit GitHub's CreateCommitOnBranchInput is invalid, naming the variable and the field; moves nothing", async () => {
    const { fake, octokit, head } = await start()
    const noMessage: Partial<ReturnType<typeof input>> = { ...input(head) }
    delete noMessage.message
    const bad = [
      { ...input(head), expectedHeadOid: 'HEAD' },
      noMessage,
      { ...input(head), fileChanges: { additions: [{ path: 'x.txt', contents: 42 }] } },
      { ...input(head), branch: { ...input(head).branch, ref: BRANCH } }
    ]
    for (const given of bad)
      await expect(octokit.graphql(MUTATION, { input: given })).rejects.toMatchObject({
        errors: [{ message: expect.stringContaining('$input') }]
      })
    const problems = fake.invalidRequests().map((r) => r.openapi.errors)
    expect(problems).toHaveLength(bad.length)
    const named = [
      'input.expectedHeadOid',
      'CommitMessage',
      'input.fileChanges.additions[0].contents',
      'input.branch'
    ]
    problems.forEach((errors, i) => {
      expect(errors).toHaveLength(1)
      expect(errors[0]).toContain('$input')
      expect(errors[0]).toContain(named[i])
    })
    expect(fake.state.branches[BRANCH]).toBe(head)
    expect(fake.writeRequests().map((r) => r.status)).toEqual(bad.map(() => 200))
    fake.requests.splice(0)
  })

  it('an operation GitHub has but the fake does not serve is unimplemented, not invalid', async () => {
    const { fake, octokit } = await start()
    await expect(octokit.graphql('query { viewer { login } }')).rejects.toBeDefined()
    await expect(
      octokit.graphql(
        'query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { stargazerCount } }',
        { owner: repo.owner, name: repo.repo }
      )
    ).rejects.toBeDefined()
    expect(fake.invalidRequests()).toEqual([])
    expect(fake.unimplementedRequests().map((r) => r.route)).toEqual([
      'POST /graphql',
      'POST /graphql'
    ])
    fake.requests.splice(0)
  })

  it('a request that is not GraphQL at all (a syntax error) is invalid', async () => {
    const { fake, octokit } = await start()
    await expect(octokit.graphql('query { repository(owner: "a" name: ')).rejects.toBeDefined()
    expect(fake.invalidRequests().map((r) => r.openapi.errors.length)).toEqual([1])
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

describe("the state branch through GraphQL, as the action's RestGitHub reads and commits it", () => {
  const branchStore = () =>
    connect(
      { contents: { [BRANCH]: { 'perf.md': '# perf\n', 'ci-gate/perf.json': '{}\n' } } },
      BRANCH
    )

  it('reads the head and both files in one request, their versions the contents API SHAs', async () => {
    const { fake, store } = await branchStore()
    const read = await store.readMany(['perf.md', 'ci-gate/perf.json', 'none.md'])
    expect(read.head).toBe(fake.state.branches[BRANCH])
    expect(read.files.map((file) => file?.text ?? null)).toEqual(['# perf\n', '{}\n', null])
    expect(read.files[0]?.version).toBe(blobVersion('# perf\n'))
    expect(fake.requests.map((r) => r.route)).toEqual(['POST /graphql'])
    expect(fake.invalidRequests()).toEqual([])
    expect(fake.writeRequests()).toEqual([])
  })

  it('writes both files in one commit on the head read, and refuses one when the branch moved', async () => {
    const { fake, github, store } = await branchStore()
    const read = await store.readMany(['perf.md'])
    const written = await store.writeMany(
      [
        { path: 'perf.md', text: '# perf 2\n' },
        { path: 'ci-gate/perf.json', text: '{"revision":2}\n' }
      ],
      read.head as string
    )
    expect(written.head).toBe(fake.state.branches[BRANCH])
    expect(fake.readFile(BRANCH, 'perf.md')).toBe('# perf 2\n')
    expect(fake.readFile(BRANCH, 'ci-gate/perf.json')).toBe('{"revision":2}\n')
    // The versions are the SHAs the contents API gives the files written.
    const shas = await Promise.all(
      ['perf.md', 'ci-gate/perf.json'].map(
        async (path) => (await github.getFile(BRANCH, path))?.sha
      )
    )
    expect(written.versions).toEqual(shas)
    fake.commit(BRANCH, { 'other.md': 'x\n' }, 'a maintainer')
    await expect(
      store.writeMany([{ path: 'perf.md', text: '# perf 3\n' }], written.head)
    ).rejects.toBeInstanceOf(StateConflictError)
    expect(fake.readFile(BRANCH, 'perf.md')).toBe('# perf 2\n')
    expect(fake.invalidRequests()).toEqual([])
  })

  it('a query for another repository or a field Blob does not have is answered as GitHub would', async () => {
    const { fake, github } = await branchStore()
    const other = new RestGitHub(
      createGitHubClient({
        token: 't',
        baseUrl: fake.apiUrl,
        clock: manualClock(fake.now()),
        log: memoryLogger(),
        retryBackoffMs: 1
      }),
      { owner: 'someone', repo: 'else' }
    )
    await expect(other.getFiles(BRANCH, ['perf.md'])).rejects.toMatchObject({
      errors: [{ type: 'NOT_FOUND' }]
    })
    const octokit = new Octokit({ baseUrl: fake.apiUrl, log: quiet })
    await expect(
      octokit.graphql(
        'query($owner: String!, $name: String!, $a: String!) { repository(owner: $owner, name: $name) { a: object(expression: $a) { ... on Blob { size } } } }',
        { owner: repo.owner, name: repo.repo, a: `${BRANCH}:perf.md` }
      )
    ).rejects.toBeDefined()
    const [problem, ...more] = fake.invalidRequests().map((r) => r.openapi.errors)
    expect(more).toEqual([])
    expect(problem).toEqual([expect.stringContaining('repository.a.size')])
    expect(problem?.[0]).toContain('Blob')
    expect((await github.getFiles(BRANCH, ['perf.md'])).files[0]?.text).toBe('# perf\n')
    fake.requests.splice(0)
  })
})

describe('where a branch stands, read with the state files in one GraphQL query', () => {
  const STATE = 'memory/autoloop'
  const connectState = (scenario: Scenario) => connect(scenario, STATE)

  it("the head commit (gh-aw's empty CI-trigger commit on the agent's), the open PR, the bases' heads: one request with the files", async () => {
    const { fake, github, store } = await connectState({
      contents: { [STATE]: { 'perf.md': '# perf\n' }, [BRANCH]: { 'src.ts': 'x\n' } },
      branches: { release: 'ab12'.padEnd(40, '0') }
    })
    const agent = fake.commit(BRANCH, { 'src.ts': 'y\n' }, 'the agent')
    const trigger = fake.commit(BRANCH, {}, 'ci: trigger checks')
    const octokit = new Octokit({ baseUrl: fake.apiUrl, log: quiet })
    const { data: pull } = await octokit.rest.pulls.create({
      ...repo,
      head: BRANCH,
      base: 'release',
      title: 't'
    })
    fake.requests.splice(0)
    const [files, standing] = await Promise.all([
      store.readMany(['perf.md']),
      github.standing({ branch: BRANCH, base: 'main' })
    ])
    expect(files.files[0]?.text).toBe('# perf\n')
    expect(fake.requests.map((r) => r.route)).toEqual(['POST /graphql'])
    expect(standing).toMatchObject({
      head: trigger,
      commit: { sha: trigger, parents: [agent] },
      openPull: { number: pull.number, headRef: BRANCH, baseRef: 'release', state: 'open' },
      defaultBranch: 'main',
      heads: { main: fake.state.branches.main, release: fake.state.branches.release }
    })
    expect(standing?.commit?.parentTree).toBe(standing?.commit?.tree)
    // The default branch is known now: asking for it costs nothing.
    expect(await github.defaultBranch()).toBe('main')
    expect(fake.requests).toHaveLength(1)
  })

  it('a given commit, a branch that does not exist, no PR', async () => {
    const { fake, github } = await connectState({ contents: { [BRANCH]: { 'src.ts': 'x\n' } } })
    const sha = fake.state.branches[BRANCH] as string
    expect(await github.standing({ branch: 'autoloop/none', sha })).toEqual({
      head: null,
      commit: expect.objectContaining({ sha, parents: [], parentTree: null }),
      openPull: null,
      defaultBranch: 'main',
      heads: { main: fake.state.branches.main }
    })
  })

  it('refused (no GraphQL): null, and the files are read through the contents API', async () => {
    const { fake, github, store } = await connectState({
      contents: { [STATE]: { 'perf.md': '# perf\n' } },
      faults: [{ kind: 'status', status: 403, route: 'POST /graphql', count: 'always' }]
    })
    const [files, standing] = await Promise.all([
      store.readMany(['perf.md']),
      github.standing({ branch: BRANCH })
    ])
    expect(standing).toBeNull()
    expect(files.files[0]?.text).toBe('# perf\n')
    fake.requests.splice(0)
  })

  it("a field's error fails only the read it belongs to: the other part gets GitHub's partial answer", async () => {
    const graphql = async () => {
      throw Object.assign(new Error('Resource not accessible by integration'), {
        errors: [
          { type: 'FORBIDDEN', path: ['repository', 'p1_branch', 'associatedPullRequests'] }
        ],
        data: { repository: { p0_head: { target: { oid: 'c'.repeat(40) } }, p0_f0: null } }
      })
    }
    const github = new RestGitHub({ graphql } as unknown as GitHubClient, repo)
    const [files, standing] = await Promise.all([
      github.getFiles(STATE, ['perf.md']),
      github.standing({ branch: BRANCH })
    ])
    expect(files).toEqual({ head: 'c'.repeat(40), files: [null] })
    expect(standing).toBeNull()
  })

  it("a valid query is answered by GitHub's schema's shape: aliases, nesting, abstract types' __typename, nulls", async () => {
    fake = await startFakeGitHub({ scenario: { contents: { [BRANCH]: { 'a.txt': 'a\n' } } } })
    const first = fake.state.branches[BRANCH] as string
    const second = fake.commit(BRANCH, { 'a.txt': 'a2\n' }, 'second')
    const octokit = new Octokit({ baseUrl: fake.apiUrl, log: quiet })
    const { data: pull } = await octokit.rest.pulls.create({
      ...repo,
      head: BRANCH,
      base: 'main',
      title: 't'
    })
    const answer = await octokit.graphql(
      `query($owner: String!, $name: String!, $agent: String!, $file: String!, $sha: GitObjectID!) {
        repository(owner: $owner, name: $name) {
          nameWithOwner
          main: defaultBranchRef { name prefix }
          agent: ref(qualifiedName: $agent) {
            target { __typename oid ... on Commit { parents(first: 5) { totalCount nodes { oid } } } }
            open: associatedPullRequests(states: [OPEN], first: 1) {
              totalCount nodes { number state isDraft headRefName headRefOid baseRef { name } }
            }
            closed: associatedPullRequests(states: [CLOSED, MERGED]) { totalCount nodes { number } }
          }
          missing: ref(qualifiedName: "refs/heads/none") { name }
          file: object(expression: $file) { __typename oid ... on Blob { text byteSize } }
          nothing: object(expression: "main:none.txt") { oid }
          earlier: object(oid: $sha) { ... on Commit { tree { __typename } } ... on Blob { text } }
        }
      }`,
      {
        owner: repo.owner,
        name: repo.repo,
        agent: `refs/heads/${BRANCH}`,
        file: `${BRANCH}:a.txt`,
        sha: first
      }
    )
    expect(answer).toEqual({
      repository: {
        nameWithOwner: `${repo.owner}/${repo.repo}`,
        main: { name: 'main', prefix: 'refs/heads/' },
        agent: {
          target: {
            __typename: 'Commit',
            oid: second,
            parents: { totalCount: 1, nodes: [{ oid: first }] }
          },
          open: {
            totalCount: 1,
            nodes: [
              {
                number: pull.number,
                state: 'OPEN',
                isDraft: false,
                headRefName: BRANCH,
                headRefOid: second,
                baseRef: { name: 'main' }
              }
            ]
          },
          closed: { totalCount: 0, nodes: [] }
        },
        missing: null,
        file: { __typename: 'Blob', oid: blobVersion('a2\n'), text: 'a2\n', byteSize: 3 },
        nothing: null,
        earlier: { tree: { __typename: 'Tree' } }
      }
    })
  })

  it('a query is no write request however it is written (shorthand, a comment first); a mutation is', async () => {
    const { fake, octokit, head } = await start()
    const where = `owner: "${repo.owner}", name: "${repo.repo}"`
    await octokit.graphql(`{ repository(${where}) { nameWithOwner } }`)
    await octokit.graphql(`# the name\nquery Named { repository(${where}) { nameWithOwner } }`)
    await octokit.graphql(MUTATION, { input: input(head) })
    expect(fake.requests.map((r) => r.route)).toEqual([
      'POST /graphql',
      'POST /graphql',
      'POST /graphql'
    ])
    expect(fake.writeRequests()).toEqual([fake.requests[2]])
  })

  it('an argument of the wrong type is invalid, naming the field', async () => {
    fake = await startFakeGitHub({ scenario: { contents: { [BRANCH]: { 'a.txt': 'a\n' } } } })
    const octokit = new Octokit({ baseUrl: fake.apiUrl, log: quiet })
    const ask = (selection: string) =>
      octokit.graphql(
        `query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { ${selection} } }`,
        { owner: repo.owner, name: repo.repo }
      )
    await expect(
      ask('main: defaultBranchRef { associatedPullRequests(first: "one") { totalCount } }')
    ).rejects.toBeDefined()
    await expect(
      ask('main: defaultBranchRef { associatedPullRequests(states: [OPENED]) { totalCount } }')
    ).rejects.toBeDefined()
    await expect(ask('ref(qualifiedName: 7) { name }')).rejects.toBeDefined()
    const problems = fake.invalidRequests().map((r) => r.openapi.errors)
    expect(problems).toHaveLength(3)
    expect(problems[0]).toEqual([expect.stringContaining('repository.main.associatedPullRequests')])
    expect(problems[1]).toEqual([expect.stringContaining('OPENED')])
    expect(problems[2]).toEqual([expect.stringContaining('repository.ref')])
    expect(fake.unimplementedRequests()).toEqual([])
    fake.requests.splice(0)
  })

  it('the fake checks the query against the schema: a field, an argument, a variable of the wrong type', async () => {
    fake = await startFakeGitHub({ scenario: { contents: { [BRANCH]: { 'a.txt': 'a\n' } } } })
    const octokit = new Octokit({ baseUrl: fake.apiUrl, log: quiet })
    const ask = (query: string, variables: Record<string, unknown> = {}) =>
      octokit.graphql(query, { owner: repo.owner, name: repo.repo, ...variables })
    const sha = fake.state.branches[BRANCH] as string
    await expect(
      ask(
        'query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { defaultBranchRef { name headSha } } }'
      )
    ).rejects.toBeDefined()
    await expect(
      ask(
        'query($owner: String!, $name: String!, $b: String!) { repository(owner: $owner, name: $name) { ref(qualifiedName: $b) { associatedPullRequests(state: OPEN, first: 1) { nodes { number } } } } }',
        { b: `refs/heads/${BRANCH}` }
      )
    ).rejects.toBeDefined()
    await expect(
      ask(
        'query($owner: String!, $name: String!, $sha: String!) { repository(owner: $owner, name: $name) { object(oid: $sha) { oid } } }',
        { sha }
      )
    ).rejects.toBeDefined()
    const problems = fake.invalidRequests().map((r) => r.openapi.errors)
    expect(problems).toHaveLength(3)
    expect(problems.map((errors) => errors.length)).toEqual([1, 1, 1])
    const [field, argument, variable] = problems.map((errors) => errors[0] ?? '')
    expect(field).toContain('repository.defaultBranchRef.headSha')
    expect(argument).toContain('repository.ref.associatedPullRequests')
    expect(argument).toContain('state')
    expect(variable).toContain('$sha')
    expect(variable).toContain('GitObjectID')
    fake.requests.splice(0)
  })
})
