import { describe, expect, it } from '@jest/globals'
import { throughSnapshot } from '../../src/app/snapshot-store.js'
import { StateConflictError } from '../../src/core/state-errors.js'
import type { MemorySnapshot } from '../../src/ports.js'
import { memoryStore } from './memory-store.js'

/** The branch as git fetched it: the store's files at that moment. */
function snapshotOf(store: ReturnType<typeof memoryStore>): MemorySnapshot {
  return { commit: 'c0ffee'.padEnd(40, '0'), files: new Map(store.files) }
}

describe('throughSnapshot: the state store read through the snapshot git fetched', () => {
  it('reads from the snapshot (not the store), a file absent there as none', async () => {
    const store = memoryStore({ 'perf.md': 'fetched' })
    const through = throughSnapshot(store, snapshotOf(store))
    store.put('perf.md', 'pushed since')
    store.put('late.md', 'created since')
    expect(await through.read('perf.md')).toMatchObject({ text: 'fetched' })
    expect(await through.read('late.md')).toBeNull()
    expect(through.description).toBe(store.description)
    expect(await through.list()).toEqual(['late', 'perf'])
  })

  it('writes to the store, and reads its own write back from the snapshot', async () => {
    const store = memoryStore({ 'perf.md': 'fetched' })
    const through = throughSnapshot(store, snapshotOf(store))
    const version = (await through.read('perf.md'))?.version ?? null
    const written = await through.write('perf.md', 'reconciled', version)
    expect(store.text('perf.md')).toBe('reconciled')
    expect(await through.read('perf.md')).toEqual({ text: 'reconciled', version: written.version })
  })

  it('after a conflict (the branch moved since the fetch) every read goes to the store', async () => {
    const store = memoryStore({ 'perf.md': 'fetched', 'other.md': 'fetched' })
    const through = throughSnapshot(store, snapshotOf(store))
    const stale = (await through.read('perf.md'))?.version ?? null
    store.put('perf.md', 'pushed since')
    store.put('other.md', 'pushed since')
    await expect(through.write('perf.md', 'reconciled', stale)).rejects.toBeInstanceOf(
      StateConflictError
    )
    expect(await through.read('perf.md')).toMatchObject({ text: 'pushed since' })
    expect(await through.read('other.md')).toMatchObject({ text: 'pushed since' })
  })

  it('an error other than a conflict leaves reads on the snapshot', async () => {
    const store = memoryStore({ 'perf.md': 'fetched' })
    const through = throughSnapshot(store, snapshotOf(store))
    store.beforeWrite = () => {
      throw new Error('network down')
    }
    store.put('perf.md', 'pushed since')
    await expect(through.write('perf.md', 'x', null)).rejects.toThrow('network down')
    expect(await through.read('perf.md')).toMatchObject({ text: 'fetched' })
  })
})
