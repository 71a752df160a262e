/**
 * The state store seen through a snapshot of the state branch that git fetched, as `reconcile`
 * reads it (docs/commands.md: "reconcile"): reading every program costs no REST request;
 * writes go to the store itself.
 */
import type { MemorySnapshot, StateStore } from '../ports.js'
import { StateConflictError } from '../core/state-errors.js'

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
    list: () => store.list()
  }
}
