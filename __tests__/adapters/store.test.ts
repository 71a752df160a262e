import { beforeEach, describe, expect, it } from '@jest/globals'
import { createHash } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { manualClock } from '../../__fixtures__/clock.js'
import { StateConflictError, StateFileError } from '../../src/core/state-errors.js'
import { readMachineState, updateMachineState } from '../../src/statefile/machine-state.js'
import { type StateStore, type StoredState } from '../../src/ports.js'
import { backoffMs, updateFile } from '../../src/app/update-file.js'
import { isProgramName, stateFilePath } from '../../src/core/schema.js'
import { ContentsApiStore, LocalDirStore } from '../../src/adapters/store.js'
import { createStateFile } from '../../src/statefile/template.js'
import {
  MemoryBranchApi,
  MemoryContentsApi,
  gitBlobSha
} from '../../__fixtures__/state/memory-contents-api.js'
import { tempDir } from '../helpers/temp-dir.js'
import { expectSchedulerReads, fixtureText, toCrlf } from '../statefile/helpers.js'

const FILE = 'coverage.md'

/** Adds one to Iteration Count (creating the file when missing): a read-modify-write. */
function incrementIterations(text: string | null): string {
  const current = text ?? createStateFile('coverage')
  return updateMachineState(current, {
    iterationCount: (readMachineState(current).iterationCount ?? 0) + 1
  })
}

/** A store that reports a conflict on the first `conflicts` writes, then behaves. */
function flakyStore(
  conflicts: number
): StateStore & { writes: number; stored: StoredState | null } {
  return {
    description: 'memory',
    writes: 0,
    stored: { text: fixtureText(), version: 'v0' },
    async read(path) {
      return path === FILE ? this.stored : null
    },
    async write(_path, text, expected) {
      this.writes += 1
      if (this.writes <= conflicts) throw new StateConflictError('moved')
      if (expected !== this.stored?.version) throw new Error('wrong version')
      this.stored = { text, version: `v${this.writes}` }
      return { version: this.stored.version }
    },
    async list() {
      return ['coverage']
    }
  }
}

describe('updateFile', () => {
  it('retries a conflict after a backoff on the injected clock, with jitter from the injected random', async () => {
    const store = flakyStore(2)
    const clock = manualClock()
    const start = clock.now()
    const log: string[] = []
    const result = await updateFile(store, FILE, incrementIterations, {
      clock,
      random: () => 0.5,
      log: { info: (line) => log.push(line) }
    })
    expect(result.attempts).toBe(3)
    expect(readMachineState(result.text).iterationCount).toBe(18)
    // Documented backoff: attempt k waits ceiling/2 + ceiling/2 * random, ceiling = 250 ms * 2^(k-1).
    expect(clock.now() - start).toBe(Math.round(125 + 62.5) + Math.round(250 + 125))
    expect(log).toHaveLength(2)
    expect(log[0]).toMatch(
      /coverage\.md changed while it was written \(attempt 1\); retrying in 188 ms/
    )
  })

  it('gives up after maxAttempts with a message that says what to do', async () => {
    const store = flakyStore(99)
    const update = updateFile(store, FILE, incrementIterations, {
      clock: manualClock(),
      maxAttempts: 3
    })
    await expect(update).rejects.toThrow(StateConflictError)
    await expect(update).rejects.toThrow(/gave up after 3 attempts\. Fix: re-run the job/)
    expect(store.writes).toBe(3)
  })

  it('writes nothing when apply finds the file malformed, and names the file', async () => {
    const store = flakyStore(0)
    store.stored = {
      text: fixtureText().replace(/\| Paused( +)\| false/, '| Paused$1| maybe'),
      version: 'v0'
    }
    const update = updateFile(store, FILE, incrementIterations, { clock: manualClock() })
    await expect(update).rejects.toThrow(StateFileError)
    await expect(update).rejects.toThrow(
      /^state file coverage\.md \(memory\) line \d+ .*Paused must be true or false/
    )
    expect(store.writes).toBe(0)
  })

  it('does not write text that did not change', async () => {
    const store = flakyStore(0)
    const result = await updateFile(store, FILE, (text) => text ?? '', {
      clock: manualClock()
    })
    expect(store.writes).toBe(0)
    expect(result).toEqual({ text: fixtureText(), version: 'v0', attempts: 1 })
  })
})

describe('backoffMs', () => {
  it('waits between half and all of a ceiling that doubles from 250 ms up to 8 s', () => {
    expect([1, 2, 3].map((attempt) => backoffMs(attempt, () => 0))).toEqual([125, 250, 500])
    expect([1, 2, 3].map((attempt) => backoffMs(attempt, () => 0.999999))).toEqual([250, 500, 1000])
    expect(backoffMs(20, () => 1)).toBe(8000)
  })
})

describe('stateFilePath', () => {
  it('is <program>.md, for a valid program name only', () => {
    expect(stateFilePath('perf.v2')).toBe('perf.v2.md')
    expect(() => stateFilePath('../x')).toThrow(/invalid program name/)
  })

  it.each([
    ['perf', true],
    ['perf.v2_b-1', true],
    ['../x', false],
    ['ci-gate/perf', false],
    ['.hidden', false],
    ['', false],
    ['a'.repeat(101), false]
  ])('isProgramName(%j) → %s, as stateFilePath accepts it', (name, valid) => {
    expect(isProgramName(name)).toBe(valid)
    if (valid) expect(stateFilePath(name)).toBe(`${name}.md`)
    else expect(() => stateFilePath(name)).toThrow(/invalid program name/)
  })
})

describe('LocalDirStore', () => {
  // tempDir registers its clean-up with afterAll, so it is called here, not inside a test.
  const root = tempDir('state-store-')
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(root, 'case-'))
  })

  it('creates, reads and lists files; the version is the SHA-256 of the bytes', async () => {
    const store = new LocalDirStore(join(dir, 'nested'))
    expect(store.description).toBe(`folder ${join(dir, 'nested')}`)
    expect(await store.read(FILE)).toBeNull()
    expect(await store.list()).toEqual([])
    const text = `\uFEFF${toCrlf(fixtureText())}`
    const { version } = await store.write(FILE, text, null)
    const bytes = await readFile(join(dir, 'nested', FILE))
    expect(version).toBe(createHash('sha256').update(bytes).digest('hex'))
    expect(bytes.toString('utf8')).toBe(text)
    expect(await store.read(FILE)).toEqual({ text, version })
    await writeFile(join(dir, 'nested', 'notes.txt'), 'x')
    await writeFile(join(dir, 'nested', '-bad name.md'), 'x')
    await store.write('a.b-c.md', 'x', null)
    expect(await store.list()).toEqual(['a.b-c', 'coverage'])
    expect((await readdir(join(dir, 'nested'))).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('keeps the ledger in its folder, creating it, and lists only root state files as programs', async () => {
    const store = new LocalDirStore(dir)
    await store.write('ci-gate/coverage.json', '{}\n', null)
    expect(await readFile(join(dir, 'ci-gate', 'coverage.json'), 'utf8')).toBe('{}\n')
    expect(await store.read('ci-gate/coverage.json')).toMatchObject({ text: '{}\n' })
    expect(await store.list()).toEqual([])
    await mkdir(join(dir, 'ci-gate', 'deeper.md'))
    expect(await store.list()).toEqual([])
  })

  it('refuses a write when the file changed since it was read, or exists when it should not', async () => {
    const store = new LocalDirStore(dir)
    const first = await store.write(FILE, 'one', null)
    await writeFile(join(dir, FILE), 'changed by someone else')
    await expect(store.write(FILE, 'two', first.version)).rejects.toThrow(StateConflictError)
    await expect(store.write(FILE, 'two', null)).rejects.toThrow(
      /changed since it was read \(expected no file/
    )
    expect(await readFile(join(dir, FILE), 'utf8')).toBe('changed by someone else')
    expect((await readdir(dir)).sort()).toEqual([FILE])
  })

  it.each(['../etc/passwd', '/etc/passwd', 'a/b/c.md', 'a/../b.md', '.hidden/x.json', ''])(
    'rejects the path %j, which would leave the folder or is not a store path',
    async (path) => {
      const store = new LocalDirStore(dir)
      await expect(store.read(path)).rejects.toThrow(/invalid state store path/)
      await expect(store.write(path, 'x', null)).rejects.toThrow(/invalid state store path/)
      expect(await readdir(dir)).toEqual([])
    }
  )

  it('loses no update when writers in one process race', async () => {
    const store = new LocalDirStore(dir)
    await store.write(FILE, fixtureText(), null)
    const clock = manualClock()
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        updateFile(store, FILE, incrementIterations, { clock, maxAttempts: 10 })
      )
    )
    const final = await readFile(join(dir, FILE), 'utf8')
    expectSchedulerReads(final, { iteration_count: String(17 + 6), paused: 'false' })
    expect(results.some((result) => result.attempts > 1)).toBe(true)
  })
})

describe('ContentsApiStore', () => {
  it('reads and writes through the contents API with the blob SHA as version', async () => {
    const api = new MemoryContentsApi()
    const store = new ContentsApiStore(api, { branch: 'memory/autoloop', dir: '/programs/' })
    expect(await store.read(FILE)).toBeNull()
    const created = await store.write(FILE, 'first', null)
    expect(created.version).toBe(gitBlobSha('first'))
    expect(api.text('memory/autoloop', 'programs/coverage.md')).toBe('first')
    expect(await store.read(FILE)).toEqual({ text: 'first', version: gitBlobSha('first') })
    await store.write(FILE, 'second', created.version)
    await expect(store.write(FILE, 'third', created.version)).rejects.toThrow(StateConflictError)
    expect(api.text('memory/autoloop', 'programs/coverage.md')).toBe('second')
    expect(api.calls.filter((call) => call.method === 'ensureBranch')).toHaveLength(1)
    expect(api.calls.find((call) => call.method === 'putFile')?.message).toBe(
      'autoloop-ci-gate: update coverage.md'
    )
    api.seed('memory/autoloop', 'programs/readme.txt', 'x')
    api.seed('memory/autoloop', 'programs/deeper/x.md', 'x')
    expect(await store.list()).toEqual(['coverage'])
    expect(store.description).toBe('branch memory/autoloop, folder programs')
    await store.write('ci-gate/coverage.json', '{}', null)
    expect(api.text('memory/autoloop', 'programs/ci-gate/coverage.json')).toBe('{}')
    await expect(store.read('../coverage.md')).rejects.toThrow(/invalid state store path/)
  })

  it('two concurrent writers against a store answering 409 on a stale SHA: no lost update', async () => {
    const api = new MemoryContentsApi()
    api.seed('memory/autoloop', 'coverage.md', fixtureText())
    const store = new ContentsApiStore(api, { branch: 'memory/autoloop' })
    // Both writers read before either writes.
    let reads = 0
    let bothRead = (): void => {}
    const barrier = new Promise<void>((resolve) => {
      bothRead = resolve
    })
    api.hook = async (call) => {
      if (call.method !== 'getFile' || reads >= 2) return
      reads += 1
      if (reads === 2) bothRead()
      await barrier
    }
    const clock = manualClock()
    const pause = updateFile(
      store,
      FILE,
      (text) => updateMachineState(text ?? '', { paused: true, pauseReason: 'manual' }),
      { clock }
    )
    const count = updateFile(store, FILE, incrementIterations, { clock })
    const [paused, counted] = await Promise.all([pause, count])
    expect([paused.attempts, counted.attempts].sort()).toEqual([1, 2])
    expect(api.calls.filter((call) => call.conflict)).toHaveLength(1)
    const final = api.text('memory/autoloop', 'coverage.md') ?? ''
    expectSchedulerReads(final, { paused: 'true', pause_reason: 'manual', iteration_count: '18' })
  })

  it('any interleaving of N writers keeps every increment', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.integer({ min: 2, max: 5 }), async (s, writers) => {
        const api = new MemoryContentsApi()
        const store = new ContentsApiStore(api, { branch: 'memory/autoloop' })
        api.hook = (call) => s.schedule(Promise.resolve(), call.method)
        const clock = manualClock()
        const runs = Array.from({ length: writers }, () =>
          updateFile(store, FILE, incrementIterations, {
            clock,
            random: () => 0,
            maxAttempts: writers
          })
        )
        await s.waitFor(Promise.all(runs))
        const final = api.text('memory/autoloop', 'coverage.md') ?? ''
        expectSchedulerReads(final, { iteration_count: String(writers) })
      }),
      { numRuns: 100 }
    )
  })

  it('with GraphQL: the head and several files in one read, several files in one commit on that head', async () => {
    const api = new MemoryBranchApi()
    api.seed('memory/autoloop', 'programs/coverage.md', 'first')
    const store = new ContentsApiStore(api, { branch: 'memory/autoloop', dir: 'programs' })
    const read = await store.readMany([FILE, 'ci-gate/coverage.json'])
    expect(read.files).toEqual([{ text: 'first', version: gitBlobSha('first') }, null])
    const written = await store.writeMany(
      [
        { path: FILE, text: 'second' },
        { path: 'ci-gate/coverage.json', text: '{}' }
      ],
      read.head as string
    )
    expect(written.versions).toEqual([gitBlobSha('second'), gitBlobSha('{}')])
    expect(api.text('memory/autoloop', 'programs/ci-gate/coverage.json')).toBe('{}')
    // A branch the read found is there: no call makes sure of it.
    expect(api.calls.map((call) => call.method)).toEqual(['getFiles', 'commitFiles'])
    expect(api.calls.at(-1)?.message).toBe(
      'autoloop-ci-gate: update coverage.md, ci-gate/coverage.json'
    )
    api.seed('memory/autoloop', 'other.md', 'a maintainer')
    await expect(store.writeMany([{ path: FILE, text: 'third' }], written.head)).rejects.toThrow(
      StateConflictError
    )
    expect(api.text('memory/autoloop', 'programs/coverage.md')).toBe('second')
  })

  it('without GraphQL: files read one by one, no head, and no write of several at once', async () => {
    const api = new MemoryContentsApi()
    api.seed('memory/autoloop', 'coverage.md', 'first')
    const store = new ContentsApiStore(api, { branch: 'memory/autoloop' })
    expect(await store.readMany([FILE, 'ci-gate/coverage.json'])).toEqual({
      head: null,
      files: [{ text: 'first', version: gitBlobSha('first') }, null]
    })
    await expect(store.writeMany([{ path: FILE, text: 'x' }], 'c1')).rejects.toThrow(RangeError)
  })

  it('GraphQL refused (a read or a commit): nothing written, and from then on file by file', async () => {
    const refused = () => Promise.reject(new Error('403: Resource not accessible by integration'))
    const reads = new MemoryBranchApi()
    reads.seed('memory/autoloop', 'coverage.md', 'first')
    reads.getFiles = refused
    const store = new ContentsApiStore(reads, { branch: 'memory/autoloop' })
    expect(await store.readMany([FILE])).toEqual({
      head: null,
      files: [{ text: 'first', version: gitBlobSha('first') }]
    })
    await expect(store.writeMany([{ path: FILE, text: 'x' }], 'c1')).rejects.toThrow(RangeError)

    const commits = new MemoryBranchApi()
    commits.seed('memory/autoloop', 'coverage.md', 'first')
    commits.commitFiles = refused
    const other = new ContentsApiStore(commits, { branch: 'memory/autoloop' })
    const read = await other.readMany([FILE])
    await expect(other.writeMany([{ path: FILE, text: 'x' }], read.head as string)).rejects.toThrow(
      StateConflictError
    )
    expect(commits.text('memory/autoloop', 'coverage.md')).toBe('first')
    expect((await other.readMany([FILE])).head).toBeNull()
  })

  it('retries ensuring the branch after a failure', async () => {
    const api = new MemoryContentsApi()
    let failures = 1
    const ensure = api.ensureBranch.bind(api)
    api.ensureBranch = async (branch) => {
      if (failures-- > 0) throw new Error('500: try again')
      await ensure(branch)
    }
    const store = new ContentsApiStore(api, {
      branch: 'memory/autoloop',
      message: (path) => `state: ${path}`
    })
    await expect(store.write(FILE, 'x', null)).rejects.toThrow('500: try again')
    await store.write(FILE, 'x', null)
    expect(api.calls.find((call) => call.method === 'putFile')?.message).toBe('state: coverage.md')
  })
})
