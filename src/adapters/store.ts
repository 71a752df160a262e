/**
 * Where a program's files live (README: "The ledger"): `<program>.md` and its ledger
 * `ci-gate/<program>.json`, in a local folder or on a branch through the contents API.
 *
 * A store reads a file by its path with a version and writes only if the version is still the
 * one read (`StateConflictError` otherwise); `updateFile` (app/) builds the retries on it.
 */
import type { ContentsApi, StateStore, StoredState, StoreSnapshot } from '../ports.js'
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, open, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { ContentsConflictError, StateConflictError } from '../core/state-errors.js'
import { programsOf } from '../core/schema.js'
import { errorMessage } from '../core/errors.js'

const STORE_PATH = /^(?:[A-Za-z0-9][A-Za-z0-9._-]*\/)?[A-Za-z0-9][A-Za-z0-9._-]*$/

/** Paths a store accepts: a file name, or one folder and a file name; no `..`, no absolute path. */
function checkPath(path: string): string {
  if (!STORE_PATH.test(path) || path.includes('..'))
    throw new RangeError(`invalid state store path ${JSON.stringify(path)}`)
  return path
}

// A local folder (gh-aw repo-memory checks it out and commits it after the job)

function contentVersion(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex')
}

async function readIfExists(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

/** Writes to one path, one at a time within this process (the check-then-rename step). */
const pathLocks = new Map<string, Promise<void>>()

async function withPathLock<T>(path: string, critical: () => Promise<T>): Promise<T> {
  const previous = pathLocks.get(path) ?? Promise.resolve()
  let release = (): void => {}
  const mine = new Promise<void>((resolve) => {
    release = resolve
  })
  const chained = previous.then(() => mine)
  pathLocks.set(path, chained)
  await previous
  try {
    return await critical()
  } finally {
    release()
    if (pathLocks.get(path) === chained) pathLocks.delete(path)
  }
}

/** A lock file older than this was left by a killed process (the locked step takes ms). */
const STALE_LOCK_MS = 30_000
const LOCK_WAIT_MS = { step: 5, total: 20_000 } as const

/**
 * Runs `critical` holding `.<name>.lock` next to the file, created exclusively, so that writers in other
 * processes (two jobs sharing one folder) take turns too. A lock left by a killed process is
 * broken once it is older than STALE_LOCK_MS. This waits on real time, not the injected clock:
 * the lock is held by other processes, whose time is real.
 */
async function withLockFile<T>(path: string, critical: () => Promise<T>): Promise<T> {
  const lock = join(dirname(path), `.${basename(path)}.lock`)
  const started = Date.now()
  for (;;) {
    try {
      const handle = await open(lock, 'wx')
      await handle.writeFile(`${process.pid}\n`)
      await handle.close()
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const age = await stat(lock).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0
      )
      if (age > STALE_LOCK_MS) await rm(lock, { force: true })
      else if (Date.now() - started > LOCK_WAIT_MS.total)
        throw new StateConflictError(
          `${lock} has been held for ${Math.round(age / 1000)} s by another writer. Fix: re-run the job; remove the lock file if no other job is running`
        )
      else await new Promise((resolve) => setTimeout(resolve, LOCK_WAIT_MS.step))
    }
  }
  try {
    return await critical()
  } finally {
    await rm(lock, { force: true })
  }
}

/**
 * Files under a folder (`<dir>/<program>.md`, `<dir>/ci-gate/<program>.json`). The version is
 * the SHA-256 of the bytes. A write puts the text in a temp file in the same folder, then, one writer at a time per path (within
 * the process by a promise chain, across processes by a lock file), re-reads the file,
 * compares versions and renames the temp file over it (atomic on one file system). A change
 * made since the read is detected, also by a job running in another process on the folder.
 */
export class LocalDirStore implements StateStore {
  readonly description: string

  constructor(private readonly dir: string) {
    this.description = `folder ${dir}`
  }

  private pathOf(path: string): string {
    return join(this.dir, checkPath(path))
  }

  async read(path: string): Promise<StoredState | null> {
    const bytes = await readIfExists(this.pathOf(path))
    return bytes === null ? null : { text: bytes.toString('utf8'), version: contentVersion(bytes) }
  }

  async write(
    relativePath: string,
    text: string,
    expectedVersion: string | null
  ): Promise<{ version: string }> {
    const path = this.pathOf(relativePath)
    const folder = dirname(path)
    await mkdir(folder, { recursive: true })
    const temp = join(folder, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`)
    const bytes = Buffer.from(text, 'utf8')
    await writeFile(temp, bytes)
    try {
      await withPathLock(path, () =>
        withLockFile(path, async () => {
          const current = await readIfExists(path)
          const currentVersion = current === null ? null : contentVersion(current)
          if (currentVersion !== expectedVersion) {
            throw new StateConflictError(
              `${path} changed since it was read (expected ${expectedVersion ?? 'no file'}, found ${currentVersion ?? 'no file'})`
            )
          }
          await rename(temp, path)
        })
      )
    } finally {
      await rm(temp, { force: true })
    }
    return { version: contentVersion(bytes) }
  }

  async list(): Promise<string[]> {
    try {
      return programsOf(await readdir(this.dir))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
  }
}

// ---------------------------------------------------------------------------------------
// A branch through the GitHub contents API (implemented with Octokit elsewhere)

/** Git's blob id of a text: the contents API's file SHA. */
export function blobVersion(text: string): string {
  const bytes = Buffer.from(text, 'utf8')
  return createHash('sha1')
    .update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]))
    .digest('hex')
}

export interface ContentsApiStoreOptions {
  branch: string
  /** Folder inside the branch; empty for the root. */
  dir?: string
  /** Commit message for a write; default `autoloop-ci-gate: update <path>`. */
  message?: (path: string) => string
}

/** State files on a branch (default `memory/autoloop`), compare-and-swap on the blob SHA. */
export class ContentsApiStore implements StateStore {
  readonly description: string
  private readonly dir: string
  private branchReady: Promise<void> | null = null

  constructor(
    private readonly api: ContentsApi,
    private readonly options: ContentsApiStoreOptions
  ) {
    this.dir = (options.dir ?? '').replace(/^\/+|\/+$/g, '')
    this.description = `branch ${options.branch}${this.dir === '' ? '' : `, folder ${this.dir}`}`
  }

  private pathOf(path: string): string {
    checkPath(path)
    return this.dir === '' ? path : `${this.dir}/${path}`
  }

  async read(path: string): Promise<StoredState | null> {
    const file = await this.api.getFile(this.options.branch, this.pathOf(path))
    return this.found(file)
  }

  /**
   * Whether GraphQL serves this store (one read, one commit). A refusal (no GraphQL on the
   * server, a token or policy that refuses it) turns it off for the run: every later read and
   * write goes file by file through the contents API.
   */
  private oneCommit = true

  async readMany(paths: readonly string[]): Promise<StoreSnapshot> {
    const full = paths.map((path) => this.pathOf(path))
    if (this.oneCommit && this.api.getFiles && this.api.commitFiles) {
      try {
        const read = await this.api.getFiles(this.options.branch, full)
        if (read.head !== null) this.branchReady ??= Promise.resolve()
        return { head: read.head, files: read.files.map((file) => this.found(file)) }
      } catch {
        // Refused: read file by file (whose error, if it fails too, says what is wrong).
        this.oneCommit = false
      }
    }
    return { head: null, files: await Promise.all(paths.map((path) => this.read(path))) }
  }

  async writeMany(
    files: readonly { path: string; text: string }[],
    head: string
  ): Promise<{ head: string; versions: string[] }> {
    const commit = this.api.commitFiles
    if (!commit || !this.oneCommit)
      throw new RangeError(`${this.description} cannot write several files at once`)
    const message =
      this.options.message?.(files.map((file) => file.path).join(', ')) ??
      `autoloop-ci-gate: update ${files.map((file) => file.path).join(', ')}`
    try {
      const written = await commit.call(
        this.api,
        this.options.branch,
        head,
        files.map((file) => ({ path: this.pathOf(file.path), text: file.text })),
        message
      )
      return { head: written.head, versions: files.map((file) => blobVersion(file.text)) }
    } catch (error) {
      if (error instanceof ContentsConflictError)
        throw new StateConflictError(`${this.description} moved since it was read`, {
          cause: error
        })
      // Refused: nothing was written. Read again (file by file from now on) and write that way.
      this.oneCommit = false
      throw new StateConflictError(
        `${this.description} refused a commit through GraphQL (${errorMessage(error).split('\n')[0]}): writing through the contents API instead`,
        { cause: error }
      )
    }
  }

  /** A file read from the branch shows the branch exists: a write need not make sure of it. */
  private found(file: { text: string; sha: string } | null): StoredState | null {
    if (file === null) return null
    this.branchReady ??= Promise.resolve()
    return { text: file.text, version: file.sha }
  }

  async write(
    relativePath: string,
    text: string,
    expectedVersion: string | null
  ): Promise<{ version: string }> {
    const path = this.pathOf(relativePath)
    this.branchReady ??= this.api.ensureBranch(this.options.branch)
    try {
      await this.branchReady
    } catch (error) {
      this.branchReady = null
      throw error
    }
    const message =
      this.options.message?.(relativePath) ?? `autoloop-ci-gate: update ${relativePath}`
    try {
      const { sha } = await this.api.putFile(
        this.options.branch,
        path,
        text,
        expectedVersion,
        message
      )
      return { version: sha }
    } catch (error) {
      if (error instanceof ContentsConflictError) {
        throw new StateConflictError(
          `${path} on ${this.options.branch} changed since it was read`,
          { cause: error }
        )
      }
      throw error
    }
  }

  async list(): Promise<string[]> {
    return programsOf(await this.api.listDir(this.options.branch, this.dir))
  }
}
