/**
 * The repository's branches, commits and pull requests as RestGitHub reads them: where a branch
 * stands in one GraphQL read (`standing`), and the REST reads it stands for, one by one.
 */
import { PAGE_SIZE, type RestRequests } from './requests.js'
import type { BranchStanding, CommitInfo, PullInfo, StandingQuery } from '../../core/github.js'
import { httpStatus } from '../../core/errors.js'

interface RestPull {
  number: number
  html_url: string
  state: string
  created_at?: string
  draft?: boolean
  head: { sha: string; ref: string }
  base: { ref: string }
}

function toPull(pull: RestPull): PullInfo {
  return {
    number: pull.number,
    url: pull.html_url,
    headSha: pull.head.sha,
    headRef: pull.head.ref,
    baseRef: pull.base.ref,
    draft: pull.draft ?? false,
    state: pull.state
  }
}

const PULL_FIELDS =
  'number url state isDraft headRefName headRefOid baseRefName baseRef { name target { oid } }'
const COMMIT_FIELDS =
  'oid committedDate tree { oid } parents(first: 2) { nodes { oid tree { oid } } }'

interface GqlPull {
  number: number
  url: string
  state: string
  isDraft: boolean
  headRefName: string
  headRefOid: string
  baseRefName: string
  baseRef: { name: string; target: { oid: string } | null } | null
}
interface GqlCommit {
  oid: string
  committedDate: string | null
  tree: { oid: string }
  parents: { nodes: { oid: string; tree: { oid: string } }[] }
}

function gqlPull(pull: GqlPull): PullInfo {
  return {
    number: pull.number,
    url: pull.url,
    headSha: pull.headRefOid,
    headRef: pull.headRefName,
    baseRef: pull.baseRefName,
    draft: pull.isDraft,
    state: pull.state.toLowerCase()
  }
}

function gqlCommit(commit: GqlCommit | null | undefined): BranchStanding['commit'] {
  if (!commit?.oid) return null
  const committedAt = Date.parse(commit.committedDate ?? '')
  const parents = commit.parents.nodes
  return {
    sha: commit.oid,
    tree: commit.tree.oid,
    parents: parents.map((parent) => parent.oid),
    ...(Number.isFinite(committedAt) ? { committedAt } : {}),
    parentTree: parents.length === 1 ? (parents[0]?.tree.oid ?? null) : null
  }
}

export class RestRepository {
  /** The default branch, once read: it does not change during a run. */
  private knownDefaultBranch: string | null = null

  constructor(private readonly api: RestRequests) {}

  /** See GitHubPort.standing: one GraphQL read; null when GraphQL refuses it. */
  async standing(query: StandingQuery): Promise<BranchStanding | null> {
    let read: { repository: Record<string, unknown> | null; p: string }
    try {
      read = await this.api.readRepository((p) => ({
        fields: [
          `    ${p}branch: ref(qualifiedName: $${p}branch) {
      target { ... on Commit { ${COMMIT_FIELDS} } }
      associatedPullRequests(states: [OPEN], first: 1, orderBy: { field: CREATED_AT, direction: DESC }) { nodes { ${PULL_FIELDS} } }
    }`,
          `    ${p}default: defaultBranchRef { name target { oid } }`,
          ...(query.sha
            ? [`    ${p}commit: object(oid: $${p}sha) { ... on Commit { ${COMMIT_FIELDS} } }`]
            : []),
          ...(query.base ? [`    ${p}base: ref(qualifiedName: $${p}base) { target { oid } }`] : [])
        ].join('\n'),
        variables: {
          [`${p}branch`]: { type: 'String!', value: `refs/heads/${query.branch}` },
          ...(query.sha ? { [`${p}sha`]: { type: 'GitObjectID!', value: query.sha } } : {}),
          ...(query.base
            ? { [`${p}base`]: { type: 'String!', value: `refs/heads/${query.base}` } }
            : {})
        }
      }))
    } catch {
      return null
    }
    const { repository, p } = read
    if (!repository) return null
    const branch = repository[`${p}branch`] as {
      target: GqlCommit | null
      associatedPullRequests: { nodes: GqlPull[] }
    } | null
    const defaults = repository[`${p}default`] as {
      name: string
      target: { oid: string } | null
    } | null
    if (!defaults) return null
    const open = branch?.associatedPullRequests.nodes[0]
    const heads: Record<string, string | null> = {
      [defaults.name]: defaults.target?.oid ?? null
    }
    if (open?.baseRef) heads[open.baseRef.name] = open.baseRef.target?.oid ?? null
    if (query.base)
      heads[query.base] =
        (repository[`${p}base`] as { target: { oid: string } | null } | null)?.target?.oid ?? null
    this.knownDefaultBranch = defaults.name
    return {
      head: branch?.target?.oid ?? null,
      commit: gqlCommit(
        query.sha ? (repository[`${p}commit`] as GqlCommit | null) : branch?.target
      ),
      openPull: open ? gqlPull(open) : null,
      defaultBranch: defaults.name,
      heads
    }
  }

  async defaultBranch(): Promise<string> {
    if (this.knownDefaultBranch !== null) return this.knownDefaultBranch
    const repo = await this.api.conditionalGet<{ default_branch: string }>(
      'GET /repos/{owner}/{repo}',
      {}
    )
    this.knownDefaultBranch = repo.default_branch
    return repo.default_branch
  }

  async branchHead(branch: string): Promise<string | null> {
    try {
      const ref = await this.api.conditionalGet<{ object: { sha: string } }>(
        'GET /repos/{owner}/{repo}/git/ref/{ref}',
        { ref: `heads/${branch}` }
      )
      return ref.object.sha
    } catch (error) {
      if (httpStatus(error) === 404) return null
      throw error
    }
  }

  async getPull(number: number): Promise<PullInfo | null> {
    try {
      const pull = await this.api.conditionalGet<RestPull>(
        'GET /repos/{owner}/{repo}/pulls/{pull_number}',
        {
          pull_number: number
        }
      )
      return toPull(pull)
    } catch (error) {
      if (httpStatus(error) === 404) return null
      throw error
    }
  }

  async findOpenPull(branch: string): Promise<PullInfo | null> {
    const pulls = await this.api.conditionalGet<RestPull[]>('GET /repos/{owner}/{repo}/pulls', {
      head: `${this.api.repo.owner}:${branch}`,
      state: 'open',
      per_page: 10
    })
    const first = pulls[0]
    return first ? toPull(first) : null
  }

  async createDraftPull(input: {
    title: string
    head: string
    base: string
    body: string
  }): Promise<PullInfo> {
    const response = await this.api.client.rest.pulls.create({
      ...this.api.repo,
      ...input,
      draft: true
    })
    return toPull(response.data as RestPull)
  }

  async commit(sha: string): Promise<CommitInfo | null> {
    try {
      const commit = await this.api.conditionalGet<{
        sha: string
        tree: { sha: string }
        parents: { sha: string }[]
        committer?: { date?: string }
      }>('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { commit_sha: sha })
      const committedAt = Date.parse(commit.committer?.date ?? '')
      return {
        sha: commit.sha,
        tree: commit.tree.sha,
        parents: commit.parents.map((parent) => parent.sha),
        ...(Number.isFinite(committedAt) ? { committedAt } : {})
      }
    } catch (error) {
      const status = httpStatus(error)
      if (status === 404 || status === 422) return null
      throw error
    }
  }

  async branchesStartingWith(prefix: string): Promise<{ name: string; sha: string }[]> {
    const refs = await this.api.conditionalGet<{ ref: string; object: { sha: string } }[]>(
      'GET /repos/{owner}/{repo}/git/matching-refs/{ref}',
      { ref: `heads/${prefix}` }
    )
    return refs.map((ref) => ({
      name: ref.ref.replace(/^refs\/heads\//, ''),
      sha: ref.object.sha
    }))
  }

  async pullsInto(base: string, headPrefix: string): Promise<(PullInfo & { createdAt: number })[]> {
    const pulls = await this.api.conditionalGet<RestPull[]>('GET /repos/{owner}/{repo}/pulls', {
      base,
      state: 'all',
      sort: 'created',
      direction: 'desc',
      per_page: PAGE_SIZE
    })
    return pulls
      .filter((pull) => pull.head.ref.startsWith(headPrefix))
      .map((pull) => ({ ...toPull(pull), createdAt: Date.parse(pull.created_at ?? '') || 0 }))
  }
}
