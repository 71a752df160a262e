import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import {
  completeAttempt,
  ledgerPath,
  withStateWrite,
  type Ledger,
  type StateWrite
} from '../../src/core/ledger.js'
import {
  findCiGateSection,
  ledgerPointerLine,
  readLedgerPointer,
  removeCiGateSection,
  writeCiGateSection
} from '../../src/statefile/ci-gate-section.js'
import {
  findHistoryEntry,
  isRecorded,
  prependHistoryEntry,
  recordedRuns,
  renderHistoryEntry
} from '../../src/statefile/history.js'
import { readMachineState, updateMachineState } from '../../src/statefile/machine-state.js'
import { isProjected, pendingWrites, projectStateFile } from '../../src/statefile/projection.js'
import { createStateFile } from '../../src/statefile/template.js'
import { splitSections } from '../../src/core/text/lines.js'
import { signatureOf } from '../../src/core/signature/signature.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'
import {
  MINUTE,
  START,
  begin,
  fresh,
  redAttempts,
  redVerdict,
  sha,
  sig
} from '../core/ledger-helpers.js'
import { fixtureText, stateFileErrorOf, toCrlf } from './helpers.js'

const PROGRAM = 'perf'
const OPTIONS = { program: PROGRAM, maxBytes: 30_720 }
const bytes = (text: string): number => Buffer.byteLength(text, 'utf8')

/** The ledger after `patches`, each written (and its revision bumped) as updateProgram does. */
function ledgerWithWrites(
  patches: readonly Omit<StateWrite, 'revision' | 'at'>[],
  base: Ledger = redAttempts([sig('a')])
): Ledger {
  let ledger = base
  for (const patch of patches) {
    ledger = withStateWrite(ledger, patch, START)
    ledger = { ...ledger, revision: ledger.revision + 1 }
  }
  return ledger
}

function historyWrite(runKey: string, iteration: number): Omit<StateWrite, 'revision' | 'at'> {
  return {
    machineState: { iterationCount: iteration, recentStatuses: ['accepted'] },
    historyEntry: {
      runKey,
      lines: renderHistoryEntry({
        iteration,
        outcome: 'accepted',
        at: START,
        metric: 0.9,
        previousBest: null,
        change: 'faster parser',
        reason: null,
        commit: sha(1),
        runUrl: null,
        runKey,
        fixAttempts: 1
      })
    }
  }
}

describe('projectStateFile', () => {
  it('applies the ledger’s writes, then writes the pointer and the brief after Machine State', () => {
    const ledger = ledgerWithWrites([
      { machineState: { branch: 'autoloop/perf', pr: 14 } },
      historyWrite('9001', 1)
    ])
    const before = createStateFile(PROGRAM)
    const after = projectStateFile(before, ledger, OPTIONS)
    expect(readLedgerPointer(after)).toEqual({ path: ledgerPath(PROGRAM), revision: 2 })
    expect(isProjected(after, ledger)).toBe(true)
    expect(readMachineState(after)).toMatchObject({ pr: 14, iterationCount: 1 })
    expect(findHistoryEntry(after, '9001')).toContain('### Iteration 1')
    const names = splitSections(after, 'ignore').sections.map((section) => section.name)
    expect(names.slice(0, 2)).toEqual(['Machine State', 'CI Gate'])
    const section = findCiGateSection(after)?.content ?? ''
    expect(section).toContain(ledgerPointerLine({ path: 'ci-gate/perf.json', revision: 2 }))
    expect(section).toContain('🛠️ **CI is red on `autoloop/perf`')
    // The scheduler reads what the typed view reads; the brief is not in its cut.
    expect(readLikeScheduler(after).fields).toMatchObject({ pr: '#14', iteration_count: '1' })
    expect(Object.keys(readLikeScheduler(after).fields)).toHaveLength(15)
  })

  it('is idempotent: projecting a projected file changes nothing', () => {
    const ledger = ledgerWithWrites([{ machineState: { paused: true, pauseReason: 'manual' } }])
    for (const text of [createStateFile(PROGRAM), fixtureText(), toCrlf(fixtureText())]) {
      const once = projectStateFile(text, ledger, OPTIONS)
      expect(projectStateFile(once, ledger, OPTIONS)).toBe(once)
      expect(pendingWrites(once, ledger)).toEqual([])
    }
  })

  it('changes only the owned rows and its own section (CRLF and BOM kept)', () => {
    const before = `\uFEFF${toCrlf(fixtureText())}`
    const ledger = ledgerWithWrites([{ machineState: { paused: true, pauseReason: 'manual' } }])
    const after = projectStateFile(before, ledger, OPTIONS)
    expect(after.startsWith('\uFEFF')).toBe(true)
    expect(after.replace(/\r\n/g, '')).not.toContain('\n')
    const unprojected = updateMachineState(removeCiGateSection(after), {
      paused: false,
      pauseReason: null
    })
    expect(unprojected).toBe(before)
  })

  it('re-applies the writes after the pointer’s revision: what another run’s memory push reverted comes back', () => {
    const paused = ledgerWithWrites([
      { machineState: { iterationCount: 3 } },
      { machineState: { paused: true, pauseReason: 'stuck in CI fix loop: x' } },
      historyWrite('9002', 4)
    ])
    const projected = projectStateFile(createStateFile(PROGRAM), paused, OPTIONS)
    // Another run's memory push copies its older snapshot of the file over it: revision 1.
    const reverted = projectStateFile(
      createStateFile(PROGRAM),
      { ...paused, revision: 1, writes: paused.writes.slice(0, 1) },
      OPTIONS
    )
    expect(readMachineState(reverted).paused).toBe(false)
    expect(isProjected(reverted, paused)).toBe(false)
    expect(pendingWrites(reverted, paused).map((write) => write.revision)).toEqual([2, 3])
    const repaired = projectStateFile(reverted, paused, OPTIONS)
    expect(repaired).toBe(projected)
    expect(readLikeScheduler(repaired)).toMatchObject({
      skipped: true,
      fields: { paused: 'true', iteration_count: '4' }
    })
  })

  it('leaves rows others changed since the revision it shows (a maintainer unpausing by hand)', () => {
    const ledger = ledgerWithWrites([
      { machineState: { paused: true, pauseReason: 'ci-timeout' } },
      { machineState: { iterationCount: 5 } }
    ])
    // The file shows revision 1; a maintainer then unpaused it by editing the table.
    const atOne = projectStateFile(
      createStateFile(PROGRAM),
      { ...ledger, revision: 1, writes: ledger.writes.slice(0, 1) },
      OPTIONS
    )
    const edited = updateMachineState(atOne, { paused: false, pauseReason: null, bestMetric: 1 })
    const after = projectStateFile(edited, ledger, OPTIONS)
    expect(readMachineState(after)).toMatchObject({
      paused: false,
      pauseReason: null,
      bestMetric: 1,
      iterationCount: 5
    })
  })

  it('re-applies a file that never had a pointer (a new file, or one written by hand) from the first write kept', () => {
    const ledger = ledgerWithWrites([{ machineState: { pr: 3 } }, { machineState: { issue: 4 } }])
    expect(pendingWrites(createStateFile(PROGRAM), ledger)).toHaveLength(2)
    expect(
      readMachineState(projectStateFile(createStateFile(PROGRAM), ledger, OPTIONS))
    ).toMatchObject({ pr: 3, issue: 4 })
  })

  it('never records a history entry twice, even when its write is re-applied', () => {
    const ledger = ledgerWithWrites([historyWrite('9001', 1)])
    const once = projectStateFile(createStateFile(PROGRAM), ledger, OPTIONS)
    // The pointer reverted, but the entry is still there: the write's rows again, no second entry.
    const pointerReverted = writeCiGateSection(once, [
      ledgerPointerLine({ path: ledgerPath(PROGRAM), revision: 0 })
    ])
    const again = projectStateFile(pointerReverted, ledger, OPTIONS)
    expect(again.match(/### Iteration 1 /g)).toHaveLength(1)
    expect(isRecorded(again, '9001')).toBe(true)
    expect(again).toBe(once)
  })

  it('refuses a malformed file, quoting the line, and writes nothing', () => {
    const broken = fixtureText().replace(/\| Paused( +)\| false/, '| Paused$1| maybe')
    const error = stateFileErrorOf(() =>
      projectStateFile(broken, ledgerWithWrites([{ machineState: { pr: 1 } }]), OPTIONS)
    )
    expect(error.message).toMatch(/Paused must be true or false/)
    expect(error.lineText).toContain('| Paused')
  })
})

describe('the size budget', () => {
  /** An attempt red on `count` failing tests, with the longest details the ledger keeps. */
  function redOnMany(count: number): Ledger {
    const keys = Array.from(
      { length: count },
      (_, i) =>
        `jest:tests/unit/module-${i}/behaviour.test.ts>handles case ${i} with ${'ü'.repeat(40)}`
    )
    const signature = signatureOf(keys)
    let ledger = redAttempts([sig('warm-up')])
    const began = begin(ledger, { sha: sha(1), runId: 2, now: START + 10 * MINUTE })
    ledger = completeAttempt(
      began.ledger,
      began.attempt.index,
      redVerdict(signature, START + 20 * MINUTE, {
        failingChecks: Array.from({ length: 40 }, (_, i) => ({
          name: `test (shard ${i}/40) ${'🚀'.repeat(30)}`,
          conclusion: 'failure',
          url: `https://github.com/acme/widgets/actions/runs/1351234567${i}/job/${'9'.repeat(200)}`
        })),
        errorLines: keys.map(
          (key) => `● ${key}\n  expect(received).toBe(expected) ${'€'.repeat(200)}`
        ),
        classification: {
          preExisting: keys.slice(0, 100),
          baseSha: sha('base'),
          baseNote: null,
          flaky: [{ check: 'e2e', url: null }],
          infrastructure: []
        }
      })
    )
    return ledger
  }

  /** The fixture with `entries` more iterations recorded in its history. */
  function withHistory(entries: number): string {
    let text = fixtureText()
    for (let i = 0; i < entries; i += 1) {
      const { historyEntry } = historyWrite(String(20_000 + i), 18 + i)
      if (historyEntry) text = prependHistoryEntry(text, historyEntry)
    }
    return text
  }

  it.each([
    [300, 0, 30_720],
    [800, 0, 30_720],
    [500, 60, 30_720],
    [500, 60, 12_000],
    [800, 200, 30_720]
  ])(
    '%s failing tests and %s history entries stay within %s bytes, Machine State and human sections untouched',
    (failing, entries, maxBytes) => {
      const before = withHistory(entries)
      const ledger = redOnMany(failing)
      const after = projectStateFile(before, ledger, { program: PROGRAM, maxBytes })
      expect(bytes(after)).toBeLessThanOrEqual(maxBytes)
      // The newest entry stays; every run is still known as recorded.
      if (entries > 0) {
        expect(findHistoryEntry(after, String(20_000 + entries - 1))).not.toBeNull()
        expect(recordedRuns(after)).toEqual(recordedRuns(before))
      }
      expect(readMachineState(after)).toEqual(readMachineState(before))
      expect(readLedgerPointer(after)?.revision).toBe(ledger.revision)
      const brief = findCiGateSection(after)?.content ?? ''
      expect(brief).toContain('This is fix attempt 2 of 5')
      for (const name of ['Program Info', 'Current Priorities', 'Lessons Learned']) {
        const section = (text: string) =>
          splitSections(text, 'respect').sections.find((s) => s.name === name)?.content
        expect(section(after)).toBe(section(before))
      }
    }
  )

  it('gives the brief what room is left, and says the most it can in it', () => {
    const ledger = redOnMany(300)
    const roomy = findCiGateSection(projectStateFile(fixtureText(), ledger, OPTIONS))?.content ?? ''
    const tight =
      findCiGateSection(projectStateFile(withHistory(40), ledger, { ...OPTIONS, maxBytes: 12_000 }))
        ?.content ?? ''
    expect(bytes(tight)).toBeLessThan(bytes(roomy))
    expect(roomy).toContain('**First error lines**')
    expect(tight).toContain('**Signature**')
  })

  it('any ledger size: the file stays within the budget whenever the human text leaves room', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 9_000, max: 40_000 }),
        (failing, maxBytes) => {
          const after = projectStateFile(fixtureText(), redOnMany(failing), {
            program: PROGRAM,
            maxBytes
          })
          expect(bytes(after)).toBeLessThanOrEqual(maxBytes)
        }
      ),
      { numRuns: 25 }
    )
  })
})

describe('isProjected and pendingWrites', () => {
  it('compare the pointer’s revision with the ledger’s', () => {
    const ledger = ledgerWithWrites([{ machineState: { pr: 1 } }, { machineState: { pr: 2 } }])
    const text = projectStateFile(createStateFile(PROGRAM), ledger, OPTIONS)
    expect(isProjected(text, ledger)).toBe(true)
    const newer = ledgerWithWrites([{ machineState: { pr: 3 } }], ledger)
    expect(isProjected(text, newer)).toBe(false)
    expect(pendingWrites(text, newer).map((write) => write.machineState)).toEqual([{ pr: 3 }])
    expect(isProjected(createStateFile(PROGRAM), fresh())).toBe(false)
  })
})
