/**
 * The state store seen through a snapshot of the state branch that git fetched, as `reconcile`
 * and `settle` read it (docs/commands.md: "reconcile"): reading every program costs no REST request;
 * writes go to the store itself.
 */
import type { MemorySnapshot, StateStore } from '../ports.js'
import { StateConflictError } from '../core/state-errors.js'
import type { Config } from '../core/inputs.js'
import { ledgerPath } from '../core/ledger.js'
import { programsOf, stateFilePath } from '../core/schema.js'
import { errorMessage } from '../core/errors.js'
import type { CommandDeps } from './command-deps.js'
import { programFilesOf, type ProgramFiles } from './program-files.js'

/**
 * Reads are answered from the snapshot (a file absent there reads as none), writes go to the
 * store and update the snapshot. A write conflict shows the branch moved since the fetch, for
 * any file: every read goes to the store itself from then on.
 */
export function throughSnapshot(store: StateStore, snapshot: MemorySnapshot): StateStore {
  const files = new Map(snapshot.files)
  let moved = false
  return {
    description: store.description,
    async read(path) {
      return moved ? store.read(path) : (files.get(path) ?? null)
    },
    async write(path, text, expected) {
      try {
        const written = await store.write(path, text, expected)
        files.set(path, { text, version: written.version })
        return written
      } catch (error) {
        if (error instanceof StateConflictError) moved = true
        throw error
      }
    },
    ...(store.writeMany
      ? {
          async writeMany(written: readonly { path: string; text: string }[], head: string) {
            try {
              const result = await (store.writeMany as NonNullable<StateStore['writeMany']>)(
                written,
                head
              )
              written.forEach((file, i) =>
                files.set(file.path, { text: file.text, version: result.versions[i] ?? '' })
              )
              return result
            } catch (error) {
              if (error instanceof StateConflictError) moved = true
              throw error
            }
          }
        }
      : {}),
    list: () => store.list()
  }
}

/**
 * The programs of the state store and a store to read them from: the state branch as one git
 * snapshot when there is a git reader (no REST request), else the store itself. `reconcile`
 * and `settle` find their programs this way.
 */
export async function programSource(
  config: Pick<Config, 'stateBranch'>,
  deps: Pick<CommandDeps, 'memoryBranch' | 'store' | 'log'>
): Promise<{
  programs: string[]
  store: StateStore
  label: string
  branchFound?: boolean
  /** The commit the snapshot was read at (null: read through the store itself). */
  head: string | null
}> {
  if (deps.memoryBranch) {
    try {
      const snapshot = await deps.memoryBranch.read(config.stateBranch)
      const programs = snapshot ? programsOf([...snapshot.files.keys()]) : []
      return {
        programs,
        store: throughSnapshot(deps.store, snapshot ?? { commit: '', files: new Map() }),
        label: snapshot
          ? `with git at ${snapshot.commit.slice(0, 12)}`
          : 'with git: the branch does not exist',
        branchFound: snapshot !== null,
        head: snapshot?.commit ?? null
      }
    } catch (error) {
      deps.log.warning(
        `Reading ${config.stateBranch} with git failed (${errorMessage(error)}); reading it through the contents API instead`
      )
    }
  }
  return {
    programs: await deps.store.list(),
    store: deps.store,
    label: `from ${deps.store.description}`,
    head: null
  }
}

/**
 * A program's files as `store` holds them (null: `<program>.md` is gone). With the commit a
 * snapshot was read at (`head`), a write of both files is one commit compared against it.
 */
export async function readProgramFiles(
  program: string,
  store: StateStore,
  { config, deps }: { config: Pick<Config, 'stateMaxBytes'>; deps: Pick<CommandDeps, 'clock'> },
  head: string | null = null
): Promise<ProgramFiles | null> {
  const [stored, storedLedger] = await Promise.all([
    store.read(stateFilePath(program)),
    store.read(ledgerPath(program))
  ])
  if (!stored) return null
  return programFilesOf(
    program,
    stored,
    storedLedger,
    store.description,
    { maxBytes: config.stateMaxBytes, now: deps.clock.now() },
    head
  )
}
