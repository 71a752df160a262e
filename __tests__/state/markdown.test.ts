import { describe, expect, it } from '@jest/globals'
import { StateFileError } from '../../src/state/errors.js'
import {
  CI_GATE_HEADING,
  createStateFile,
  readLedgerBlock,
  readMachineState,
  removeLedgerBlock,
  splitSections,
  updateMachineState,
  writeLedgerBlock
} from '../../src/state/markdown.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'
import {
  compactTables,
  expectSchedulerReads,
  fixtureText,
  linesWithEol,
  toCrlf
} from './helpers.js'

/** Runs `act` and returns the StateFileError it throws (failing the test if it does not). */
function stateFileErrorOf(act: () => unknown): StateFileError {
  try {
    act()
  } catch (error) {
    expect(error).toBeInstanceOf(StateFileError)
    return error as StateFileError
  }
  throw new Error('expected a StateFileError, nothing was thrown')
}

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

  it.each(variants)('splits into sections keeping every byte (%s)', (_name, variant) => {
    const text = variant(fixtureText())
    const layout = splitSections(text)
    expect(
      layout.bom + layout.preamble + layout.sections.map((s) => s.content + s.trailer).join('')
    ).toBe(text)
    expect(layout.title).toBe('Autoloop: coverage')
    expect(layout.eol).toBe(text.includes('\r\n') ? '\r\n' : '\n')
    expect(layout.sections.map((s) => s.name).slice(0, 7)).toEqual([
      'Machine State',
      'Program Info',
      'Current Priorities',
      'Lessons Learned',
      'Foreclosed Avenues',
      'Future Directions',
      'Iteration History'
    ])
    expect(layout.sections[0]?.heading).toBe('## ⚙️ Machine State')
    expect(layout.sections[0]?.trailer.replace(/\r/g, '')).toBe('\n---\n\n')
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
    expect(() => writeLedgerBlock(text, { note: 'n', json: '{}' })).toThrow(StateFileError)
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

describe('the CI Gate section', () => {
  const ledger = { note: '🤖 *ledger*', json: '{"version":1,\n"attempts":[]}' }

  it('is created right after Machine State, with the same separator', () => {
    const before = fixtureText()
    const after = writeLedgerBlock(before, ledger)
    const sections = splitSections(after).sections
    expect(sections.map((s) => s.name).slice(0, 3)).toEqual([
      'Machine State',
      'CI Gate',
      'Program Info'
    ])
    expect(sections[1]?.content).toBe(
      `${CI_GATE_HEADING}\n\n🤖 *ledger*\n\n\`\`\`json\n{"version":1,\n"attempts":[]}\n\`\`\`\n`
    )
    expect(sections[1]?.trailer).toBe('\n---\n\n')
    expect(readLedgerBlock(after)).toEqual({
      json: { version: 1, attempts: [] },
      line: lineOfJson(after)
    })
    expect(readLikeScheduler(after).fields).toEqual(readLikeScheduler(before).fields)
    expect(removeLedgerBlock(after)).toBe(before)
  })

  it('is rewritten whole, in place, keeping everything else', () => {
    const first = writeLedgerBlock(toCrlf(fixtureText()), ledger)
    const second = writeLedgerBlock(first, { note: 'second', json: '{"version":1}' })
    expect(second).toContain(
      '## 🚦 CI Gate\r\n\r\nsecond\r\n\r\n```json\r\n{"version":1}\r\n```\r\n\r\n---\r\n\r\n## 📋 Program Info'
    )
    expect(removeLedgerBlock(second)).toBe(toCrlf(fixtureText()))
    expect(readLikeScheduler(second).fields).toEqual(readLikeScheduler(first).fields)
  })

  it('is appended when Machine State is the last section', () => {
    const text = fixtureText()
    const onlyMachineState = text.slice(0, text.indexOf('## 📋'))
    const trimmed = onlyMachineState.replace(/\n\n---\n\n$/, '\n')
    const after = writeLedgerBlock(trimmed, ledger)
    expect(after.slice(trimmed.length)).toBe(
      `\n---\n\n${CI_GATE_HEADING}\n\n🤖 *ledger*\n\n\`\`\`json\n{"version":1,\n"attempts":[]}\n\`\`\`\n`
    )
    expect(writeLedgerBlock(onlyMachineState, ledger).slice(onlyMachineState.length)).toMatch(
      /^## 🚦 CI Gate\n/
    )
    expect(readLikeScheduler(after).fields).toEqual(readLikeScheduler(trimmed).fields)
    expect(readLedgerBlock(after)?.json).toEqual({ version: 1, attempts: [] })
  })

  it('refuses to write JSON that could break out of its block', () => {
    expect(() => writeLedgerBlock(fixtureText(), { note: 'n', json: '{"a":"|"}' })).toThrow(
      /must not contain/
    )
    expect(() => writeLedgerBlock(fixtureText(), { note: 'n', json: '{\n```\n}' })).toThrow(
      /must not contain/
    )
    expect(() => writeLedgerBlock(fixtureText(), { note: 'a | b', json: '{}' })).toThrow(/one line/)
  })

  it.each([
    [
      'unparseable JSON',
      '```json\n{"version":1,\n  "attempts": [,]\n}\n```',
      '  "attempts": [,]',
      /not valid JSON/
    ],
    ['no JSON block', 'just text', '## 🚦 CI Gate', /has no ```json block/],
    ['an unclosed JSON block', '```json\n{}\n', '## 🚦 CI Gate', /never closed/]
  ])('refuses %s', (_name, body, quoted, reason) => {
    const text = fixtureText().replace(
      '## 📋 Program Info',
      `## 🚦 CI Gate\n\n${body}\n\n## 📋 Program Info`
    )
    const error = stateFileErrorOf(() => readLedgerBlock(text))
    expect(error.message).toMatch(reason)
    // JSON.parse reports where it failed on newer runtimes only; older ones get the first JSON line.
    const fallback = quoted.startsWith('  ') ? '{"version":1,' : quoted
    expect([quoted, fallback]).toContain(error.lineText)
    expect(error.line).toBe(text.split('\n').indexOf(error.lineText as string) + 1)
    expect(error.fix).toMatch(
      /delete the whole "## 🚦 CI Gate" section .* or run the reset command/
    )
    expect(removeLedgerBlock(text)).not.toContain('CI Gate')
  })

  it('refuses two CI Gate sections', () => {
    const once = writeLedgerBlock(fixtureText(), ledger)
    const twice = `${once}\n## 🚦 CI Gate\n\n\`\`\`json\n{}\n\`\`\`\n`
    expect(stateFileErrorOf(() => readLedgerBlock(twice)).message).toMatch(
      /second "## 🚦 CI Gate" section \(the first is on line/
    )
  })
})

function lineOfJson(text: string): number {
  return text.split('\n').indexOf('```json') + 2
}

describe('a new file from the template', () => {
  it('has the title, the note and the sections in order', () => {
    const text = createStateFile('coverage')
    const layout = splitSections(text)
    expect(layout.title).toBe('Autoloop: coverage')
    expect(layout.preamble).toMatch(
      /^# Autoloop: coverage\n\n🤖 .*maintained by automation.*Maintainers may edit any section.*\n\n---\n\n$/
    )
    expect(layout.sections.map((s) => s.heading)).toEqual([
      '## ⚙️ Machine State',
      '## 📋 Program Info',
      '## 🎯 Current Priorities',
      '## 📚 Lessons Learned',
      '## 🚧 Foreclosed Avenues',
      '## 🔭 Future Directions',
      '## 📊 Iteration History'
    ])
    const reading = expectSchedulerReads(text, {
      last_run: null,
      iteration_count: '0',
      best_metric: null,
      target_metric: null,
      metric_direction: null,
      branch: '`autoloop/coverage`',
      pr: null,
      issue: null,
      paused: 'false',
      pause_reason: null,
      completed: 'false',
      completed_reason: null,
      consecutive_errors: '0',
      recent_statuses: null
    })
    expect(Object.keys(reading.fields)).toHaveLength(15)
    expect(reading.skipped).toBe(false)
    expect(readMachineState(text).branch).toBe('autoloop/coverage')
  })

  it('takes initial values and the line ending', () => {
    const text = createStateFile('perf.v2', {
      eol: '\r\n',
      machineState: { targetMetric: 0.95, metricDirection: 'lower', issue: 12 }
    })
    expect(text.replace(/\r\n/g, '')).not.toContain('\n')
    expectSchedulerReads(text, {
      target_metric: '0.95',
      metric_direction: 'lower',
      issue: '#12',
      branch: '`autoloop/perf.v2`'
    })
  })

  it('rejects a program name that could escape its file name', () => {
    expect(() => createStateFile('../x')).toThrow(/invalid program name/)
  })
})
