import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import {
  LedgerSchema,
  hashKey,
  latestAttempt,
  pausedSignatureOf,
  serializeLedger,
  withStateWrite,
  type Attempt,
  type Ledger
} from '../../src/core/ledger.js'
import { parseLedgerFile, parseLedgerJson } from '../../src/statefile/ledger-file.js'
import { readLegacyLedgerBlock } from '../../src/statefile/ci-gate-section.js'
import { readMachineState } from '../../src/statefile/machine-state.js'
import { projectStateFile } from '../../src/statefile/projection.js'
import { createStateFile } from '../../src/statefile/template.js'
import { stateFileErrorOf } from './helpers.js'
import { LIMITS, START, begin, redAttempts, sha, sig } from '../core/ledger-helpers.js'

const SOURCE = 'ci-gate/perf.json (branch memory/autoloop)'

/** Attempt 0 of a new iteration on sha(0), red with signature `a`. */
function redFirst(): Ledger {
  return redAttempts([sig('a')])
}

describe('the ledger file', () => {
  it('is indented JSON with a final newline, one field per line', () => {
    const text = serializeLedger(redFirst())
    expect(text.endsWith('}\n')).toBe(true)
    expect(text).toContain('\n  "version": 2,\n')
    expect(JSON.parse(text)).toEqual(redFirst())
  })

  it('refuses text that is not JSON, quoting the line where parsing stopped, and names the file', () => {
    const text = serializeLedger(redFirst()).replace('"revision": 0,', '"revision": 0')
    const error = stateFileErrorOf(() => parseLedgerFile(text, SOURCE))
    expect(error.message).toMatch(
      /^state file ci-gate\/perf\.json \(branch memory\/autoloop\) line \d+ ".*": the ledger is not valid JSON/
    )
    expect(error.line).toBe(text.split('\n').indexOf(error.lineText as string) + 1)
    expect(error.lineText).toBe('  "updatedAt": "2026-03-01T12:00:00.000Z",')
    expect(error.fix).toMatch(/restore the file from the branch history, or delete it/)
  })

  it('refuses a field that breaks the schema, quoting its line', () => {
    const text = serializeLedger(redFirst()).replace('"state": "red"', '"state": "purple"')
    const error = stateFileErrorOf(() => parseLedgerFile(text, SOURCE))
    expect(error.message).toContain('the ledger is invalid at attempts.0.state')
    expect(error.lineText).toBe('      "state": "purple",')
    expect(error.line).toBe(text.split('\n').indexOf('      "state": "purple",') + 1)
  })

  it('quotes the element of a list that breaks the schema', () => {
    let ledger = redAttempts([sig('a'), sig('b')])
    ledger = {
      ...ledger,
      attempts: ledger.attempts.map((a) => ({ ...a, note: `note ${a.index}` }))
    }
    const text = serializeLedger(ledger).replace(`"sha": "${sha(1)}"`, '"sha": "not a sha"')
    const error = stateFileErrorOf(() => parseLedgerFile(text, SOURCE))
    expect(error.message).toContain('attempts.1.sha: must be a lower-case hex commit SHA')
    expect(error.lineText).toBe('      "sha": "not a sha",')
  })

  it('refuses a ledger written by a newer version, saying what to do', () => {
    const text = serializeLedger(redFirst()).replace('"version": 2', '"version": 3')
    const error = stateFileErrorOf(() => parseLedgerFile(text, SOURCE))
    expect(error.message).toMatch(
      /version 3, written by a newer autoloop-ci-gate than this one \(version 2\)/
    )
    expect(error.lineText).toBe('  "version": 3,')
    expect(error.fix).toMatch(/use the newer version of the action/)
  })

  it.each([
    ['null', 'null'],
    ['an array', '[]'],
    ['a number', '2']
  ])('refuses %s at the root', (_name, text) => {
    expect(stateFileErrorOf(() => parseLedgerFile(text, SOURCE)).message).toMatch(
      /the ledger is invalid at \(root\)/
    )
  })
})

describe('where an invalid ledger file is quoted', () => {
  it('skips brackets and escaped quotes inside strings when it finds a list element', () => {
    let ledger = redAttempts([sig('a'), sig('b')])
    ledger = {
      ...ledger,
      attempts: ledger.attempts.map((a) => ({ ...a, note: `say "[${a.index}] {x}` }))
    }
    const text = serializeLedger(ledger).replace(`"sha": "${sha(1)}"`, '"sha": "not a sha"')
    expect(text).toContain(`say \\"[0] {x}`)
    const error = stateFileErrorOf(() => parseLedgerFile(text, SOURCE))
    expect(error.message).toContain('attempts.1.sha')
    expect(error.lineText).toBe('      "sha": "not a sha",')
  })

  it('a string that ends in a backslash ends at its quote', () => {
    let ledger = redAttempts([sig('a'), sig('b')])
    ledger = {
      ...ledger,
      attempts: ledger.attempts.map((a) => ({ ...a, note: `C:\\dir${a.index}\\` }))
    }
    const text = serializeLedger(ledger).replace(`"sha": "${sha(1)}"`, '"sha": "not a sha"')
    expect(text).toContain('dir0\\\\"')
    const error = stateFileErrorOf(() => parseLedgerFile(text, SOURCE))
    expect(error.message).toContain('attempts.1.sha')
    expect(error.lineText).toBe('      "sha": "not a sha",')
  })

  it('quotes the list itself when the element at fault is not an object', () => {
    const text = serializeLedger(redFirst()).replace(
      '"earlierSignatureHashes": [],',
      '"earlierSignatureHashes": [\n    7\n  ],'
    )
    const error = stateFileErrorOf(() => parseLedgerFile(text, SOURCE))
    expect(error.message).toContain('the ledger is invalid at earlierSignatureHashes.0')
    expect(error.lineText).toBe('  "earlierSignatureHashes": [')
  })
})

describe('migration from version 1 (a fenced block in the state file)', () => {
  /**
   * Written by the previous version of this action (its writeLedger, onto coverage.md): the
   * open iteration of two red attempts, and the same iteration after the pause.
   */
  const v1Open = readFileSync(
    new URL('../../__fixtures__/state/coverage-v1.md', import.meta.url),
    'utf8'
  )
  const v1Paused = readFileSync(
    new URL('../../__fixtures__/state/coverage-v1-paused.md', import.meta.url),
    'utf8'
  )

  function migrate(text: string): Ledger {
    const block = readLegacyLedgerBlock(text)
    if (!block) throw new Error('the fixture has no v1 block')
    return parseLedgerJson(block.json, text, 'coverage.md', { program: 'coverage' })
  }

  it('keeps the iteration, its attempts and their signatures, with the default budget and wall clock', () => {
    const ledger = migrate(v1Open)
    expect(ledger).toMatchObject({
      version: 2,
      program: 'coverage',
      revision: 0,
      updatedAt: '2026-03-04T07:00:00.000Z',
      iteration: {
        id: '2026-03-04T07:00:00.000Z/3f9c2ab11111',
        startedAt: '2026-03-04T07:00:00.000Z',
        finishedAt: null,
        outcome: null,
        maxFixAttempts: LIMITS.maxFixAttempts,
        timeoutMinutes: LIMITS.timeoutMinutes
      },
      earlierSignatureHashes: [],
      pausedSignatures: [],
      baseFailures: null,
      writes: []
    })
    expect(ledger.attempts.map((a) => [a.index, a.state, a.signature?.keyCount, a.runId])).toEqual([
      [0, 'red', 1, 13512345678],
      [1, 'red', 2, 13512349999]
    ])
    expect(ledger.attempts[1]?.errorLines).toEqual(['● fromArrays › sums'])
    // The next gate goes on from it: the same signature as attempt 0 is no progress.
    const next = begin(ledger, { sha: sha(7), runId: 3, now: Date.parse('2026-03-04T07:40:00Z') })
    expect(next).toMatchObject({ kind: 'fix', attempt: { index: 2 } })
  })

  it('a paused v1 iteration migrates as ended, its updatedAt the pause', () => {
    const ledger = migrate(v1Paused)
    expect(ledger.iteration).toMatchObject({
      outcome: 'paused',
      finishedAt: '2026-03-04T07:27:00.000Z'
    })
    expect(ledger.updatedAt).toBe('2026-03-04T07:27:00.000Z')
  })

  it('a paused v1 iteration remembers its latest attempt’s signature, so a reset does not forget it', () => {
    const ledger = migrate(v1Paused)
    const latest = latestAttempt(ledger) as Attempt
    expect(latest.signature).toBeDefined()
    const hash = latest.signature?.hash as string
    expect(ledger.pausedSignatures).toEqual([
      {
        hash: hashKey(hash),
        short: latest.signature?.short,
        reason: expect.stringContaining(latest.signature?.short as string),
        pausedAt: '2026-03-04T07:27:00.000Z',
        iterationId: '2026-03-04T07:00:00.000Z/3f9c2ab11111',
        resetAt: null,
        resetBy: null
      }
    ])
    expect(pausedSignatureOf(ledger, hash)).toBeDefined()
    expect(LedgerSchema.parse(ledger)).toEqual(ledger)
    // An open v1 iteration had not paused: nothing to remember.
    expect(migrate(v1Open).pausedSignatures).toEqual([])
  })

  it('refuses a v1 block that breaks its schema, quoting the state file line', () => {
    const broken = v1Open.replace('"state":"red"', '"state":"purple"')
    const error = stateFileErrorOf(() => migrate(broken))
    expect(error.message).toMatch(
      /^state file coverage\.md line \d+ .*the ledger is invalid at attempts\.0\.state/
    )
    expect(error.lineText).toContain('"state":"purple"')
    expect(error.line).toBe(broken.split('\n').findIndex((l) => l.includes('"purple"')) + 1)
  })
})

/** The ledger file with one Machine State write, then `edit` applied to its text by hand. */
function handEdited(edit: (text: string) => string): string {
  const ledger = withStateWrite(
    redAttempts([sig('a')]),
    { machineState: { lastRun: '2026-03-01T12:00:00.000Z', bestMetric: '0.8730' } },
    START
  )
  const text = serializeLedger({ ...ledger, revision: ledger.revision + 1 })
  const edited = edit(text)
  expect(edited).not.toBe(text)
  return edited
}

describe('Machine State writes in the ledger file', () => {
  it.each([
    ['lastRun', '"2026-03-01T12:00:00.000Z"', '"yesterday"', /writes\.0\.machineState\.lastRun/],
    ['lastRun', '"2026-03-01T12:00:00.000Z"', '1e300', /writes\.0\.machineState\.lastRun/],
    ['bestMetric', '"0.8730"', '"fast"', /writes\.0\.machineState\.bestMetric/]
  ])(
    'refuse a hand-edited %s of %s → %s as a schema error naming the file and line',
    (field, from, to, path) => {
      const text = handEdited((t) => t.replace(`"${field}": ${from}`, `"${field}": ${to}`))
      const error = stateFileErrorOf(() => parseLedgerFile(text, SOURCE))
      expect(error.message).toContain(SOURCE)
      expect(error.message).toMatch(path)
      expect(error.lineText).toContain(`"${field}"`)
    }
  )

  it('accept what the action writes, and project it', () => {
    const text = handEdited((t) => t.replace('"0.8730"', '0.87'))
    const ledger = parseLedgerFile(text, SOURCE)
    expect(ledger.writes[0]?.machineState).toEqual({
      lastRun: '2026-03-01T12:00:00.000Z',
      bestMetric: 0.87
    })
    const projected = projectStateFile(createStateFile('perf'), ledger, {
      program: 'perf',
      maxBytes: 30_720
    })
    expect(readMachineState(projected)).toMatchObject({
      lastRun: '2026-03-01T12:00:00Z',
      bestMetric: 0.87
    })
  })
})

describe('pause kinds in an older ledger file', () => {
  it('a pause reason this action did not write gets no kind; other writes are kept as they are', () => {
    let ledger = withStateWrite(
      redAttempts([sig('a')]),
      { machineState: { lastRun: '2026-03-01T12:00:00.000Z' } },
      START
    )
    ledger = withStateWrite(
      { ...ledger, revision: ledger.revision + 1 },
      { machineState: { paused: true, pauseReason: 'manual hold' } },
      START
    )
    ledger = { ...ledger, revision: ledger.revision + 1 }
    const read = parseLedgerFile(serializeLedger(ledger), SOURCE)
    expect(read.writes).toEqual(ledger.writes)
    expect(read.writes.map((w) => w.pauseKind)).toEqual([undefined, undefined])
  })
})
