/**
 * What the fake keeps behind branches and the contents API: git objects (blobs, trees,
 * commits) and branch refs. Two implementations give the same answers and the same SHAs:
 * `MemoryRepo` (`contents-memory.ts`, the default: no process, no disk) and `GitRepo`
 * (`git.ts`, a real bare repository, for scenarios where git itself is the point: fetch or
 * clone over HTTP, a push to `gitDir`).
 */

export interface Identity {
  name: string
  email: string
  /** ms epoch */
  date: number
}

/** An author or committer line as git writes it: both stores must write it alike for equal SHAs. */
export function stamp(who: Identity): string {
  return `${who.name} <${who.email}> ${Math.floor(who.date / 1000)} +0000`
}

export interface GitCommit {
  sha: string
  tree: string
  parents: string[]
  author: Identity
  committer: Identity
  message: string
}

export interface GitTreeEntry {
  /** Path relative to the listed tree. */
  path: string
  mode: string
  type: 'blob' | 'tree' | 'commit'
  sha: string
  /** Blob size in bytes; undefined for trees and submodules. */
  size: number | undefined
}

export type GitPath =
  | { type: 'file'; sha: string; content: Buffer }
  | { type: 'dir'; sha: string; entries: GitTreeEntry[] }

/** Thrown when a branch moved in git between reading its head and updating it. */
export class RefMovedError extends Error {}

export interface WriteCommit {
  branch: string
  parent: string | null
  files: Record<string, string | Buffer>
  message: string
  author: Identity
  /** Default: the author. */
  committer?: Identity
  /** Paths removed from the parent's tree. */
  deletions?: string[]
}

export interface ContentStore {
  /** Branch name → head SHA. */
  heads(): Record<string, string>
  /** The commit, or undefined when `sha` is not a commit in this repository. */
  commit(sha: string): GitCommit | undefined
  /** A file or directory at `path` ('' = the root) of commit `sha`, or undefined. */
  path(sha: string, path: string): GitPath | undefined
  /** Entries of a tree (a tree SHA or a commit), recursively when asked, or undefined. */
  tree(treeish: string, recursive?: boolean): { sha: string; entries: GitTreeEntry[] } | undefined
  /** A blob's bytes, or undefined. */
  blob(sha: string): Buffer | undefined
  /**
   * Commits `files` over `parent`'s tree (an empty tree when null) and moves `branch` to the
   * new commit, only when the new commit contains the branch's current head: otherwise
   * RefMovedError. Returns the new SHA.
   */
  writeCommit(options: WriteCommit): string
  /** Points a branch at a commit (no compare-and-swap). */
  setBranch(branch: string, sha: string): void
  deleteBranch(branch: string): void
}
