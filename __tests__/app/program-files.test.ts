import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { manualClock } from '../../__fixtures__/clock.js'
import { memoryLogger } from '../../__fixtures__/log.js'
import {
  beginAttempt,
  completeAttempt,
  emptyLedger,
  ledgerPath,
  serializeLedger,
  withStateWrite,
  type Ledger
} from '../../src/core/ledger.js'
import { parseLedgerFile } from '../../src/statefile/ledger-file.js'
import { readLedgerPointer, readLegacyLedgerBlock } from '../../src/statefile/ci-gate-section.js'
import { StateConflictError } from '../../src/core/state-errors.js'
import { readMachineState, updateMachineState } from '../../src/statefile/machine-state.js'
import { projectStateFile } from '../../src/statefile/projection.js'
import {
  programFilesOf,
  readProgram,
  updateProgram,
  type ProgramFiles
} from '../../src/app/program-files.js'
import { createStateFile } from '../../src/statefile/template.js'
import { ContentsApiStore } from '../../src/adapters/store.js'
import { MemoryBranchApi } from '../../__fixtures__/state/memory-contents-api.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'
import { LIMITS, redVerdict, sha, sig } from '../core/ledger-helpers.js'
import { rejectedStateFileError } from '../statefile/helpers.js'
import { memoryStore, type MemoryStore } from './memory-store.js'

const PROGRAM = 'perf'
const MD = `${PROGRAM}.md`
const JSON_PATH = ledgerPath(PROGRAM)
const MAX_BYTES = 30_720

function setup(initial: Record<string, string> = {}) {
  const store = memoryStore(initial)
  const clock = manualClock(Date.parse('2026-03-01T12:00:00Z'))
  const log = memoryLogger()
  return { store, clock, log, deps: { store, clock, log, random: () => 0.5 } }
}

/** `apply` for a gate beginning attempt `sha` (as the gate does), returning the began kind. */
function gateBegins(commit: string, now: () => number, runId = 100) {
  return (current: ProgramFiles) => {
    const began = beginAttempt(current.ledger, { sha: commit, runId, now: now(), ...LIMITS })
    return { ledger: began.ledger, value: began.kind }
  }
}

const ledgerIn = (store: MemoryStore): Ledger =>
  parseLedgerFile(store.text(JSON_PATH) as string, JSON_PATH)

describe('readProgram', () => {
  it('a program with no files: an empty ledger, the template as it is, nothing stale', async () => {
    const { store, clock } = setup()
    const files = await readProgram(store, PROGRAM, { maxBytes: MAX_BYTES, now: clock.now() })
    expect(files).toMatchObject({
      program: PROGRAM,
      stored: null,
      storedLedger: null,
      stale: false
    })
    expect(files.ledger).toMatchObject({ revision: 0, iteration: null, attempts: [] })
    // Nothing to project yet: no CI Gate section in a file the action never gated for.
    expect(readLedgerPointer(files.text)).toBeNull()
    expect(files.text).toBe(createStateFile(PROGRAM))
    expect(files.machine).toEqual(readMachineState(createStateFile(PROGRAM)))
  })

  it('tells a state file that lags its ledger (a memory push reverted it) as stale', async () => {
    let ledger = beginAttempt(emptyLedger(PROGRAM, 0), {
      sha: sha(0),
      runId: 1,
      now: 0,
      ...LIMITS
    }).ledger
    ledger = withStateWrite(ledger, { machineState: { paused: true, pauseReason: 'manual' } }, 0)
    ledger = { ...ledger, revision: 1 }
    const { store, clock } = setup({
      [MD]: createStateFile(PROGRAM),
      [JSON_PATH]: serializeLedger(ledger)
    })
    const files = await readProgram(store, PROGRAM, { maxBytes: MAX_BYTES, now: clock.now() })
    expect(files.stale).toBe(true)
    expect(files.machine.paused).toBe(true)
    // Projected, it is not stale any more.
    store.put(MD, files.text)
    expect((await readProgram(store, PROGRAM, { maxBytes: MAX_BYTES, now: 0 })).stale).toBe(false)
  })

  it('programFilesOf names the file and the store in a state file error', () => {
    const broken = createStateFile(PROGRAM).replace('| Paused | false |', '| Paused | maybe |')
    expect(() =>
      programFilesOf(PROGRAM, { text: broken, version: 'v1' }, null, 'memory', {
        maxBytes: MAX_BYTES,
        now: 0
      })
    ).toThrow(
      /^state file perf\.md \(memory\) line \d+ "\| Paused \| maybe \|": Paused must be true or false/
    )
  })
})

describe('updateProgram', () => {
  it('writes the ledger first, then projects it onto the state file, both by compare-and-swap', async () => {
    const { store, clock, deps } = setup()
    const result = await updateProgram(
      deps,
      PROGRAM,
      { maxBytes: MAX_BYTES },
      gateBegins(sha(0), clock.now)
    )
    expect(result.value).toBe('first')
    expect(store.written).toEqual([JSON_PATH, MD])
    const ledger = ledgerIn(store)
    expect(ledger).toMatchObject({
      program: PROGRAM,
      revision: 1,
      updatedAt: new Date(clock.now()).toISOString(),
      attempts: [{ index: 0, state: 'in-flight', runId: 100 }]
    })
    expect(result.files.ledger).toEqual(ledger)
    expect(result.files.text).toBe(store.text(MD))
    expect(readLedgerPointer(store.text(MD) as string)).toEqual({ path: JSON_PATH, revision: 1 })
    expect(store.text(MD)).toContain(
      `⏳ **The CI gate is waiting for CI on \`${sha(0).slice(0, 12)}\`**`
    )
    expect(result.files.stale).toBe(false)
  })

  it('each change is the next revision; the Machine State rows come from the ledger’s writes', async () => {
    const { store, clock, deps } = setup()
    await updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES }, gateBegins(sha(0), clock.now))
    clock.advance(60_000)
    await updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES }, (current) => ({
      ledger: withStateWrite(
        completeAttempt(current.ledger, 0, redVerdict(sig('a'), clock.now())),
        { machineState: { pr: 14 } },
        clock.now()
      ),
      value: null
    }))
    expect(ledgerIn(store).revision).toBe(2)
    expect(ledgerIn(store).writes).toEqual([
      { revision: 2, at: new Date(clock.now()).toISOString(), machineState: { pr: 14 } }
    ])
    expect(readLikeScheduler(store.text(MD) as string).fields.pr).toBe('#14')
    expect(store.text(MD)).toContain('This is fix attempt 1 of 5')
  })

  it('returning the same ledger writes nothing; a stale state file is still repaired', async () => {
    const { store, clock, deps } = setup()
    await updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES }, (current) => ({
      ledger: withStateWrite(
        current.ledger,
        { machineState: { paused: true, pauseReason: 'manual' } },
        0
      ),
      value: null
    }))
    const projected = store.text(MD) as string
    store.written.length = 0
    const unchanged = await updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES }, (current) => ({
      ledger: current.ledger,
      value: 'nothing'
    }))
    expect(unchanged.value).toBe('nothing')
    expect(store.written).toEqual([])
    // Another run's memory push puts its old copy back.
    store.put(MD, createStateFile(PROGRAM))
    const repaired = await updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES }, (current) => ({
      ledger: current.ledger,
      value: null
    }))
    expect(store.written).toEqual([MD])
    expect(store.text(MD)).toBe(projected)
    expect(repaired.files.machine.paused).toBe(true)
    expect(clock.now()).toBe(Date.parse('2026-03-01T12:00:00Z'))
  })

  it('a conflict on the ledger: re-read, apply again on the other run’s ledger, retry after a backoff', async () => {
    const { store, clock, log, deps } = setup()
    await updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES }, gateBegins(sha(0), clock.now))
    const start = clock.now()
    let applied = 0
    let interfered = false
    store.beforeWrite = (path) => {
      if (path !== JSON_PATH || interfered) return
      interfered = true
      // Another gate records its write in between.
      const other = withStateWrite(ledgerIn(store), { machineState: { issue: 7 } }, start)
      store.put(JSON_PATH, serializeLedger({ ...other, revision: other.revision + 1 }))
    }
    await updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES }, (current) => {
      applied += 1
      return {
        ledger: withStateWrite(current.ledger, { machineState: { pr: 3 } }, clock.now()),
        value: null
      }
    })
    expect(applied).toBe(2)
    expect(store.conflicts).toEqual([JSON_PATH])
    expect(ledgerIn(store).revision).toBe(3)
    expect(readMachineState(store.text(MD) as string)).toMatchObject({ pr: 3, issue: 7 })
    // The documented backoff of the first retry, on the injected clock and jitter.
    expect(clock.now() - start).toBe(188)
    expect(
      log.lines.some((line) =>
        /ci-gate\/perf\.json changed while it was written \(attempt 1\)/.test(line)
      )
    ).toBe(true)
  })

  it('a conflict on the state file (a memory push in between): projected again onto what is there now', async () => {
    const { store, clock, deps } = setup()
    await updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES }, gateBegins(sha(0), clock.now))
    let interfered = false
    store.beforeWrite = (path) => {
      if (path !== MD || interfered) return
      interfered = true
      // The agent's memory push lands: its notes in a human section, and its old Machine State.
      const agents = (store.text(MD) as string).replace(
        '- *(none yet)*',
        '- the parser needs a cache'
      )
      store.put(MD, updateMachineState(agents, { bestMetric: 0.9 }))
    }
    await updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES }, (current) => ({
      ledger: withStateWrite(current.ledger, { machineState: { pr: 3 } }, clock.now()),
      value: null
    }))
    expect(store.conflicts).toEqual([MD])
    const text = store.text(MD) as string
    expect(text).toContain('- the parser needs a cache')
    expect(readMachineState(text)).toMatchObject({ pr: 3, bestMetric: 0.9 })
    expect(readLedgerPointer(text)?.revision).toBe(2)
  })

  it('gives up after five conflicts in a row, saying what to do', async () => {
    const { store, clock, deps } = setup()
    // Every write finds that another writer just wrote the same file.
    store.beforeWrite = (path) =>
      store.put(path, store.text(path) ?? serializeLedger(emptyLedger(PROGRAM, 0)))
    const update = updateProgram(
      deps,
      PROGRAM,
      { maxBytes: MAX_BYTES },
      gateBegins(sha(0), clock.now)
    )
    await expect(update).rejects.toThrow(StateConflictError)
    await expect(update).rejects.toThrow(/gave up after 5 attempts\. Fix: re-run the job/)
    expect(store.written).toEqual([])
  })

  it('a crash between the two writes loses nothing: the next reader projects the ledger', async () => {
    const { store, clock, deps } = setup({ [MD]: createStateFile(PROGRAM) })
    store.beforeWrite = (path) => {
      if (path === MD) throw new Error('the runner lost its connection')
    }
    await expect(
      updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES }, gateBegins(sha(0), clock.now))
    ).rejects.toThrow('the runner lost its connection')
    expect(store.written).toEqual([JSON_PATH])
    store.beforeWrite = () => undefined
    const files = await readProgram(store, PROGRAM, { maxBytes: MAX_BYTES, now: clock.now() })
    expect(files.stale).toBe(true)
    expect(files.ledger.attempts).toHaveLength(1)
    expect(readLedgerPointer(files.text)?.revision).toBe(1)
  })

  it('a malformed ledger file stops the update, quoting the line, with nothing written', async () => {
    const broken = serializeLedger(emptyLedger(PROGRAM, 0)).replace(
      '"revision": 0,',
      '"revision": "zero",'
    )
    const { store, clock, deps } = setup({ [MD]: createStateFile(PROGRAM), [JSON_PATH]: broken })
    const error = await rejectedStateFileError(
      updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES }, gateBegins(sha(0), clock.now))
    )
    expect(
      error.message.startsWith(
        `state file ci-gate/perf.json (memory) line 4 ${JSON.stringify('  "revision": "zero",')}: the ledger is invalid at revision`
      )
    ).toBe(true)
    expect(error.fix).toMatch(/restore the file from the branch history/)
    expect(store.written).toEqual([])
    expect(store.text(JSON_PATH)).toBe(broken)
  })

  it('a malformed state file stops the update, naming it, with nothing written', async () => {
    const broken = createStateFile(PROGRAM).replace(
      '| Iteration Count | 0 |',
      '| Iteration Count | many |'
    )
    const { store, clock, deps } = setup({ [MD]: broken })
    const error = await rejectedStateFileError(
      updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES }, gateBegins(sha(0), clock.now))
    )
    expect(error.message).toMatch(
      /^state file perf\.md \(memory\) line \d+ "\| Iteration Count \| many \|"/
    )
    expect(store.written).toEqual([])
  })
})

describe('migration from a version 1 state file', () => {
  /** Written by the previous version of this action: the ledger as a fenced block, paused. */
  const v1 = readFileSync(
    new URL('../../__fixtures__/state/coverage-v1-paused.md', import.meta.url),
    'utf8'
  )

  it('reads the ledger from the block, then writes it to its own file and the brief in its place', async () => {
    const { store, clock, deps } = setup({ 'coverage.md': v1 })
    const read = await readProgram(store, 'coverage', { maxBytes: MAX_BYTES, now: clock.now() })
    expect(read.ledger.attempts.map((a) => a.state)).toEqual(['red', 'red'])
    expect(read.ledger.iteration?.outcome).toBe('paused')
    expect(read.stale).toBe(true)
    await updateProgram(deps, 'coverage', { maxBytes: MAX_BYTES }, (current) => ({
      ledger: { ...current.ledger },
      value: null
    }))
    expect(store.written).toEqual(['ci-gate/coverage.json', 'coverage.md'])
    const ledger = parseLedgerFile(store.text('ci-gate/coverage.json') as string, 'x')
    expect(ledger).toMatchObject({ version: 2, program: 'coverage', revision: 1 })
    expect(ledger.attempts).toHaveLength(2)
    const text = store.text('coverage.md') as string
    expect(readLegacyLedgerBlock(text)).toBeNull()
    expect(readLedgerPointer(text)).toEqual({ path: 'ci-gate/coverage.json', revision: 1 })
    expect(text).toContain('⏸️ **Paused by the CI gate:**')
    // Machine State and every human section are as the previous version left them.
    expect(readLikeScheduler(text).fields).toEqual(readLikeScheduler(v1).fields)
    expect(text.slice(text.indexOf('## 📋 Program Info'))).toBe(
      v1.slice(v1.indexOf('## 📋 Program Info'))
    )
  })

  it('a ledger file wins over a leftover block', async () => {
    const own = completeAttempt(
      beginAttempt(emptyLedger(PROGRAM, 0), { sha: sha('new'), runId: 5, now: 0, ...LIMITS })
        .ledger,
      0,
      { state: 'green', now: 1 }
    )
    const { store, clock } = setup({ [MD]: v1, [JSON_PATH]: serializeLedger(own) })
    const files = await readProgram(store, PROGRAM, { maxBytes: MAX_BYTES, now: clock.now() })
    expect(files.ledger.attempts.map((a) => a.sha)).toEqual([sha('new')])
    expect(readLegacyLedgerBlock(files.text)).toBeNull()
    expect(projectStateFile(v1, files.ledger, { program: PROGRAM, maxBytes: MAX_BYTES })).toBe(
      files.text
    )
  })
})

describe('updateProgram from the ledger file as last known', () => {
  function counted(store: MemoryStore): string[] {
    const reads: string[] = []
    const read = store.read.bind(store)
    store.read = async (path) => {
      reads.push(path)
      return read(path)
    }
    return reads
  }

  it('reads the state file once and the ledger not at all, and hands back the version it wrote', async () => {
    const { store, clock, deps } = setup()
    const first = await updateProgram(
      deps,
      PROGRAM,
      { maxBytes: MAX_BYTES },
      gateBegins(sha(0), clock.now)
    )
    const reads = counted(store)
    const second = await updateProgram(
      deps,
      PROGRAM,
      { maxBytes: MAX_BYTES, known: first.files },
      (current) => ({
        ledger: withStateWrite(current.ledger, { machineState: { pr: 3 } }, clock.now()),
        value: current.ledger.revision
      })
    )
    expect(second.value).toBe(1)
    expect(reads).toEqual([MD])
    expect(store.conflicts).toEqual([])
    expect(ledgerIn(store).revision).toBe(2)
    expect(second.files.storedLedger).toEqual(store.files.get(JSON_PATH))
    expect(readMachineState(store.text(MD) as string).pr).toBe(3)
  })

  it('a ledger another run wrote since: the write conflicts, and is applied again on it', async () => {
    const { store, clock, deps } = setup()
    const first = await updateProgram(
      deps,
      PROGRAM,
      { maxBytes: MAX_BYTES },
      gateBegins(sha(0), clock.now)
    )
    const other = withStateWrite(ledgerIn(store), { machineState: { issue: 7 } }, clock.now())
    store.put(JSON_PATH, serializeLedger({ ...other, revision: other.revision + 1 }))
    let applied = 0
    await updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES, known: first.files }, (current) => {
      applied += 1
      return {
        ledger: withStateWrite(current.ledger, { machineState: { pr: 3 } }, clock.now()),
        value: null
      }
    })
    expect(applied).toBe(2)
    expect(store.conflicts).toEqual([JSON_PATH])
    expect(ledgerIn(store).revision).toBe(3)
    expect(readMachineState(store.text(MD) as string)).toMatchObject({ pr: 3, issue: 7 })
  })
})

/**
 * A store that writes both files in one change, compare-and-swap on its head (a branch written
 * with one commit): every change of any file moves the head.
 */
function branchStore(initial: Record<string, string> = {}) {
  const store = memoryStore(initial)
  let head = 'h0'
  let heads = 0
  const put = store.put.bind(store)
  store.put = (path, text) => {
    put(path, text)
    heads += 1
    head = `h${heads}`
  }
  const requests: string[] = []
  const read = store.read.bind(store)
  store.read = async (path) => {
    requests.push(`read ${path}`)
    return read(path)
  }
  store.readMany = async (paths) => {
    requests.push(`readMany ${paths.join(' ')}`)
    return { head, files: paths.map((path) => store.files.get(path) ?? null) }
  }
  store.writeMany = async (files, expected) => {
    requests.push(`writeMany ${files.map((file) => file.path).join(' ')}`)
    store.beforeWrite(files[0]?.path ?? '')
    if (expected !== head) {
      store.conflicts.push(files.map((file) => file.path).join(' '))
      throw new StateConflictError(`moved (expected ${expected}, found ${head})`)
    }
    const versions = files.map((file) => {
      put(file.path, file.text)
      store.written.push(file.path)
      return store.files.get(file.path)?.version as string
    })
    heads += 1
    head = `h${heads}`
    return { head, versions }
  }
  return { store, requests }
}

describe('updateProgram on a store that writes both files in one change', () => {
  function branchSetup(initial: Record<string, string> = {}) {
    const { store, requests } = branchStore(initial)
    const clock = manualClock(Date.parse('2026-03-01T12:00:00Z'))
    return {
      store,
      requests,
      clock,
      deps: { store, clock, log: memoryLogger(), random: () => 0.5 }
    }
  }

  it('one read, then one write per update from the files as last written: no read again', async () => {
    const { store, requests, clock, deps } = branchSetup({ [MD]: createStateFile(PROGRAM) })
    const first = await updateProgram(
      deps,
      PROGRAM,
      { maxBytes: MAX_BYTES },
      gateBegins(sha(0), clock.now)
    )
    const second = await updateProgram(
      deps,
      PROGRAM,
      { maxBytes: MAX_BYTES, known: first.files },
      (current) => ({
        ledger: completeAttempt(current.ledger, 0, redVerdict(sig('a'), clock.now())),
        value: null
      })
    )
    expect(requests).toEqual([
      `readMany ${MD} ${JSON_PATH}`,
      `writeMany ${JSON_PATH} ${MD}`,
      `writeMany ${JSON_PATH} ${MD}`
    ])
    expect(ledgerIn(store).revision).toBe(2)
    expect(readLedgerPointer(store.text(MD) as string)?.revision).toBe(2)
    expect(second.files.stored).toEqual(store.files.get(MD))
    expect(second.files.storedLedger).toEqual(store.files.get(JSON_PATH))
  })

  it('a state file a maintainer changed meanwhile: the write conflicts, both are read again and the update decides on the edit', async () => {
    const { store, requests, clock, deps } = branchSetup({ [MD]: createStateFile(PROGRAM) })
    const first = await updateProgram(
      deps,
      PROGRAM,
      { maxBytes: MAX_BYTES },
      gateBegins(sha(0), clock.now)
    )
    store.put(
      MD,
      updateMachineState(store.text(MD) as string, { paused: true, pauseReason: 'manual' })
    )
    const seen: boolean[] = []
    await updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES, known: first.files }, (current) => {
      seen.push(current.machine.paused)
      return {
        ledger: withStateWrite(current.ledger, { machineState: { pr: 3 } }, clock.now()),
        value: null
      }
    })
    expect(seen).toEqual([false, true])
    expect(store.conflicts).toHaveLength(1)
    expect(requests.slice(2)).toEqual([
      `writeMany ${JSON_PATH} ${MD}`,
      `readMany ${MD} ${JSON_PATH}`,
      `writeMany ${JSON_PATH} ${MD}`
    ])
    expect(readMachineState(store.text(MD) as string)).toMatchObject({ paused: true, pr: 3 })
  })

  it('sends only the files whose bytes changed: a stale state file alone is repaired alone', async () => {
    const { store, requests, clock, deps } = branchSetup({ [MD]: createStateFile(PROGRAM) })
    await updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES }, gateBegins(sha(0), clock.now))
    const projected = store.text(MD) as string
    // gh-aw's memory push puts back the file as the agent's checkout had it.
    store.put(MD, createStateFile(PROGRAM))
    await updateProgram(deps, PROGRAM, { maxBytes: MAX_BYTES }, (current) => ({
      ledger: current.ledger,
      value: null
    }))
    expect(requests.at(-1)).toBe(`writeMany ${MD}`)
    expect(store.text(MD)).toBe(projected)
  })
})

describe('updateProgram on a branch written one commit at a time, any interleaving', () => {
  it('N runs each writing twice (the second from the files it last wrote): every write told it was written is in the ledger, and the state file names the ledger it was written with', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.integer({ min: 2, max: 4 }), async (s, runs) => {
        const api = new MemoryBranchApi()
        api.seed('memory/autoloop', MD, createStateFile(PROGRAM))
        const store = new ContentsApiStore(api, { branch: 'memory/autoloop' })
        api.hook = (call) => s.schedule(Promise.resolve(), call.method)
        const clock = manualClock(Date.parse('2026-03-01T12:00:00Z'))
        const deps = { store, clock, log: memoryLogger(), random: () => 0 }
        const written: number[] = []
        const write = async (issue: number, known?: ProgramFiles) => {
          const update = await updateProgram(
            deps,
            PROGRAM,
            { maxBytes: MAX_BYTES, ...(known ? { known } : {}) },
            (current) => ({
              ledger: withStateWrite(current.ledger, { machineState: { issue } }, clock.now()),
              value: null
            })
          )
          written.push(issue)
          return update.files
        }
        const one = async (run: number) => {
          try {
            await write(100 + run, await write(run))
          } catch (error) {
            // Five conflicts in a row give up loudly (a liveness limit, not a lost update).
            if (!(error instanceof StateConflictError)) throw error
          }
        }
        await s.waitFor(Promise.all(Array.from({ length: runs }, (_, run) => one(run))))
        const ledger = parseLedgerFile(api.text('memory/autoloop', JSON_PATH) as string, JSON_PATH)
        expect(ledger.revision).toBe(written.length)
        const issues = (list: readonly (number | null | undefined)[]) => [...list].sort()
        expect(issues(ledger.writes.map((w) => w.machineState.issue))).toEqual(issues(written))
        const md = api.text('memory/autoloop', MD) as string
        expect(readLedgerPointer(md)?.revision).toBe(ledger.revision)
        expect(readMachineState(md).issue).toBe(ledger.writes.at(-1)?.machineState.issue)
      }),
      { numRuns: 60 }
    )
  })
})
