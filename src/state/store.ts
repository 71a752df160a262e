/**
 * Where a program's files live (README: "The ledger"): `<program>.md` and its ledger
 * `ci-gate/<program>.json`, in a local folder or on a branch through the contents API, and
 * compare-and-swap updates over them.
 *
 * A store reads a file by its path with a version and writes only if the version is still the
 * one read (`StateConflictError` otherwise). `updateFile` is the one way to change a file:
 * read, apply, write with the version read; on a conflict re-read, re-apply and retry after
 * a backoff. Nothing is ever written blind.
 */
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, open, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { Clock } from '../clock.js'
import type { Logger } from '../log.js'
import { errorMessage } from '../errors.js'
import { ContentsConflictError, StateConflictError, StateFileError } from './errors.js'
import { PROGRAM_NAME_PATTERN } from './schema.js'

export interface StoredState {
  text: string
  /** Opaque: a content hash (local folder) or the blob SHA (contents API). */
  version: string
}

export interface StoreSnapshot {
  files: (StoredState | null)[]
  /** The version of the whole store (a branch's head commit); null when it has none yet. */
  head: string | null
}

export interface StateStore {
  /** A short description for messages, e.g. `folder /tmp/x` or `branch memory/autoloop`. */
  readonly description: string
  /** The file at `path` (relative to the store, `/`-separated), or null when there is none. */
  read(path: string): Promise<StoredState | null>
  /**
   * Several files read together, in the order given, with the version of the whole store
   * (the branch head) that `writeMany` compares against.
   */
  readMany?(paths: readonly string[]): Promise<StoreSnapshot>
  /**
   * Writes the files in one change if nothing in the store moved since `head` (StateConflictError
   * otherwise): the new head and each file's version.
   */
  writeMany?(
    files: readonly { path: string; text: string }[],
    head: string
  ): Promise<{ head: string; versions: string[] }>
  /**
   * Writes `text` if the stored version is still `expectedVersion` (null: the file must not
   * exist yet). Throws StateConflictError when it moved.
   */
  write(path: string, text: string, expectedVersion: string | null): Promise<{ version: string }>
  /** Program names with a state file (`<program>.md` at the root), sorted. */
  list(): Promise<string[]>
}

/** The state file of a program. */
export function stateFilePath(program: string): string {
  if (!PROGRAM_NAME_PATTERN.test(program)) {
    throw new RangeError(
      `invalid program name ${JSON.stringify(program)}: it must match ${PROGRAM_NAME_PATTERN}`
    )
  }
  return `${program}.md`
}

const STORE_PATH = /^(?:[A-Za-z0-9][A-Za-z0-9._-]*\/)?[A-Za-z0-9][A-Za-z0-9._-]*$/

/** Paths a store accepts: a file name, or one folder and a file name; no `..`, no absolute path. */
function checkPath(path: string): string {
  if (!STORE_PATH.test(path) || path.includes('..'))
    throw new RangeError(`invalid state store path ${JSON.stringify(path)}`)
  return path
}

function programsOf(fileNames: readonly string[]): string[] {
  return fileNames
    .filter((name) => name.endsWith('.md'))
    .map((name) => name.slice(0, -3))
    .filter((name) => PROGRAM_NAME_PATTERN.test(name))
    .sort()
}

// ---------------------------------------------------------------------------------------
// Compare-and-swap updates

export interface UpdateStateOptions {
  clock: Clock
  /** Jitter source in [0, 1); defaults to Math.random. */
  random?: () => number
  /** Reads (and writes) before giving up; default 5. */
  maxAttempts?: number
  /** Told about each conflict and retry. */
  log?: Pick<Logger, 'info'>
  /**
   * The file as the caller read it a moment ago (null: it did not exist), used instead of a
   * first read; a conflict reads it again.
   */
  current?: StoredState | null
}

export interface UpdatedState {
  text: string
  version: string
  /** How many read-apply-write rounds it took (1 without conflicts). */
  attempts: number
}

const UPDATE_BACKOFF = { baseMs: 250, maxMs: 8000 } as const

/** Exponential backoff with jitter: attempt 1 waits 125–250 ms, then doubling, at most 8 s. */
export function backoffMs(attempt: number, random: () => number): number {
  const ceiling = Math.min(UPDATE_BACKOFF.maxMs, UPDATE_BACKOFF.baseMs * 2 ** (attempt - 1))
  return Math.round(ceiling / 2 + (ceiling / 2) * random())
}

/**
 * Changes one file of a store by compare-and-swap. `apply` gets the current text (null when
 * there is no file) and returns the new text; it runs again on every retry, so it must
 * compute from the text it is given. Text equal to the stored one is not written.
 * A StateFileError thrown by `apply` (a malformed file) stops the update with nothing written.
 */
export async function updateFile(
  store: StateStore,
  path: string,
  apply: (text: string | null) => string,
  options: UpdateStateOptions
): Promise<UpdatedState> {
  const maxAttempts = options.maxAttempts ?? 5
  const random = options.random ?? Math.random
  for (let attempt = 1; ; attempt += 1) {
    const current =
      attempt === 1 && options.current !== undefined ? options.current : await store.read(path)
    let next: string
    try {
      next = apply(current?.text ?? null)
    } catch (error) {
      throw error instanceof StateFileError ? error.inFile(`${path} (${store.description})`) : error
    }
    if (current && next === current.text)
      return { text: next, version: current.version, attempts: attempt }
    try {
      const { version } = await store.write(path, next, current?.version ?? null)
      return { text: next, version, attempts: attempt }
    } catch (error) {
      if (!(error instanceof StateConflictError)) throw error
      await waitBeforeRetry(path, store, attempt, error, { ...options, maxAttempts, random })
    }
  }
}

/** After a conflict: gives up after `maxAttempts` (a clear error), else waits a backoff. */
export async function waitBeforeRetry(
  path: string,
  store: StateStore,
  attempt: number,
  conflict: StateConflictError,
  options: UpdateStateOptions & { maxAttempts: number; random: () => number }
): Promise<void> {
  if (attempt >= options.maxAttempts) {
    throw new StateConflictError(
      `${path} (${store.description}) kept changing while it was written: gave up after ${attempt} attempts. Fix: re-run the job; if it keeps happening, check for another workflow writing the same program's state`,
      { cause: conflict }
    )
  }
  const wait = backoffMs(attempt, options.random)
  options.log?.info(
    `${path} changed while it was written (attempt ${attempt}); retrying in ${wait} ms: ${conflict.message}`
  )
  await options.clock.sleep(wait)
}

// ---------------------------------------------------------------------------------------
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

export interface BranchFiles {
  head: string | null
  files: ({ text: string; sha: string } | null)[]
}

/** The few contents-API calls the branch store needs; no GitHub types cross this line. */
export interface ContentsApi {
  /** The file and its blob SHA, or null when the file (or the branch) does not exist. */
  getFile(branch: string, path: string): Promise<{ text: string; sha: string } | null>
  /** The branch's head and several of its files in one request (null: no such file or branch). */
  getFiles?(branch: string, paths: readonly string[]): Promise<BranchFiles>
  /**
   * Commits the files in one commit if the branch head is still `head`; throws
   * ContentsConflictError when it moved.
   */
  commitFiles?(
    branch: string,
    head: string,
    files: readonly { path: string; text: string }[],
    message: string
  ): Promise<{ head: string }>
  /**
   * Creates (`sha` null) or updates the file; throws ContentsConflictError when `sha` is no
   * longer the file's blob SHA (GitHub answers 409 or 422) or the file exists when `sha` is null.
   */
  putFile(
    branch: string,
    path: string,
    text: string,
    sha: string | null,
    message: string
  ): Promise<{ sha: string }>
  /** File names directly under `path` (empty when the folder or the branch does not exist). */
  listDir(branch: string, path: string): Promise<string[]>
  /** Creates the branch (from the default branch's head) when it does not exist. */
  ensureBranch(branch: string): Promise<void>
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
