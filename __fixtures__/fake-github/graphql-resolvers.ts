/**
 * What the fake answers through GraphQL, over its model (README: "GraphQL"): per type of
 * GitHub's schema, the fields it serves. graphql.ts checks a request against GitHub's schema
 * and runs it with graphql-js, which calls these for the fields the request selects: a field
 * not listed here is one the fake does not serve (the request is counted unimplemented). A
 * source of an interface or union type (`GitObject`) carries its `__typename`.
 */
import { GraphQLError } from 'graphql'
import type { CommitInfo, Model } from './model.js'
import type { PullRecord } from './types.js'

type Resolver = (source: never, args: never, model: Model) => unknown

interface CommitSource {
  __typename: 'Commit'
  oid: string
  info: CommitInfo
}
interface TreeSource {
  __typename: 'Tree'
  oid: string
}
interface BlobSource {
  __typename: 'Blob'
  oid: string
  content: Buffer
}
interface RefSource {
  name: string
  target: CommitSource
}
interface Connection<T> {
  totalCount: number
  nodes: T[]
}

/** A GraphQL error as GitHub words its kind: `type` beside the message (NOT_FOUND, STALE_DATA). */
export const githubError = (type: string, message: string) =>
  new GraphQLError(message, { extensions: { type } })

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

function commit(model: Model, sha: string): CommitSource | null {
  const info = model.commitInfo(sha)
  return info ? { __typename: 'Commit', oid: sha, info } : null
}

function ref(model: Model, name: string): RefSource | null {
  const sha = model.state.branches[name]
  if (sha === undefined) return null
  model.markSeen(sha)
  const target = commit(model, sha)
  return target ? { name, target } : null
}

/** The file at `"<branch or sha>:<path>"`, as `Repository.object(expression:)` reads it. */
function blob(model: Model, expression: string): BlobSource | null {
  const split = expression.indexOf(':')
  if (split < 0) return null
  const sha = model.resolveRef(expression.slice(0, split))
  const entry =
    sha && model.gitCommit(sha) ? model.repo().path(sha, expression.slice(split + 1)) : undefined
  if (entry?.type !== 'file') return null
  return { __typename: 'Blob', oid: entry.sha, content: entry.content }
}

const sameRepo = (model: Model, owner: string, name: string) =>
  owner.toLowerCase() === model.state.owner.toLowerCase() &&
  name.toLowerCase() === model.state.repo.toLowerCase()

const notFound = (nameWithOwner: string) =>
  githubError('NOT_FOUND', `Could not resolve to a Repository with the name '${nameWithOwner}'.`)

interface CommitInput {
  branch: { repositoryNameWithOwner?: string | null; branchName?: string | null; id?: string }
  expectedHeadOid: string
  message: { headline: string; body?: string | null }
  fileChanges?: {
    additions?: { path: string; contents: string }[] | null
    deletions?: { path: string }[] | null
  } | null
}

/** `createCommitOnBranch`, on a branch named by `repositoryNameWithOwner` and `branchName`. */
function createCommitOnBranch(model: Model, input: CommitInput): { commit: CommitSource | null } {
  const { repositoryNameWithOwner: nameWithOwner, branchName } = input.branch
  if (!nameWithOwner || !branchName)
    throw githubError(
      'UNPROCESSABLE',
      'fake GitHub: name the branch with repositoryNameWithOwner and branchName (it has no branch ids)'
    )
  const [owner = '', name = ''] = nameWithOwner.split('/')
  if (!sameRepo(model, owner, name)) throw notFound(nameWithOwner)
  const result = model.createCommitOnBranch({
    branch: branchName,
    expectedHeadOid: input.expectedHeadOid,
    additions: Object.fromEntries(
      (input.fileChanges?.additions ?? []).map((added) => [
        added.path,
        Buffer.from(added.contents, 'base64')
      ])
    ),
    deletions: (input.fileChanges?.deletions ?? []).map((removed) => removed.path),
    message: [input.message.headline, input.message.body].filter((part) => part).join('\n\n')
  })
  if ('error' in result) throw githubError(result.type, result.error)
  return { commit: commit(model, result.oid) }
}

const connection = {
  totalCount: (c: Connection<unknown>) => c.totalCount,
  nodes: (c: Connection<unknown>) => c.nodes
}
const oid = (source: { oid: string }) => source.oid

export const RESOLVERS: Record<string, Record<string, Resolver>> = {
  Query: {
    repository: (_: unknown, args: { owner: string; name: string }, model: Model) => {
      if (!sameRepo(model, args.owner, args.name)) throw notFound(`${args.owner}/${args.name}`)
      return {}
    }
  },
  Mutation: {
    createCommitOnBranch: (_: unknown, args: { input: CommitInput }, model: Model) =>
      createCommitOnBranch(model, args.input)
  },
  CreateCommitOnBranchPayload: {
    commit: (payload: { commit: CommitSource | null }) => payload.commit
  },
  Repository: {
    nameWithOwner: (_: unknown, __: unknown, model: Model) =>
      `${model.state.owner}/${model.state.repo}`,
    defaultBranchRef: (_: unknown, __: unknown, model: Model) =>
      ref(model, model.state.defaultBranch),
    ref: (_: unknown, args: { qualifiedName: string }, model: Model) =>
      ref(model, args.qualifiedName.replace(/^refs\/heads\//, '')),
    object: (
      _: unknown,
      args: { oid?: string | null; expression?: string | null },
      model: Model
    ) =>
      args.oid != null
        ? commit(model, args.oid)
        : args.expression != null
          ? blob(model, args.expression)
          : null
  },
  Ref: {
    name: (source: RefSource) => source.name,
    prefix: () => 'refs/heads/',
    target: (source: RefSource) => source.target,
    associatedPullRequests: (
      source: RefSource,
      args: { states?: string[] | null; first?: number | null; orderBy?: { direction: string } },
      model: Model
    ): Connection<PullRecord> => {
      const pulls = model.state.pulls
        .filter((pull) => pull.head === source.name)
        .filter((pull) => !args.states || args.states.includes(pull.state.toUpperCase()))
        .sort((a, b) =>
          args.orderBy?.direction === 'DESC' ? b.number - a.number : a.number - b.number
        )
      return { totalCount: pulls.length, nodes: pulls.slice(0, args.first ?? 100) }
    }
  },
  Commit: {
    oid,
    committedDate: (source: CommitSource) => iso(source.info.committer.date),
    tree: (source: CommitSource): TreeSource => ({ __typename: 'Tree', oid: source.info.tree }),
    parents: (
      source: CommitSource,
      args: { first?: number | null },
      model: Model
    ): Connection<CommitSource | null> => ({
      totalCount: source.info.parents.length,
      nodes: source.info.parents.slice(0, args.first ?? 100).map((parent) => commit(model, parent))
    })
  },
  Tree: { oid },
  Blob: {
    oid,
    text: (source: BlobSource) => source.content.toString('utf8'),
    isBinary: () => false,
    isTruncated: () => false,
    byteSize: (source: BlobSource) => source.content.length
  },
  CommitConnection: connection,
  PullRequestConnection: connection,
  PullRequest: {
    number: (pull: PullRecord) => pull.number,
    url: (pull: PullRecord, _: unknown, model: Model) =>
      `https://github.com/${model.state.owner}/${model.state.repo}/pull/${pull.number}`,
    state: (pull: PullRecord) => pull.state.toUpperCase(),
    isDraft: (pull: PullRecord) => pull.draft,
    headRefName: (pull: PullRecord) => pull.head,
    headRefOid: (pull: PullRecord, _: unknown, model: Model) =>
      model.state.branches[pull.head] ?? null,
    baseRefName: (pull: PullRecord) => pull.base,
    baseRef: (pull: PullRecord, _: unknown, model: Model) => ref(model, pull.base)
  }
}
