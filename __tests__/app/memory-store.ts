/**
 * An in-memory state store for unit tests, with the compare-and-swap contract of the real
 * ones: a write names the version it read and is refused (StateConflictError) when the file
 * moved. `beforeWrite` runs inside each write before the version check, so a test can play
 * another writer (a concurrent gate, gh-aw's memory push) exactly between a read and a write.
 */
import { StateConflictError } from '../../src/core/state-errors.js'
import type { StateStore, StoredState } from '../../src/ports.js'

export interface MemoryStore extends StateStore {
  files: Map<string, StoredState>
  /** Every write the store accepted, in order. */
  written: string[]
  /** Every write it refused as a conflict, in order. */
  conflicts: string[]
  beforeWrite: (path: string) => void
  /** Puts a file in place as another writer would (a new version), outside any update. */
  put(path: string, text: string): void
  text(path: string): string | undefined
}

export function memoryStore(initial: Record<string, string> = {}): MemoryStore {
  let versions = 0
  const files = new Map<string, StoredState>()
  const store: MemoryStore = {
    description: 'memory',
    files,
    written: [],
    conflicts: [],
    beforeWrite: () => undefined,
    put(path, text) {
      versions += 1
      files.set(path, { text, version: `v${versions}` })
    },
    text: (path) => files.get(path)?.text,
    async read(path) {
      return files.get(path) ?? null
    },
    async write(path, text, expectedVersion) {
      store.beforeWrite(path)
      const current = files.get(path)?.version ?? null
      if (current !== expectedVersion) {
        store.conflicts.push(path)
        throw new StateConflictError(
          `${path} moved (expected ${expectedVersion}, found ${current})`
        )
      }
      store.put(path, text)
      store.written.push(path)
      return { version: files.get(path)?.version as string }
    },
    async list() {
      return [...files.keys()]
        .filter((path) => /^[^/]+\.md$/.test(path))
        .map((path) => path.slice(0, -3))
        .sort()
    }
  }
  for (const [path, text] of Object.entries(initial)) store.put(path, text)
  return store
}
