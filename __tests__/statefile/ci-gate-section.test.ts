import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { jsonErrorOffset } from '../../src/core/text/lines.js'
import {
  CI_GATE_HEADING,
  findCiGateSection,
  ledgerPointerLine,
  readLedgerPointer,
  readLegacyLedgerBlock,
  removeCiGateSection,
  writeCiGateSection
} from '../../src/statefile/ci-gate-section.js'
import { StateFileError } from '../../src/core/state-errors.js'
import { updateMachineState } from '../../src/statefile/machine-state.js'
import { createStateFile } from '../../src/statefile/template.js'
import { splitSections } from '../../src/core/text/lines.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'
import { fixtureText, stateFileErrorOf, toCrlf } from './helpers.js'

const POINTER = ledgerPointerLine({ path: 'ci-gate/coverage.json', revision: 7 })
const BODY = [POINTER, '🛠️ **CI is red**: fix it.', '', '- a `key`']

const sectionNames = (text: string): string[] =>
  splitSections(text, 'ignore').sections.map((section) => section.name)

/** The fixture with a CI Gate section an earlier version wrote: the ledger as fenced JSON. */
function withLegacyBlock(body: string): string {
  return fixtureText().replace(
    '## 📋 Program Info',
    `${CI_GATE_HEADING}\n\n🤖 *ledger*\n\n${body}\n\n---\n\n## 📋 Program Info`
  )
}

describe('writing the section', () => {
  it('creates it right after Machine State, with the same separator, changing nothing else', () => {
    const before = fixtureText()
    const after = writeCiGateSection(before, BODY)
    const sections = splitSections(after, 'ignore').sections
    expect(sections.map((s) => s.name).slice(0, 3)).toEqual([
      'Machine State',
      'CI Gate',
      'Program Info'
    ])
    expect(sections[1]?.content).toBe(`${CI_GATE_HEADING}\n\n${BODY.join('\n')}\n`)
    expect(sections[1]?.trailer).toBe('\n---\n\n')
    expect(readLikeScheduler(after).fields).toEqual(readLikeScheduler(before).fields)
    expect(removeCiGateSection(after)).toBe(before)
  })

  it('rewrites it whole, in place, in the file’s line endings, keeping everything else', () => {
    const first = writeCiGateSection(toCrlf(fixtureText()), BODY)
    const second = writeCiGateSection(first, [POINTER, 'second'])
    expect(second).toContain(
      `${CI_GATE_HEADING}\r\n\r\n${POINTER}\r\nsecond\r\n\r\n---\r\n\r\n## 📋 Program Info`
    )
    expect(second.replace(/\r\n/g, '')).not.toContain('\n')
    expect(removeCiGateSection(second)).toBe(toCrlf(fixtureText()))
    expect(readLikeScheduler(second).fields).toEqual(readLikeScheduler(first).fields)
    expect(sectionNames(second).filter((name) => name === 'CI Gate')).toHaveLength(1)
  })

  it('appends it when Machine State is the last section, closing Machine State first', () => {
    const text = fixtureText()
    const onlyMachineState = text.slice(0, text.indexOf('## 📋'))
    const trimmed = onlyMachineState.replace(/\n\n---\n\n$/, '\n')
    const after = writeCiGateSection(trimmed, BODY)
    expect(after.slice(trimmed.length)).toBe(`\n---\n\n${CI_GATE_HEADING}\n\n${BODY.join('\n')}\n`)
    // Machine State already closed by a rule: the section follows it directly.
    expect(writeCiGateSection(onlyMachineState, BODY).slice(onlyMachineState.length)).toMatch(
      /^## 🚦 CI Gate\n/
    )
    expect(readLikeScheduler(after).fields).toEqual(readLikeScheduler(trimmed).fields)
    expect(readLedgerPointer(after)).toEqual({ path: 'ci-gate/coverage.json', revision: 7 })
  })

  it('keeps the scheduler’s cut of Machine State where it was, and Machine State patchable', () => {
    const text = writeCiGateSection(createStateFile('coverage'), BODY)
    const patched = updateMachineState(text, { paused: true, pauseReason: 'ci-timeout' })
    expect(readLikeScheduler(patched).fields).toMatchObject({
      paused: 'true',
      pause_reason: 'ci-timeout'
    })
    // The section's own `- a key` line is not a row, and the brief is not in the cut.
    expect(Object.keys(readLikeScheduler(patched).fields)).toHaveLength(15)
    expect(findCiGateSection(patched)?.content).toBe(`${CI_GATE_HEADING}\n\n${BODY.join('\n')}\n`)
  })

  it.each([
    ['a `## ` heading', '## Fixed'],
    ['a line break', 'one\ntwo'],
    ['a carriage return', 'one\rtwo']
  ])('refuses a body line with %s: it would break the scheduler’s cut', (_name, line) => {
    expect(() => writeCiGateSection(fixtureText(), [POINTER, line])).toThrow(
      /must be one line and not a `## ` heading/
    )
  })

  it('writes nothing into a file that is not valid, and says which line', () => {
    const broken = fixtureText().replace(/\| Paused( +)\| false/, '| Paused$1| maybe')
    const error = stateFileErrorOf(() => writeCiGateSection(broken, BODY))
    expect(error.message).toMatch(/Paused must be true or false/)
    expect(stateFileErrorOf(() => removeCiGateSection(broken)).line).toBe(error.line)
  })

  it('removes nothing when there is no section', () => {
    expect(removeCiGateSection(fixtureText())).toBe(fixtureText())
  })

  it('refuses two sections, quoting the second and naming the line of the first', () => {
    const once = writeCiGateSection(fixtureText(), BODY)
    const twice = `${once}\n${CI_GATE_HEADING}\n\nmore\n`
    const first = once.split('\n').indexOf(CI_GATE_HEADING) + 1
    const error = stateFileErrorOf(() => findCiGateSection(twice))
    expect(error.message).toContain(
      `a second "${CI_GATE_HEADING}" section (the first is on line ${first})`
    )
    expect(error.line).toBe(twice.split('\n').lastIndexOf(CI_GATE_HEADING) + 1)
    expect(error.lineText).toBe(CI_GATE_HEADING)
    expect(() => writeCiGateSection(twice, BODY)).toThrow(StateFileError)
  })
})

describe('the ledger pointer', () => {
  it('is read from the section, wherever it sits in it', () => {
    const text = writeCiGateSection(fixtureText(), ['brief first', `${POINTER}  `])
    expect(readLedgerPointer(text)).toEqual({ path: 'ci-gate/coverage.json', revision: 7 })
  })

  it('is null without a section, or in a section without one', () => {
    expect(readLedgerPointer(fixtureText())).toBeNull()
    expect(readLedgerPointer(writeCiGateSection(fixtureText(), ['no pointer']))).toBeNull()
  })

  it('is not read outside the section (a human quoting it elsewhere)', () => {
    const text = fixtureText().replace(
      '## 🔭 Future Directions\n',
      `## 🔭 Future Directions\n${POINTER}\n`
    )
    expect(readLedgerPointer(text)).toBeNull()
  })

  it('round-trips any path and revision', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9._/-]{1,40}$/), fc.nat(), (path, revision) => {
        const text = writeCiGateSection(fixtureText(), [ledgerPointerLine({ path, revision })])
        expect(readLedgerPointer(text)).toEqual({ path, revision })
      }),
      { numRuns: 100 }
    )
  })
})

describe('the legacy fenced ledger block', () => {
  it('is read with the line number of its first JSON line', () => {
    const text = withLegacyBlock('```json\n{"version":1,\n"attempts":[]}\n```')
    expect(readLegacyLedgerBlock(text)).toEqual({
      json: { version: 1, attempts: [] },
      text: '{"version":1,\n"attempts":[]}\n',
      line: text.split('\n').indexOf('```json') + 2
    })
  })

  it('is null when there is no section, or the section holds no block (the current format)', () => {
    expect(readLegacyLedgerBlock(fixtureText())).toBeNull()
    expect(readLegacyLedgerBlock(writeCiGateSection(fixtureText(), BODY))).toBeNull()
  })

  it('refuses JSON it cannot parse, quoting the line JSON.parse stopped at', () => {
    const text = withLegacyBlock('```json\n{"version":1,\n  "attempts": [,]\n}\n```')
    const error = stateFileErrorOf(() => readLegacyLedgerBlock(text))
    expect(error.message).toMatch(/the CI Gate ledger is not valid JSON/)
    // Runtimes that say where JSON.parse failed get that line; others the first JSON line.
    expect(['  "attempts": [,]', '{"version":1,']).toContain(error.lineText)
    expect(error.line).toBe(text.split('\n').indexOf(error.lineText as string) + 1)
    expect(error.fix).toMatch(
      /delete the whole "## 🚦 CI Gate" section: the action writes it again/
    )
  })

  it('quotes the exact line when the runtime names a position', () => {
    // A missing colon is reported with its position on every runtime this action runs on.
    const text = withLegacyBlock('```json\n{"version":1,\n"a" 1}\n```')
    const error = stateFileErrorOf(() => readLegacyLedgerBlock(text))
    expect(error.lineText).toBe('"a" 1}')
    expect(error.line).toBe(text.split('\n').indexOf('"a" 1}') + 1)
  })

  it('refuses a block that is never closed, quoting its opening line', () => {
    const text = withLegacyBlock('```json\n{}')
    const error = stateFileErrorOf(() => readLegacyLedgerBlock(text))
    expect(error.message).toMatch(/never closed/)
    expect(error.lineText).toBe('```json')
    expect(error.line).toBe(text.split('\n').indexOf('```json') + 1)
  })
})

describe('jsonErrorOffset', () => {
  const json = '{\n  "a": 1,\n  "b": x\n}'
  it.each([
    ['a position', 'Unexpected token x in JSON at position 20', 20],
    [
      'a line and column (preferred over the position)',
      "Unexpected token 'x' at position 99 (line 3 column 8)",
      json.indexOf('x')
    ],
    ['nothing', 'Unexpected token x, "..." is not valid JSON', 0]
  ])('reads %s', (_name, message, offset) => {
    expect(jsonErrorOffset(json, new SyntaxError(message))).toBe(offset)
  })
})
