/**
 * The fake's git repository: a bare repository holding the real commits behind branches, the
 * contents API, memory pushes and git over HTTP. Writes are one `git fast-import` per commit;
 * reads of objects are cached, since objects never change. Synchronous on purpose: the
 * fake's handlers are. The fake holds its contents in memory (`contents-memory.ts`) until a
 * scenario needs a repository on disk (git over HTTP, a push to `gitDir`); both implement
 * `ContentStore` and give the same SHAs.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
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

const SHA_RE = /^[0-9a-f]{40}$/

function identityOf(line: string): Identity {
  const m = /^(.*) <(.*)> (\d+) [+-]\d{4}$/.exec(line)
  return m?.[1] !== undefined && m[2] !== undefined && m[3] !== undefined
    ? { name: m[1], email: m[2], date: Number(m[3]) * 1000 }
    : { name: '', email: '', date: 0 }
}

/** Parses `git cat-file commit` output. */
function parseCommit(sha: string, raw: string): GitCommit {
  const split = raw.indexOf('\n\n')
  const header = split < 0 ? raw : raw.slice(0, split)
  const commit: GitCommit = {
    sha,
    tree: '',
    parents: [],
    author: identityOf(''),
    committer: identityOf(''),
    message: split < 0 ? '' : raw.slice(split + 2)
  }
  for (const line of header.split('\n')) {
    const space = line.indexOf(' ')
    const key = line.slice(0, space)
    const value = line.slice(space + 1)
    if (key === 'tree') commit.tree = value
    else if (key === 'parent') commit.parents.push(value)
    else if (key === 'author') commit.author = identityOf(value)
    else if (key === 'committer') commit.committer = identityOf(value)
  }
  return commit
}

/** Parses `git ls-tree -l -z` output. */
function parseTree(raw: string): GitTreeEntry[] {
  return raw
    .split('\0')
    .filter((record) => record.length > 0)
    .map((record) => {
      const tab = record.indexOf('\t')
      const [mode = '', type = 'blob', sha = '', size = '-'] = record
        .slice(0, tab)
        .split(/\s+/)
        .filter(Boolean)
      return {
        path: record.slice(tab + 1),
        mode,
        type: type as GitTreeEntry['type'],
        sha,
        size: size === '-' ? undefined : Number(size)
      }
    })
}

export class GitRepo implements ContentStore {
  private readonly commits = new Map<string, GitCommit>()
  private readonly paths = new Map<string, GitPath | null>()
  private readonly trees = new Map<string, { sha: string; entries: GitTreeEntry[] }>()
  /** Opens the bare repository at `dir`, creating it when missing. */
  constructor(
    readonly dir: string,
    defaultBranch: string
  ) {
    if (!existsSync(join(dir, 'HEAD'))) {
      // no template: hook samples are not needed and cost time
      execFileSync(
        'git',
        ['init', '--quiet', '--bare', '--template=', `--initial-branch=${defaultBranch}`, dir],
        { stdio: 'ignore' }
      )
    }
  }

  private run(args: string[], options: { input?: string | Buffer } = {}): Buffer {
    return execFileSync('git', [`--git-dir=${this.dir}`, ...args], {
      input: options.input,
      stdio: ['pipe', 'pipe', 'pipe'],
      maxBuffer: 512 * 1024 * 1024
    })
  }

  private text(args: string[], options: { input?: string } = {}): string {
    return this.run(args, options).toString('utf8')
  }

  /**
   * Branch name → head SHA. Read from the ref files (loose refs win over `packed-refs`)
   * without starting a process, since it runs before every API request; a repository with
   * the reftable backend is asked through `git for-each-ref`.
   */
  heads(): Record<string, string> {
    const heads: Record<string, string> = {}
    if (existsSync(join(this.dir, 'reftable'))) {
      const out = this.text(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/'])
      for (const line of out.split('\n')) {
        const m = /^([0-9a-f]{40}) refs\/heads\/(.+)$/.exec(line)
        if (m?.[1] && m[2]) heads[m[2]] = m[1]
      }
      return heads
    }
    const packed = join(this.dir, 'packed-refs')
    if (existsSync(packed)) {
      for (const line of readFileSync(packed, 'utf8').split('\n')) {
        const m = /^([0-9a-f]{40}) refs\/heads\/(.+)$/.exec(line)
        if (m?.[1] && m[2]) heads[m[2]] = m[1]
      }
    }
    const root = join(this.dir, 'refs', 'heads')
    const walk = (dir: string, prefix: string): void => {
      let entries
      try {
        entries = readdirSync(dir, { withFileTypes: true })
      } catch {
        return // deleted while reading
      }
      for (const entry of entries) {
        const name = `${prefix}${entry.name}`
        if (entry.isDirectory()) walk(join(dir, entry.name), `${name}/`)
        else if (entry.isFile() && !entry.name.endsWith('.lock')) {
          try {
            const value = readFileSync(join(dir, entry.name), 'utf8').trim()
            if (SHA_RE.test(value)) heads[name] = value
          } catch {
            // deleted while reading
          }
        }
      }
    }
    walk(root, '')
    return heads
  }

  /** The commit, or undefined when `sha` is not a commit in this repository. */
  commit(sha: string): GitCommit | undefined {
    if (!SHA_RE.test(sha)) return undefined
    const cached = this.commits.get(sha)
    if (cached) return cached
    let raw: string
    try {
      raw = this.text(['cat-file', 'commit', sha])
    } catch {
      return undefined
    }
    const commit = parseCommit(sha, raw)
    this.commits.set(sha, commit)
    return commit
  }

  /**
   * A file or directory at `path` ('' = the root) of commit `sha` (which must exist: an
   * absent path is remembered as absent), or undefined when absent.
   */
  path(sha: string, path: string): GitPath | undefined {
    const key = `${sha}:${path}`
    const cached = this.paths.get(key)
    if (cached !== undefined) return cached ?? undefined
    let found: GitPath | null = null
    try {
      const out = this.run(['cat-file', '--batch'], { input: `${key}\n` })
      const eol = out.indexOf(10)
      const [objectSha = '', type, size] = out.subarray(0, eol).toString('utf8').split(' ')
      if (type === 'blob') {
        found = {
          type: 'file',
          sha: objectSha,
          content: out.subarray(eol + 1, eol + 1 + Number(size))
        }
      } else if (type === 'tree') {
        found = { type: 'dir', sha: objectSha, entries: this.tree(objectSha)?.entries ?? [] }
      }
    } catch {
      found = null
    }
    this.paths.set(key, found)
    return found ?? undefined
  }

  /** Entries of a tree (a tree SHA or a commit), recursively when asked, or undefined. */
  tree(treeish: string, recursive = false): { sha: string; entries: GitTreeEntry[] } | undefined {
    const key = `${treeish}:${recursive}`
    const cached = this.trees.get(key)
    if (cached) return cached
    try {
      const sha = this.text(['rev-parse', '--verify', '--quiet', `${treeish}^{tree}`]).trim()
      const args = ['ls-tree', '-l', '-z', ...(recursive ? ['-r', '-t'] : []), sha]
      const found = { sha, entries: parseTree(this.text(args)) }
      // objects never change, names do: cache by SHA only
      if (SHA_RE.test(treeish)) this.trees.set(key, found)
      return found
    } catch {
      return undefined
    }
  }

  /** A blob's bytes, or undefined. */
  blob(sha: string): Buffer | undefined {
    if (!SHA_RE.test(sha)) return undefined
    try {
      return this.run(['cat-file', 'blob', sha])
    } catch {
      return undefined
    }
  }

  /**
   * Commits `files` over `parent`'s tree (an empty tree when null: a new branch) and moves
   * `branch` to the new commit, in one `git fast-import` whatever the number of files (it
   * writes them as one pack, where one process per blob or loose objects would take ten
   * times as long for a few hundred files). fast-import only moves the branch when the new
   * commit contains the branch's current head: a branch that moved meanwhile throws
   * RefMovedError.
   */
  writeCommit(options: WriteCommit): string {
    const { branch, parent, files, message, author } = options
    const who = stamp(author)
    const stream: Buffer[] = []
    const data = (content: string | Buffer): void => {
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
      stream.push(Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n'))
    }
    stream.push(
      Buffer.from(
        `commit refs/heads/${branch}\nmark :1\nauthor ${who}\ncommitter ${stamp(options.committer ?? author)}\n`
      )
    )
    data(message)
    if (parent) stream.push(Buffer.from(`from ${parent}\n`))
    for (const path of options.deletions ?? []) {
      if (/[\n"]/.test(path) || path === '')
        throw new Error(`unsupported path ${JSON.stringify(path)}`)
      stream.push(Buffer.from(`D ${path}\n`))
    }
    for (const [path, content] of Object.entries(files)) {
      if (/[\n"]/.test(path) || path === '')
        throw new Error(`unsupported path ${JSON.stringify(path)}`)
      stream.push(Buffer.from(`M 100644 inline ${path}\n`))
      data(content)
    }
    stream.push(Buffer.from('get-mark :1\n'))
    try {
      return this.run(['fast-import', '--quiet'], { input: Buffer.concat(stream) })
        .toString('utf8')
        .trim()
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? '')
      if (stderr.includes('Not updating')) {
        throw new RefMovedError(`refs/heads/${branch} moved: ${stderr.trim()}`)
      }
      throw error
    }
  }

  /** Points a branch at a commit (no compare-and-swap: an API ref update or a forced push). */
  setBranch(branch: string, sha: string): void {
    this.run(['update-ref', `refs/heads/${branch}`, sha])
  }

  deleteBranch(branch: string): void {
    this.run(['update-ref', '-d', `refs/heads/${branch}`])
  }
}
