/**
 * The fake's contents in memory: git objects hashed exactly as git hashes them (so a blob's
 * SHA is the contents API's file SHA, and a commit's SHA is the one `git fast-import` would
 * make), and branch refs, without starting a process. `writeTo` copies everything into a
 * bare repository as loose objects and refs when a scenario needs git itself (see
 * `ContentStore`).
 */
import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { deflateSync } from 'node:zlib'
import {
  RefMovedError,
  stamp,
  type ContentStore,
  type GitCommit,
  type GitPath,
  type GitTreeEntry,
  type Identity,
  type WriteCommit
} from './contents-store.js'

type GitObject =
  | { type: 'blob'; raw: Buffer }
  | { type: 'tree'; raw: Buffer; entries: GitTreeEntry[] }
  | { type: 'commit'; raw: Buffer; commit: GitCommit }

/** A tree being built: name → a blob SHA or a subtree. */
type Draft = Map<string, { blob: string } | { tree: Draft }>

const SHA_RE = /^[0-9a-f]{40}$/

function checkPath(path: string): void {
  if (/[\n"]/.test(path) || path === '') throw new Error(`unsupported path ${JSON.stringify(path)}`)
}

/** git's tree order: names compared bytewise, a tree's name as if it ended with '/'. */
function treeOrder(a: GitTreeEntry, b: GitTreeEntry): number {
  const key = (e: GitTreeEntry) => Buffer.from(e.type === 'tree' ? `${e.path}/` : e.path)
  return Buffer.compare(key(a), key(b))
}

/** No file anywhere under the draft. */
function isEmpty(draft: Draft): boolean {
  return [...draft.values()].every((item) => 'tree' in item && isEmpty(item.tree))
}

export class MemoryRepo implements ContentStore {
  private readonly objects = new Map<string, GitObject>()
  private readonly refs = new Map<string, string>()

  private put(object: GitObject): string {
    const header = Buffer.from(`${object.type} ${object.raw.length}\0`)
    const sha = createHash('sha1').update(header).update(object.raw).digest('hex')
    if (!this.objects.has(sha)) this.objects.set(sha, object)
    return sha
  }

  heads(): Record<string, string> {
    return Object.fromEntries(this.refs)
  }

  commit(sha: string): GitCommit | undefined {
    const object = this.objects.get(sha)
    return object?.type === 'commit' ? object.commit : undefined
  }

  private treeSha(treeish: string): string | undefined {
    const object = SHA_RE.test(treeish) ? this.objects.get(treeish) : undefined
    if (object?.type === 'commit') return object.commit.tree
    return object?.type === 'tree' ? treeish : undefined
  }

  path(sha: string, path: string): GitPath | undefined {
    let at = this.commit(sha)?.tree
    for (const name of path === '' ? [] : path.split('/')) {
      const object = at === undefined ? undefined : this.objects.get(at)
      at = object?.type === 'tree' ? object.entries.find((e) => e.path === name)?.sha : undefined
    }
    const found = at === undefined ? undefined : this.objects.get(at)
    if (at === undefined || !found) return undefined
    if (found.type === 'blob') return { type: 'file', sha: at, content: found.raw }
    if (found.type === 'tree') return { type: 'dir', sha: at, entries: found.entries }
    return undefined
  }

  tree(treeish: string, recursive = false): { sha: string; entries: GitTreeEntry[] } | undefined {
    const sha = this.treeSha(treeish)
    if (sha === undefined) return undefined
    const list = (tree: string, prefix: string): GitTreeEntry[] => {
      const object = this.objects.get(tree)
      if (object?.type !== 'tree') return []
      return object.entries.flatMap((e) => {
        const entry = { ...e, path: `${prefix}${e.path}` }
        return recursive && e.type === 'tree' ? [entry, ...list(e.sha, `${entry.path}/`)] : [entry]
      })
    }
    return { sha, entries: list(sha, '') }
  }

  blob(sha: string): Buffer | undefined {
    const object = this.objects.get(sha)
    return object?.type === 'blob' ? object.raw : undefined
  }

  /** The tree `sha` as a draft to change (empty when undefined). */
  private draft(sha: string | undefined): Draft {
    const draft: Draft = new Map()
    const object = sha === undefined ? undefined : this.objects.get(sha)
    if (object?.type !== 'tree') return draft
    for (const e of object.entries) {
      draft.set(e.path, e.type === 'tree' ? { tree: this.draft(e.sha) } : { blob: e.sha })
    }
    return draft
  }

  /** Writes the tree; directories left empty are dropped, as git drops them. */
  private writeDraft(draft: Draft): string {
    const entries: GitTreeEntry[] = []
    for (const [path, item] of draft) {
      if ('blob' in item) {
        const size = this.blob(item.blob)?.length ?? 0
        entries.push({ path, mode: '100644', type: 'blob', sha: item.blob, size })
      } else if (!isEmpty(item.tree)) {
        const sha = this.writeDraft(item.tree)
        entries.push({ path, mode: '040000', type: 'tree', sha, size: undefined })
      }
    }
    entries.sort(treeOrder)
    const raw = Buffer.concat(
      entries.flatMap((e) => [
        Buffer.from(`${e.type === 'tree' ? '40000' : e.mode} ${e.path}\0`),
        Buffer.from(e.sha, 'hex')
      ])
    )
    return this.put({ type: 'tree', raw, entries })
  }

  private isAncestor(ancestor: string, of: string): boolean {
    const seen = new Set<string>()
    const stack = [of]
    for (let sha = stack.pop(); sha !== undefined; sha = stack.pop()) {
      if (sha === ancestor) return true
      if (seen.has(sha)) continue
      seen.add(sha)
      stack.push(...(this.commit(sha)?.parents ?? []))
    }
    return false
  }

  writeCommit(options: WriteCommit): string {
    const { branch, parent, files, message, author } = options
    const committer = options.committer ?? author
    const parentCommit = parent === null ? undefined : this.commit(parent)
    if (parent !== null && !parentCommit) throw new Error(`not a commit: ${parent}`)
    const root = this.draft(parentCommit?.tree)
    for (const path of options.deletions ?? []) {
      checkPath(path)
      const names = path.split('/')
      let dir: Draft | undefined = root
      for (const name of names.slice(0, -1)) {
        const item: { blob: string } | { tree: Draft } | undefined = dir?.get(name)
        dir = item && 'tree' in item ? item.tree : undefined
      }
      dir?.delete(names[names.length - 1] ?? '')
    }
    for (const [path, content] of Object.entries(files)) {
      checkPath(path)
      const raw = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
      const blob = this.put({ type: 'blob', raw })
      const names = path.split('/')
      let dir = root
      for (const name of names.slice(0, -1)) {
        const item = dir.get(name)
        const sub: Draft = item && 'tree' in item ? item.tree : new Map()
        dir.set(name, { tree: sub })
        dir = sub
      }
      dir.set(names[names.length - 1] ?? '', { blob })
    }
    const tree = this.writeDraft(root)
    const parents = parent === null ? [] : [parent]
    const text =
      `tree ${tree}\n${parents.map((p) => `parent ${p}\n`).join('')}` +
      `author ${stamp(author)}\ncommitter ${stamp(committer)}\n\n${message}`
    const second = (who: Identity) => ({ ...who, date: Math.floor(who.date / 1000) * 1000 })
    const commit: GitCommit = {
      sha: '',
      tree,
      parents,
      author: second(author),
      committer: second(committer),
      message
    }
    const sha = this.put({ type: 'commit', raw: Buffer.from(text, 'utf8'), commit })
    commit.sha = sha
    const head = this.refs.get(branch)
    if (head !== undefined && !this.isAncestor(head, sha)) {
      throw new RefMovedError(`refs/heads/${branch} moved: ${head} is not in ${sha}`)
    }
    this.refs.set(branch, sha)
    return sha
  }

  setBranch(branch: string, sha: string): void {
    if (!this.commit(sha)) throw new Error(`not a commit: ${sha}`)
    this.refs.set(branch, sha)
  }

  deleteBranch(branch: string): void {
    this.refs.delete(branch)
  }

  /**
   * Copies every object (as a loose object) and every branch ref into the bare repository
   * at `gitDir`, which must exist and hold none of these refs.
   */
  writeTo(gitDir: string): void {
    for (const [sha, object] of this.objects) {
      const file = join(gitDir, 'objects', sha.slice(0, 2), sha.slice(2))
      mkdirSync(dirname(file), { recursive: true })
      const header = Buffer.from(`${object.type} ${object.raw.length}\0`)
      writeFileSync(file, deflateSync(Buffer.concat([header, object.raw])))
    }
    for (const [branch, sha] of this.refs) {
      const file = join(gitDir, 'refs', 'heads', branch)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, `${sha}\n`)
    }
  }
}
