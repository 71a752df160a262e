import { describe, expect, it } from '@jest/globals'
import { writeCiGateSection } from '../../src/statefile/ci-gate-section.js'
import { StateFileError } from '../../src/core/state-errors.js'
import { readMachineState, updateMachineState } from '../../src/statefile/machine-state.js'
import {
  compactTables,
  expectSchedulerReads,
  fixtureText,
  linesWithEol,
  stateFileErrorOf,
  toCrlf
} from './helpers.js'

const variants: Array<[string, (text: string) => string]> = [
  ['aligned tables, LF', (text) => text],
  ['aligned tables, CRLF', toCrlf],
  ['agent-style tables, LF', compactTables],
  ['agent-style tables, CRLF, with a BOM', (text) => `\uFEFF${toCrlf(compactTables(text))}`]
]

describe('reading the realistic fixture', () => {
  it.each(variants)('reads the typed Machine State (%s)', (_name, variant) => {
    const text = variant(fixtureText())
    expect(readMachineState(text)).toEqual({
      lastRun: '2026-03-04T06:12:44Z',
      iterationCount: 17,
      bestMetric: 0.8731,
      targetMetric: 0.95,
      metricDirection: null,
      branch: 'autoloop/coverage',
      pr: 214,
      issue: null,
      paused: false,
      pauseReason: null,
      completed: false,
      completedReason: null,
      consecutiveErrors: 0,
      recentStatuses: [
        'accepted',
        'rejected',
        'rejected',
        'accepted',
        'error',
        'accepted',
        'rejected',
        'accepted'
      ],
      extra: { steering_issue: '#198' }
    })
    expectSchedulerReads(text, {
      paused: 'false',
      pr: '#214',
      steering_issue: '#198',
      pause_reason: null
    })
  })
})

describe('updating Machine State rows', () => {
  it.each(variants)('changes only the value cells of the patched rows (%s)', (_name, variant) => {
    const before = variant(fixtureText())
    const after = updateMachineState(before, {
      paused: true,
      pauseReason: 'ci-fix-exhausted: tsc:TS2339:fromArrays:src/a.ts',
      iterationCount: 18,
      recentStatuses: ['accepted', 'ci-fix-exhausted']
    })
    const oldLines = linesWithEol(before)
    const newLines = linesWithEol(after)
    expect(newLines).toHaveLength(oldLines.length)
    const changed = oldLines.flatMap((line, i) => (line === newLines[i] ? [] : [i]))
    expect(changed.map((i) => (oldLines[i] as string).split('|')[1]?.trim())).toEqual([
      'Iteration Count',
      'Paused',
      'Pause Reason',
      'Recent Statuses'
    ])
    for (const i of changed) {
      const [oldLead, oldKey, , ...oldRest] = (oldLines[i] as string).split('|')
      const [newLead, newKey, , ...newRest] = (newLines[i] as string).split('|')
      expect([newLead, newKey, newRest]).toEqual([oldLead, oldKey, oldRest])
    }
    const reading = expectSchedulerReads(after, {
      paused: 'true',
      pause_reason: 'ci-fix-exhausted: tsc:TS2339:fromArrays:src/a.ts',
      iteration_count: '18',
      recent_statuses: 'accepted, ci-fix-exhausted',
      steering_issue: '#198',
      best_metric: '0.8731'
    })
    expect(reading.skipped).toBe(true)
    if (before.includes('\r\n')) expect(after.replace(/\r\n/g, '')).not.toContain('\n')
    expect(after.startsWith('\uFEFF')).toBe(before.startsWith('\uFEFF'))
  })

  it('keeps an aligned column aligned when the new value fits', () => {
    const before = fixtureText()
    const after = updateMachineState(before, { pauseReason: 'manual' })
    const row = (text: string): string =>
      text.split('\n').find((line) => line.startsWith('| Pause Reason')) ?? ''
    expect(row(after)).toHaveLength(row(before).length)
    expect(row(after)).toMatch(/^\| Pause Reason {7}\| manual +\|$/)
  })

  it('adds missing rows after the last row, in the style of the table', () => {
    const before = compactTables(fixtureText())
    const after = updateMachineState(before, { metricDirection: 'higher', issue: 198 })
    const lines = after.split('\n')
    const last = lines.indexOf(
      '| Recent Statuses | accepted, rejected, rejected, accepted, error, accepted, rejected, accepted |'
    )
    expect(lines.slice(last + 1, last + 4)).toEqual([
      '| Metric Direction | higher |',
      '| Issue | #198 |',
      ''
    ])
    expect(after.replace('| Metric Direction | higher |\n| Issue | #198 |\n', '')).toBe(before)
    expectSchedulerReads(after, {
      metric_direction: 'higher',
      issue: '#198',
      steering_issue: '#198'
    })
  })

  it('pads added rows to the key column of an aligned table', () => {
    const after = updateMachineState(fixtureText(), { issue: 7 })
    expect(after).toContain('| Issue              | #7 |\n')
    expectSchedulerReads(after, { issue: '#7' })
  })

  it('adds rows with CRLF in a CRLF file', () => {
    const after = updateMachineState(toCrlf(compactTables(fixtureText())), { issue: 7 })
    expect(after).toContain('accepted |\r\n| Issue | #7 |\r\n')
    expect(after.replace(/\r\n/g, '')).not.toContain('\n')
  })

  it('never writes a pipe or a line break into a value, and writes — for empty', () => {
    const after = updateMachineState(fixtureText(), {
      pauseReason: 'stuck | in\nthe loop\r\n| Paused | false |',
      completedReason: '   ',
      branch: null
    })
    const reading = expectSchedulerReads(after, {
      pause_reason: 'stuck ¦ in the loop ¦ Paused ¦ false ¦',
      completed_reason: null,
      branch: null,
      paused: 'false'
    })
    expect(Object.keys(reading.fields).filter((key) => key.includes('paused'))).toEqual(['paused'])
    expect(after).toMatch(/\| Completed Reason +\| — +\|/)
  })

  it('keeps the last 10 recent statuses, newest last', () => {
    const statuses: string[] = Array.from({ length: 13 }, (_, i) =>
      i % 2 === 0 ? 'accepted' : 'rejected'
    )
    statuses.push('ci-fix-exhausted')
    const after = updateMachineState(fixtureText(), { recentStatuses: statuses })
    expectSchedulerReads(after, { recent_statuses: statuses.slice(-10).join(', ') })
    expect(statuses.slice(-10)).toHaveLength(10)
  })

  it('writes times as ISO UTC without milliseconds', () => {
    const after = updateMachineState(fixtureText(), { lastRun: Date.UTC(2026, 2, 5, 7, 8, 9, 456) })
    expectSchedulerReads(after, { last_run: '2026-03-05T07:08:09Z' })
  })

  it('rejects values a row cannot hold before touching the file', () => {
    expect(() => updateMachineState(fixtureText(), { iterationCount: -1 })).toThrow(RangeError)
    expect(() => updateMachineState(fixtureText(), { bestMetric: 'n/a' })).toThrow(RangeError)
    expect(() => updateMachineState(fixtureText(), { lastRun: 'yesterday' })).toThrow(RangeError)
  })

  it('leaves unknown rows, human text and tables in other sections as they were', () => {
    const before = fixtureText().replace(
      '| Steering Issue',
      '| Owner | @octocat ⚙️ 🚀 |\n| Steering Issue'
    )
    const after = updateMachineState(before, { paused: true })
    expect(after.replace(/\| Paused {13}\| true {2}/, '| Paused             | false ')).toBe(before)
    expectSchedulerReads(after, { owner: '@octocat ⚙️ 🚀', paused: 'true' })
  })
})

describe('malformed files are refused with the line quoted', () => {
  const base = compactTables(fixtureText())
  const lineOf = (text: string, needle: string): number =>
    text.split('\n').findIndex((line) => line.includes(needle)) + 1

  it.each([
    [
      'a value the schema rejects',
      base.replace('| Paused | false |', '| Paused | maybe |'),
      '| Paused | maybe |',
      /Paused must be true or false/
    ],
    [
      'a bad time',
      base.replace('2026-03-04T06:12:44Z', 'last tuesday'),
      '| Last Run | last tuesday |',
      /Last Run must be an ISO 8601 UTC time/
    ],
    [
      'a duplicated owned row',
      base.replace('| Paused | false |', '| Paused | false |\n| Paused | true |'),
      '| Paused | true |',
      /appears twice \(first on line 20\)/
    ],
    [
      'a third column',
      base.replace('| PR | #214 |', '| PR | #214 | open |'),
      '| PR | #214 | open |',
      /not a "\| Field \| Value \|" row/
    ],
    [
      'a blank value cell',
      base.replace('| Pause Reason | — |', '| Pause Reason |  |'),
      '| Pause Reason |  |',
      /Value cell of this row is blank/
    ],
    [
      'prose with a pipe',
      base.replace('> 🤖', '> use a | b here 🤖'),
      '> use a | b here',
      /not a "\| Field \| Value \|" row/
    ],
    [
      'a heading without the emoji variation selector',
      base.replace('## ⚙️ Machine State', '## ⚙ Machine State'),
      '## ⚙ Machine State',
      /not the Machine State heading/
    ],
    [
      'the heading quoted inside a line first',
      base.replace('🤖 _This file', '🤖 see ## ⚙️ Machine State _This file'),
      'see ## ⚙️ Machine State',
      /first appears inside this line/
    ],
    [
      'a second Machine State section',
      `${base}\n## ⚙️ Machine State\n\n| Paused | true |\n`,
      '## ⚙️ Machine State',
      /second Machine State section/
    ]
  ])('%s', (_name, text, quoted, reason) => {
    const error = stateFileErrorOf(() => readMachineState(text))
    expect(error.message).toMatch(reason)
    expect(error.lineText).toContain(quoted)
    const expectedLine =
      _name === 'a second Machine State section'
        ? text.split('\n').lastIndexOf('## ⚙️ Machine State') + 1
        : lineOf(text, quoted)
    expect(error.line).toBe(expectedLine)
    expect(error.message).toContain(`line ${expectedLine} ${JSON.stringify(error.lineText)}`)
    expect(error.message).toMatch(/Fix: \S/)
    expect(() => updateMachineState(text, { paused: true })).toThrow(StateFileError)
    expect(() => writeCiGateSection(text, ['brief'])).toThrow(StateFileError)
  })

  it('a Machine State heading without a table', () => {
    const text = base.replace(/\| Field[\s\S]*?\n\n---/, '---')
    const error = stateFileErrorOf(() => readMachineState(text))
    expect(error.message).toMatch(/no table under it/)
    expect(error.line).toBe(lineOf(text, '## ⚙️ Machine State'))
  })

  it('a file with no Machine State section', () => {
    const error = stateFileErrorOf(() => readMachineState('# Autoloop: x\n\n## 📋 Program Info\n'))
    expect(error.message).toMatch(/no "## ⚙️ Machine State" section.*Fix: add the section/)
    expect(error.line).toBeUndefined()
  })

  it('names the file when told where it came from', () => {
    const error = stateFileErrorOf(() =>
      readMachineState(base.replace('| Paused | false |', '| Paused | maybe |'))
    )
    expect(error.inFile('coverage.md').message).toMatch(
      /^state file coverage\.md line 20 "\| Paused \| maybe \|": /
    )
  })
})
