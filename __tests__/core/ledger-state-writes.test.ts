import { describe, expect, it } from '@jest/globals'
import { parseLedgerFile, serializeLedger, withStateWrite } from '../../src/core/ledger.js'
import { readMachineState } from '../../src/statefile/machine-state.js'
import { projectStateFile } from '../../src/statefile/projection.js'
import { createStateFile } from '../../src/statefile/template.js'
import { stateFileErrorOf } from '../statefile/helpers.js'
import { START, redAttempts, sig } from './ledger-helpers.js'

const SOURCE = 'ci-gate/perf.json (branch memory/autoloop)'

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
