/**
 * How RestGitHub asks GitHub: reads that are polled go through `conditionalGet`, which sends
 * `If-None-Match` with the last ETag of the same URL: a `304` costs no rate limit, so waiting an
 * hour on one check costs a handful of points. Lists whose first page gives their length are
 * read with `allPages`; GraphQL reads of the repository asked for together go in one query
 * (`readRepository`).
 */
import type { GitHubClient } from './client.js'
import type { RepoRef } from '../../core/github.js'
import { httpStatus } from '../../core/errors.js'

export const PAGE_SIZE = 100

interface CachedResponse {
  etag: string
  data: unknown
}

/**
 * One part of a GraphQL read of the repository: its fields under `repository { … }` and its
 * variables, every alias and variable name starting with `p` so that parts sent together in
 * one query do not collide.
 */
export type RepositoryPart = (p: string) => {
  fields: string
  variables: Record<string, { type: string; value: unknown }>
}

/** What a part gets back: the `repository` answered, and the prefix of its aliases. */
export interface RepositoryRead {
  repository: Record<string, unknown> | null
  p: string
}

interface PendingPart {
  part: RepositoryPart
  resolve: (read: RepositoryRead) => void
  reject: (error: unknown) => void
}

/** The client and repository every part of RestGitHub asks through, with what they share. */
export class RestRequests {
  private readonly cache = new Map<string, CachedResponse>()

  /** GraphQL reads of the repository asked for together, sent as one query (`readRepository`). */
  private pendingParts: PendingPart[] | null = null

  constructor(
    readonly client: GitHubClient,
    readonly repo: RepoRef
  ) {}

  /**
   * A GraphQL read of the repository. Reads asked for in the same turn of the event loop (the
   * state files and where the branch stands, at a gate's start) go in one query: one request,
   * one rate-limit point. A failed query fails each of its parts.
   */
  readRepository(part: RepositoryPart): Promise<RepositoryRead> {
    return new Promise((resolve, reject) => {
      if (!this.pendingParts) {
        this.pendingParts = []
        setImmediate(() => void this.sendParts())
      }
      this.pendingParts.push({ part, resolve, reject })
    })
  }

  private async sendParts(): Promise<void> {
    const parts = this.pendingParts ?? []
    this.pendingParts = null
    const built = parts.map((entry, i) => ({ entry, p: `p${i}_`, ...entry.part(`p${i}_`) }))
    const variables = built.flatMap((b) => Object.entries(b.variables))
    const query = `query($owner: String!, $name: String!${variables.map(([name, v]) => `, $${name}: ${v.type}`).join('')}) {
  repository(owner: $owner, name: $name) {
${built.map((b) => b.fields).join('\n')}
  }
}`
    try {
      const result = await this.client.graphql<{ repository: Record<string, unknown> | null }>(
        query,
        {
          owner: this.repo.owner,
          name: this.repo.repo,
          ...Object.fromEntries(variables.map(([name, v]) => [name, v.value]))
        }
      )
      for (const b of built) b.entry.resolve({ repository: result.repository, p: b.p })
    } catch (error) {
      // GitHub answers what it could beside its errors: a part none of whose fields failed
      // gets its answer; an error without a field's path fails every part.
      const { errors, data } = error as {
        errors?: { path?: (string | number)[] }[]
        data?: { repository?: Record<string, unknown> | null }
      }
      const failed = (p: string) =>
        !errors ||
        !data?.repository ||
        errors.some(
          (e) =>
            e.path?.[0] !== 'repository' ||
            e.path[1] === undefined ||
            String(e.path[1]).startsWith(p)
        )
      for (const b of built)
        if (failed(b.p)) b.entry.reject(error)
        else b.entry.resolve({ repository: data?.repository ?? null, p: b.p })
    }
  }

  /** A GET that sends the last ETag of the same URL and re-uses the cached body on 304. */
  async conditionalGet<T>(route: string, params: Record<string, string | number>): Promise<T> {
    const key = `${route} ${JSON.stringify(params)}`
    const cached = this.cache.get(key)
    try {
      const response = await this.client.request(route, {
        ...this.repo,
        ...params,
        headers: cached ? { 'if-none-match': cached.etag } : {}
      })
      const etag = response.headers.etag
      if (etag) this.cache.set(key, { etag, data: response.data })
      return response.data as T
    } catch (error) {
      if (httpStatus(error) === 304 && cached) return cached.data as T
      throw error
    }
  }

  /**
   * Every page of a list whose first page says how many items there are. Not
   * `octokit.paginate`: that cannot send `If-None-Match`, and polled lists must, so that a page
   * that did not change is a free 304.
   */
  async allPages<T>(
    route: string,
    params: Record<string, string | number>,
    items: (page: unknown) => { total: number; items: T[] }
  ): Promise<T[]> {
    const first = items(
      await this.conditionalGet(route, { ...params, per_page: PAGE_SIZE, page: 1 })
    )
    const pages = Math.ceil(first.total / PAGE_SIZE)
    const result = [...first.items]
    for (let page = 2; page <= pages; page++) {
      result.push(
        ...items(await this.conditionalGet(route, { ...params, per_page: PAGE_SIZE, page })).items
      )
    }
    return result
  }
}
