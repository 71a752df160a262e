/**
 * A program's two files, read and changed together (README: "The ledger"): the ledger
 * `ci-gate/<program>.json` is authoritative; `<program>.md` is projected from it. On a branch
 * both are read in one request and written in one commit, compare-and-swap on the branch head.
 * A store without that (a folder) writes the ledger first, then the projection, each by
 * compare-and-swap: a crash between the two loses nothing, the next gate or `reconcile`
 * projects the ledger again.
 */
import type { Clock } from '../ports.js'
import type { Logger } from '../ports.js'
import {
  LedgerSchema,
  compactLedger,
  emptyLedger,
  ledgerPath,
  serializeLedger,
  type Ledger
} from '../core/ledger.js'
import { parseLedgerFile, parseLedgerJson } from '../statefile/ledger-file.js'
import { readLedgerPointer, readLegacyLedgerBlock } from '../statefile/ci-gate-section.js'
import { StateConflictError, StateFileError } from '../core/state-errors.js'
import { readMachineState } from '../statefile/machine-state.js'
import { isProjected, projectStateFile } from '../statefile/projection.js'
import type { MachineState } from '../core/schema.js'
import { type StateStore, type StoredState } from '../ports.js'
import { updateFile, waitBeforeRetry, type UpdateStateOptions } from './update-file.js'
import { stateFilePath } from '../core/schema.js'
import { createStateFile } from '../statefile/template.js'

export interface ProgramFiles {
  program: string
  /** `<program>.md` as stored (null: none yet), with its version. */
  stored: StoredState | null
  /** The ledger file as stored (null: none yet), with its version. */
  storedLedger: StoredState | null
  /** From its file, migrated from an earlier version's CI Gate block, or empty. */
  ledger: Ledger
  /** `<program>.md` with the ledger projected onto it: what the scheduler should read. */
  text: string
  machine: MachineState
  /** Whether the stored `<program>.md` lags the ledger (another run's memory push reverted it). */
  stale: boolean
  /**
   * The store's version as read or written (the state branch's head), when the store writes
   * both files in one compare-and-swap; null otherwise.
   */
  head: string | null
}

export interface ProgramFileOptions {
  /** `state-max-bytes`. */
  maxBytes: number
  now: number
}

function inFile<T>(source: string, read: () => T): T {
  try {
    return read()
  } catch (error) {
    throw error instanceof StateFileError && error.source === undefined
      ? error.inFile(source)
      : error
  }
}

/**
 * The ledger the files hold: its own file, else the block an earlier version kept in the state
 * file; null when there is neither (the gate never ran for the program).
 */
function ledgerOf(
  program: string,
  stored: StoredState | null,
  storedLedger: StoredState | null,
  description: string
): Ledger | null {
  if (storedLedger) {
    const ledger = parseLedgerFile(storedLedger.text, `${ledgerPath(program)} (${description})`)
    return { ...ledger, program }
  }
  const legacy = stored
    ? inFile(`${stateFilePath(program)} (${description})`, () => readLegacyLedgerBlock(stored.text))
    : null
  if (!legacy) return null
  // Located in the block's own text, its lines counted from the block's first line.
  return parseLedgerJson(legacy.json, legacy.text, `${stateFilePath(program)} (${description})`, {
    program,
    firstLine: legacy.line
  })
}

/** The files as read (pure): the ledger parsed or migrated, the state file projected. */
export function programFilesOf(
  program: string,
  stored: StoredState | null,
  storedLedger: StoredState | null,
  description: string,
  options: ProgramFileOptions,
  head: string | null = null
): ProgramFiles {
  const found = ledgerOf(program, stored, storedLedger, description)
  const ledger = found ?? emptyLedger(program, options.now)
  const source = `${stateFilePath(program)} (${description})`
  const original = stored?.text ?? createStateFile(program)
  const text = inFile(source, () =>
    projectStateFile(original, ledger, { program, maxBytes: options.maxBytes })
  )
  return {
    program,
    stored,
    storedLedger,
    ledger,
    text,
    machine: inFile(source, () => readMachineState(text)),
    // With no ledger anywhere there is nothing to project: a file the gate never touched is
    // not stale (reconcile leaves it alone).
    stale:
      stored !== null &&
      found !== null &&
      (text !== stored.text || !isProjected(stored.text, ledger)),
    head
  }
}

export async function readProgram(
  store: StateStore,
  program: string,
  options: ProgramFileOptions
): Promise<ProgramFiles> {
  const paths = [stateFilePath(program), ledgerPath(program)]
  const read = store.readMany
    ? await store.readMany(paths)
    : { head: null, files: await Promise.all(paths.map((path) => store.read(path))) }
  const [stored = null, storedLedger = null] = read.files
  return programFilesOf(program, stored, storedLedger, store.description, options, read.head)
}

export interface ProgramUpdateDeps {
  store: StateStore
  clock: Clock
  log: Logger
  /** Jitter for conflict backoff; Math.random by default. */
  random?: () => number
}

export interface ProgramUpdate<T> {
  files: ProgramFiles
  value: T
}

/**
 * Changes a program's ledger by compare-and-swap and projects it onto `<program>.md`.
 * `apply` gets the files as they are now (re-read after a conflict, so it may run more than
 * once) and returns the new ledger, or the same object for no change. A ledger that did not
 * change is not written; a stale state file is still repaired. The value `apply` returns
 * beside the ledger is the one of the run that was written.
 *
 * A store that writes several files at once (a branch: one commit, compare-and-swap on its
 * head) gets both files in one write, each only when its bytes changed; starting from the
 * files as this run last read or wrote them (`known`), nothing is read unless the branch moved
 * meanwhile. Otherwise the ledger is written first, then the state file, each by
 * compare-and-swap, the state file always read again (`known` spares the ledger's read).
 */
export async function updateProgram<T>(
  deps: ProgramUpdateDeps,
  program: string,
  options: {
    maxBytes: number
    /** The files as this run last read or wrote them. */
    known?: ProgramFiles
  },
  apply: (current: ProgramFiles) => { ledger: Ledger; value: T }
): Promise<ProgramUpdate<T>> {
  const { store, clock } = deps
  const retry: UpdateStateOptions & { maxAttempts: number; random: () => number } = {
    clock,
    random: deps.random ?? Math.random,
    maxAttempts: 5,
    log: { info: (line: string) => deps.log.info(line) }
  }
  const fileOptions = (now: number) => ({ maxBytes: options.maxBytes, now })
  for (let attempt = 1; ; attempt += 1) {
    const now = clock.now()
    const known = attempt === 1 ? options.known : undefined
    const current = !known
      ? await readProgram(store, program, fileOptions(now))
      : store.writeMany && known.head !== null
        ? programFilesOf(
            program,
            known.stored,
            known.storedLedger,
            store.description,
            fileOptions(now),
            known.head
          )
        : programFilesOf(
            program,
            await store.read(stateFilePath(program)),
            known.storedLedger,
            store.description,
            fileOptions(now)
          )
    const { ledger: changed, value } = apply(current)
    // A ledger read from an earlier version's block has no file yet: it is written before the
    // projection takes the block out of the state file.
    const unsaved = current.stale && current.storedLedger === null
    const unchanged = changed === current.ledger && !unsaved
    if (unchanged && !current.stale) return { files: current, value }
    const next = unchanged
      ? current.ledger
      : LedgerSchema.parse(
          compactLedger({
            ...changed,
            program,
            revision: current.ledger.revision + 1,
            updatedAt: new Date(now).toISOString()
          })
        )
    const ledgerText = unchanged ? null : serializeLedger(next)
    /** A write, or undefined after a conflict (and the wait before reading again). */
    const unlessConflict = async <W>(write: () => Promise<W>): Promise<W | undefined> => {
      try {
        return await write()
      } catch (error) {
        if (!(error instanceof StateConflictError)) throw error
        await waitBeforeRetry(ledgerPath(program), store, attempt, error, retry)
        return undefined
      }
    }
    const writeMany = store.writeMany?.bind(store)
    const head = current.head
    if (writeMany && head !== null) {
      const files = await unlessConflict(() =>
        writeBoth(writeMany, head, current, next, ledgerText, {
          maxBytes: options.maxBytes,
          description: store.description
        })
      )
      if (files) return { files, value }
      continue
    }
    let storedLedger = current.storedLedger
    if (ledgerText !== null) {
      const written = await unlessConflict(() =>
        store.write(ledgerPath(program), ledgerText, current.storedLedger?.version ?? null)
      )
      if (!written) continue
      storedLedger = { text: ledgerText, version: written.version }
    }
    return {
      files: await writeProjection(deps, program, next, storedLedger, options, current.stored),
      value
    }
  }
}

/** The state file with `ledger` projected on it, unless it shows a newer revision already. */
function projectionOf(
  program: string,
  text: string | null,
  ledger: Ledger,
  maxBytes: number
): string {
  // Another run projected a newer revision of the ledger meanwhile: ours is older.
  return text !== null && (readLedgerPointer(text)?.revision ?? -1) > ledger.revision
    ? text
    : projectStateFile(text ?? createStateFile(program), ledger, { program, maxBytes })
}

/**
 * The ledger (`ledgerText`, null: unchanged) and its projection in one write against the
 * head `current` was read at; a file whose bytes did not change is not sent.
 */
async function writeBoth(
  writeMany: NonNullable<StateStore['writeMany']>,
  head: string,
  current: ProgramFiles,
  ledger: Ledger,
  ledgerText: string | null,
  options: { maxBytes: number; description: string }
): Promise<ProgramFiles> {
  const { program } = current
  const mdPath = stateFilePath(program)
  const text = inFile(`${mdPath} (${options.description})`, () =>
    projectionOf(program, current.stored?.text ?? null, ledger, options.maxBytes)
  )
  const changes = [
    ...(ledgerText === null ? [] : [{ path: ledgerPath(program), text: ledgerText }]),
    ...(text === current.stored?.text ? [] : [{ path: mdPath, text }])
  ]
  if (changes.length === 0) return { ...current, stale: false }
  const written = await writeMany(changes, head)
  const versionOf = (path: string): string | undefined =>
    written.versions[changes.findIndex((change) => change.path === path)]
  const mdVersion = versionOf(mdPath)
  const ledgerVersion = versionOf(ledgerPath(program))
  return {
    program,
    stored: mdVersion === undefined ? current.stored : { text, version: mdVersion },
    storedLedger:
      ledgerText === null || ledgerVersion === undefined
        ? current.storedLedger
        : { text: ledgerText, version: ledgerVersion },
    ledger,
    text,
    machine: readMachineState(text),
    stale: false,
    head: written.head
  }
}

/** Projects `ledger` onto the stored `<program>.md` (compare-and-swap, re-projected on conflict). */
async function writeProjection(
  deps: ProgramUpdateDeps,
  program: string,
  ledger: Ledger,
  storedLedger: StoredState | null,
  options: { maxBytes: number },
  /** `<program>.md` as read a moment ago (null: none). */
  stored: StoredState | null
): Promise<ProgramFiles> {
  const path = stateFilePath(program)
  const written = await updateFile(
    deps.store,
    path,
    (text) => projectionOf(program, text, ledger, options.maxBytes),
    {
      clock: deps.clock,
      ...(deps.random ? { random: deps.random } : {}),
      log: { info: (line: string) => deps.log.info(line) },
      current: stored
    }
  )
  return {
    program,
    stored: { text: written.text, version: written.version },
    storedLedger,
    ledger,
    text: written.text,
    machine: readMachineState(written.text),
    stale: false,
    head: null
  }
}
