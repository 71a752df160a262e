/**
 * An in-memory stand-in for the GitHub contents API behind `ContentsApiStore`: blob SHAs
 * are git's (`sha1("blob <bytes>\0" + content)`), a write with a stale SHA answers like a
 * 409, and a hook runs before every call returns so tests can interleave concurrent writers.
 */
import { blobVersion } from '../../src/adapters/store.js'
import { ContentsConflictError } from '../../src/core/state-errors.js'
import type { ContentsApi } from '../../src/ports.js'

/** Git's blob SHA of `text`: the adapter's own `blobVersion`, which a test holds to git's. */
export const gitBlobSha = blobVersion

export interface ContentsCall {
  method: 'getFile' | 'putFile' | 'listDir' | 'ensureBranch' | 'getFiles' | 'commitFiles'
  branch: string
  path?: string
  sha?: string | null
  message?: string
  /** For putFile: whether it was refused as a conflict. */
  conflict?: boolean
}

export class MemoryContentsApi implements ContentsApi {
  readonly files = new Map<string, string>()
  readonly branches = new Set<string>()
  readonly calls: ContentsCall[] = []
  /** Awaited inside every call (after reading, before answering): tests interleave here. */
  hook: (call: ContentsCall) => Promise<void> = async () => {}

  private key(branch: string, path: string): string {
    return `${branch}:${path}`
  }

  /** Puts a file in place without a call (test setup). */
  seed(branch: string, path: string, text: string): string {
    this.branches.add(branch)
    this.files.set(this.key(branch, path), text)
    this.moved(branch)
    return gitBlobSha(text)
  }

  text(branch: string, path: string): string | undefined {
    return this.files.get(this.key(branch, path))
  }

  async getFile(branch: string, path: string): Promise<{ text: string; sha: string } | null> {
    const call: ContentsCall = { method: 'getFile', branch, path }
    this.calls.push(call)
    const text = this.files.get(this.key(branch, path))
    await this.hook(call)
    return text === undefined ? null : { text, sha: gitBlobSha(text) }
  }

  async putFile(
    branch: string,
    path: string,
    text: string,
    sha: string | null,
    message: string
  ): Promise<{ sha: string }> {
    const call: ContentsCall = { method: 'putFile', branch, path, sha, message }
    this.calls.push(call)
    await this.hook(call)
    if (!this.branches.has(branch)) throw new Error(`404: branch ${branch} does not exist`)
    const current = this.files.get(this.key(branch, path))
    const currentSha = current === undefined ? null : gitBlobSha(current)
    if (currentSha !== sha) {
      call.conflict = true
      throw new ContentsConflictError(`409: ${path} does not match ${sha ?? '(new file)'}`)
    }
    this.files.set(this.key(branch, path), text)
    this.moved(branch)
    return { sha: gitBlobSha(text) }
  }

  /** Every change of a branch moves its head (`c<n>`). */
  protected readonly heads = new Map<string, number>()

  protected moved(branch: string): void {
    this.heads.set(branch, (this.heads.get(branch) ?? 0) + 1)
  }

  headOf(branch: string): string | null {
    return this.branches.has(branch) ? `c${this.heads.get(branch) ?? 0}` : null
  }

  async listDir(branch: string, path: string): Promise<string[]> {
    const call: ContentsCall = { method: 'listDir', branch, path }
    this.calls.push(call)
    await this.hook(call)
    const prefix = path === '' ? `${branch}:` : `${branch}:${path}/`
    return [...this.files.keys()]
      .filter((key) => key.startsWith(prefix) && !key.slice(prefix.length).includes('/'))
      .map((key) => key.slice(prefix.length))
  }

  async ensureBranch(branch: string): Promise<void> {
    const call: ContentsCall = { method: 'ensureBranch', branch }
    this.calls.push(call)
    await this.hook(call)
    this.branches.add(branch)
  }
}

/**
 * The same store with GraphQL's two calls as well: the branch head and several files in one
 * read, and several files in one commit, refused (like `STALE_DATA`) when the head moved.
 */
export class MemoryBranchApi extends MemoryContentsApi {
  async getFiles(
    branch: string,
    paths: readonly string[]
  ): Promise<{ head: string | null; files: ({ text: string; sha: string } | null)[] }> {
    const call: ContentsCall = { method: 'getFiles', branch, path: paths.join(' ') }
    this.calls.push(call)
    const head = this.headOf(branch)
    const files = paths.map((path) => {
      const text = this.text(branch, path)
      return text === undefined ? null : { text, sha: gitBlobSha(text) }
    })
    await this.hook(call)
    return { head, files }
  }

  async commitFiles(
    branch: string,
    head: string,
    files: readonly { path: string; text: string }[],
    message: string
  ): Promise<{ head: string }> {
    const call: ContentsCall = {
      method: 'commitFiles',
      branch,
      path: files.map((file) => file.path).join(' '),
      sha: head,
      message
    }
    this.calls.push(call)
    await this.hook(call)
    if (this.headOf(branch) !== head) {
      call.conflict = true
      throw new ContentsConflictError(`STALE_DATA: ${branch} is not at ${head}`)
    }
    for (const file of files) this.files.set(`${branch}:${file.path}`, file.text)
    this.moved(branch)
    return { head: this.headOf(branch) as string }
  }
}
