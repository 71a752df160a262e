import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { completeAttempt, type Ledger } from '../../src/core/ledger.js'
import { signatureOf } from '../../src/core/signature/signature.js'
import { renderFixBrief } from '../../src/render/fix-brief.js'
import { findCiGateSection, writeCiGateSection } from '../../src/statefile/ci-gate-section.js'
import { compactHistory } from '../../src/statefile/history.js'
import { readMachineState, updateMachineState } from '../../src/statefile/machine-state.js'
import { projectStateFile } from '../../src/statefile/projection.js'
import { createStateFile } from '../../src/statefile/template.js'
import { MINUTE, START, begin, redAttempts, redVerdict, sha, sig } from '../core/ledger-helpers.js'
import { fixtureText, toCrlf, withHistory } from './helpers.js'

const PROGRAM = 'perf'
const bytes = (text: string): number => Buffer.byteLength(text, 'utf8')

/** An attempt red on `count` failing tests, with long details. */
function redOnMany(count: number): Ledger {
  const keys = Array.from(
    { length: count },
    (_, i) => `jest:tests/unit/module-${i}/behaviour.test.ts>handles case ${i} ${'ü'.repeat(30)}`
  )
  const began = begin(redAttempts([sig('warm-up')]), {
    sha: sha(1),
    runId: 2,
    now: START + 10 * MINUTE
  })
  return completeAttempt(
    began.ledger,
    began.attempt.index,
    redVerdict(signatureOf(keys), START + 20 * MINUTE, {
      failingChecks: Array.from({ length: Math.min(count, 30) }, (_, i) => ({
        name: `test (shard ${i}) ${'🚀'.repeat(20)}`,
        conclusion: 'failure',
        url: `https://github.com/acme/widgets/actions/runs/1351234567${i}/job/${'9'.repeat(100)}`
      })),
      errorLines: keys.map((key) => `● ${key} ${'€'.repeat(150)}`)
    })
  )
}

const historyOf = (text: string, entries: number): string =>
  withHistory(text, entries, (i) => ({
    iteration: 18 + i,
    at: START,
    change: `faster parser ${'x'.repeat(i % 50)}`
  }))

/**
 * The smallest the projected file can be: the section with its heading, pointer and note and
 * the shortest brief, every history entry collapsed that can be.
 */
function floorBytes(text: string, ledger: Ledger): number {
  const roomy = projectStateFile(text, ledger, { program: PROGRAM, maxBytes: 10_000_000 })
  const section = findCiGateSection(roomy)?.content ?? ''
  // Heading, blank, pointer, note, blank: the lines before the brief.
  const head = section.split(/\r?\n/).slice(2, 5)
  const machine = readMachineState(roomy)
  const brief = renderFixBrief(ledger, {
    program: PROGRAM,
    branch: machine.branch ?? `autoloop/${PROGRAM}`,
    pauseReason: machine.paused ? (machine.pauseReason ?? '') : null,
    maxBytes: 0
  })
  const shortest = writeCiGateSection(roomy, [...head, ...brief])
  return compactHistory(shortest, 0, machine.metricDirection ?? 'higher').bytes
}

describe('the projected file and state-max-bytes', () => {
  it('never exceeds the budget whenever the file with the shortest brief fits', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 20_000 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 0, max: 12_000 }),
        (failing, entries, filler, crlf, fixture, paused, extra) => {
          let text = historyOf(fixture ? fixtureText() : createStateFile(PROGRAM), entries)
          text = text.replace(
            /^## 📚 Lessons Learned.*$/mu,
            (heading) => `${heading}\n\n${'word '.repeat(filler / 5)}`
          )
          if (paused) text = updateMachineState(text, { paused: true, pauseReason: 'ci-stuck: x' })
          if (crlf) text = toCrlf(text)
          const ledger = redOnMany(failing)
          // The file with the shortest brief and every history entry it can collapse.
          const floor = floorBytes(text, ledger)
          const maxBytes = floor + extra
          const after = projectStateFile(text, ledger, { program: PROGRAM, maxBytes })
          expect(bytes(after)).toBeLessThanOrEqual(maxBytes)
          expect(findCiGateSection(after)).not.toBeNull()
        }
      ),
      { numRuns: 150 }
    )
  })

  it('gives the brief only the room the budget leaves (no fixed 3 KB when history cannot make it)', () => {
    const text = createStateFile(PROGRAM)
    const ledger = redOnMany(40)
    const floor = floorBytes(text, ledger)
    for (const extra of [0, 1, 200, 1000, 2000, 2500]) {
      const maxBytes = floor + extra
      expect(
        bytes(projectStateFile(text, ledger, { program: PROGRAM, maxBytes }))
      ).toBeLessThanOrEqual(maxBytes)
    }
  })
})
