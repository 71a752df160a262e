/**
 * A program's two files, read and changed together (README: "The ledger"): the ledger
 * `ci-gate/<program>.json` is authoritative and written first, by compare-and-swap;
 * `<program>.md` is then projected from it, also by compare-and-swap. A crash between the two
 * loses nothing: the next gate or `reconcile` projects the ledger again.
 */
import type { Clock } from '../ports.js'
import type { Logger } from '../ports.js'
import {
  LedgerSchema,
  compactLedger,
  emptyLedger,
  ledgerPath,
  parseLedgerFile,
  parseLedgerJson,
  serializeLedger,
  type Ledger
} from '../core/ledger.js'
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
  options: ProgramFileOptions
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
      (text !== stored.text || !isProjected(stored.text, ledger))
  }
}

export async function readProgram(
  store: StateStore,
  program: string,
  options: ProgramFileOptions
): Promise<ProgramFiles> {
  const [stored, storedLedger] = await Promise.all([
    store.read(stateFilePath(program)),
    store.read(ledgerPath(program))
  ])
  return programFilesOf(program, stored, storedLedger, store.description, options)
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
 */
export async function updateProgram<T>(
  deps: ProgramUpdateDeps,
  program: string,
  options: {
    maxBytes: number
    /**
     * The ledger file as this run last read or wrote it (null: none yet), used instead of a
     * first read of it: the state file is still read, and a conflict reads both again.
     */
    ledger?: StoredState | null
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
  for (let attempt = 1; ; attempt += 1) {
    const now = clock.now()
    const current =
      attempt === 1 && options.ledger !== undefined
        ? programFilesOf(
            program,
            await store.read(stateFilePath(program)),
            options.ledger,
            store.description,
            {
              maxBytes: options.maxBytes,
              now
            }
          )
        : await readProgram(store, program, { maxBytes: options.maxBytes, now })
    const { ledger: changed, value } = apply(current)
    // A ledger read from an earlier version's block has no file yet: it is written before the
    // projection takes the block out of the state file.
    const unsaved = current.stale && current.storedLedger === null
    if (changed === current.ledger && !unsaved) {
      const files = current.stale
        ? await writeProjection(
            deps,
            program,
            current.ledger,
            current.storedLedger,
            options,
            current.stored
          )
        : current
      return { files, value }
    }
    const next = LedgerSchema.parse(
      compactLedger({
        ...changed,
        program,
        revision: current.ledger.revision + 1,
        updatedAt: new Date(now).toISOString()
      })
    )
    const ledgerText = serializeLedger(next)
    let storedLedger: StoredState
    try {
      const { version } = await store.write(
        ledgerPath(program),
        ledgerText,
        current.storedLedger?.version ?? null
      )
      storedLedger = { text: ledgerText, version }
    } catch (error) {
      if (!(error instanceof StateConflictError)) throw error
      await waitBeforeRetry(ledgerPath(program), store, attempt, error, retry)
      continue
    }
    return {
      files: await writeProjection(deps, program, next, storedLedger, options, current.stored),
      value
    }
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
    (text) =>
      // Another run projected a newer revision of the ledger meanwhile: ours is older.
      text !== null && (readLedgerPointer(text)?.revision ?? -1) > ledger.revision
        ? text
        : projectStateFile(text ?? createStateFile(program), ledger, {
            program,
            maxBytes: options.maxBytes
          }),
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
    stale: false
  }
}
