/**
 * The state branch through the contents API and GraphQL (ContentsApi): files read with the
 * SHA a compare-and-swap write goes against, commits that fail when the branch moved, folder
 * listings, and creating the branch.
 */
import type { RestRequests } from './requests.js'
import type { RestRepository } from './repository.js'
import { httpStatus } from '../../core/errors.js'
import type { BranchFiles } from '../../ports.js'
import { ContentsConflictError } from '../../core/state-errors.js'

export class RestContents {
  constructor(
    private readonly api: RestRequests,
    /** Where the branches stand: a branch is created from the default branch's head. */
    private readonly branches: Pick<RestRepository, 'branchHead' | 'defaultBranch'>
  ) {}

  async getFile(branch: string, path: string): Promise<{ text: string; sha: string } | null> {
    try {
      const { data } = await this.api.client.rest.repos.getContent({
        ...this.api.repo,
        path,
        ref: branch
      })
      if (Array.isArray(data) || data.type !== 'file') return null
      const text =
        'content' in data && data.content
          ? Buffer.from(data.content, 'base64').toString('utf8')
          : ''
      return { text, sha: data.sha }
    } catch (error) {
      if (httpStatus(error) === 404) return null
      throw error
    }
  }

  /**
   * The branch's head and files in one GraphQL query (one rate-limit point for any number of
   * files), each with its blob SHA, the contents API's file SHA, so a compare-and-swap write
   * goes against exactly what was read. A file GraphQL cannot give as text (binary, or cut
   * short for its size) is read through the contents API.
   */
  async getFiles(branch: string, paths: readonly string[]): Promise<BranchFiles> {
    type Blob = { oid?: string; text: string | null; isBinary: boolean; isTruncated: boolean }
    const { repository, p } = await this.api.readRepository((p) => ({
      fields: [
        `    ${p}head: ref(qualifiedName: $${p}ref) { target { oid } }`,
        ...paths.map(
          (_, i) =>
            `    ${p}f${i}: object(expression: $${p}f${i}) { ... on Blob { oid text isBinary isTruncated } }`
        )
      ].join('\n'),
      variables: {
        [`${p}ref`]: { type: 'String!', value: `refs/heads/${branch}` },
        ...Object.fromEntries(
          paths.map((path, i) => [`${p}f${i}`, { type: 'String!', value: `${branch}:${path}` }])
        )
      }
    }))
    const files = await Promise.all(
      paths.map(async (path, i) => {
        const blob = (repository?.[`${p}f${i}`] ?? null) as Blob | null
        if (blob?.oid === undefined) return null
        if (blob.text === null || blob.isBinary || blob.isTruncated)
          return this.getFile(branch, path)
        return { text: blob.text, sha: blob.oid }
      })
    )
    const head = repository?.[`${p}head`] as { target: { oid: string } } | null | undefined
    return { head: head?.target.oid ?? null, files }
  }

  /**
   * Commits the files on the branch in one commit (GraphQL `createCommitOnBranch`), only if its
   * head is still `head`: ContentsConflictError when the branch moved.
   */
  async commitFiles(
    branch: string,
    head: string,
    files: readonly { path: string; text: string }[],
    message: string
  ): Promise<{ head: string }> {
    const mutation = `mutation($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid } }
}`
    try {
      const result = await this.api.client.graphql<{
        createCommitOnBranch: { commit: { oid: string } }
      }>(mutation, {
        input: {
          branch: {
            repositoryNameWithOwner: `${this.api.repo.owner}/${this.api.repo.repo}`,
            branchName: branch
          },
          expectedHeadOid: head,
          message: { headline: message },
          fileChanges: {
            additions: files.map((file) => ({
              path: file.path,
              contents: Buffer.from(file.text, 'utf8').toString('base64')
            }))
          }
        }
      })
      return { head: result.createCommitOnBranch.commit.oid }
    } catch (error) {
      const errors = (error as { errors?: { type?: string; message?: string }[] }).errors ?? []
      if (
        errors.some(
          (e) => e.type === 'STALE_DATA' || /expected branch to point to/i.test(e.message ?? '')
        )
      )
        throw new ContentsConflictError(`${branch} moved since ${head.slice(0, 12)} was read`, {
          cause: error
        })
      throw error
    }
  }

  async putFile(
    branch: string,
    path: string,
    text: string,
    sha: string | null,
    message: string
  ): Promise<{ sha: string }> {
    try {
      const { data } = await this.api.client.rest.repos.createOrUpdateFileContents({
        ...this.api.repo,
        path,
        branch,
        message,
        content: Buffer.from(text, 'utf8').toString('base64'),
        ...(sha ? { sha } : {})
      })
      return { sha: data.content?.sha ?? '' }
    } catch (error) {
      const status = httpStatus(error)
      if (status === 409 || status === 422)
        throw new ContentsConflictError(
          `${path} on ${branch} changed since it was read (HTTP ${status})`,
          { cause: error }
        )
      throw error
    }
  }

  async listDir(branch: string, path: string): Promise<string[]> {
    // The contents API has no valid path for the root of a branch: list its tree instead.
    if (path === '') return this.rootFiles(branch)
    try {
      const { data } = await this.api.client.rest.repos.getContent({
        ...this.api.repo,
        path,
        ref: branch
      })
      return Array.isArray(data)
        ? data.filter((entry) => entry.type === 'file').map((entry) => entry.name)
        : []
    } catch (error) {
      if (httpStatus(error) === 404) return []
      throw error
    }
  }

  /** File names at the root of a branch (one request, the tree named by the branch). */
  private async rootFiles(branch: string): Promise<string[]> {
    try {
      const tree = await this.api.conditionalGet<{ tree: { path: string; type: string }[] }>(
        'GET /repos/{owner}/{repo}/git/trees/{tree_sha}',
        { tree_sha: branch }
      )
      return tree.tree.filter((entry) => entry.type === 'blob').map((entry) => entry.path)
    } catch (error) {
      if (httpStatus(error) === 404 || httpStatus(error) === 409) return []
      throw error
    }
  }

  async ensureBranch(branch: string): Promise<void> {
    if ((await this.branches.branchHead(branch)) !== null) return
    const base = await this.branches.branchHead(await this.branches.defaultBranch())
    if (!base) throw new Error(`cannot create ${branch}: the default branch has no head`)
    try {
      await this.api.client.rest.git.createRef({
        ...this.api.repo,
        ref: `refs/heads/${branch}`,
        sha: base
      })
    } catch (error) {
      // Created meanwhile by another run: fine.
      if (httpStatus(error) !== 422) throw error
    }
  }
}
