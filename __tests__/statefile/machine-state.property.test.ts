import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import {
  ledgerPointerLine,
  readLedgerPointer,
  removeCiGateSection,
  writeCiGateSection
} from '../../src/statefile/ci-gate-section.js'
import { StateFileError } from '../../src/core/state-errors.js'
import {
  readMachineState,
  readMachineStateTable,
  updateMachineState
} from '../../src/statefile/machine-state.js'
import type { MachineStatePatch } from '../../src/core/schema.js'
import { splitSections } from '../../src/core/text/lines.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'
import { linesWithEol } from './helpers.js'

// ---------------------------------------------------------------------------------------
// A generated state file: random human text around a Machine State table whose rows (known
// and unknown, in any order, with any padding) are recorded with the values they hold.

interface KnownRow {
  label: string
  key: string
  cell: string
  /** What the typed view must read. */
  typed: unknown
}

type Field = keyof MachineStatePatch

const words = fc.constantFrom(
  'alpha',
  'beta',
  'fix',
  'tsc',
  'Zeta',
  'über',
  '🚀',
  '—',
  '(x)',
  'a/b',
  'k:v',
  '>',
  '#12'
)
const cleanText = fc.array(words, { minLength: 1, maxLength: 6 }).map((list) => list.join(' '))
const statusWord = fc.constantFrom('accepted', 'rejected', 'error', 'ci-fix-exhausted', 'skipped')
const epochMs = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) })
/** `—` and `-` read as empty. */
const textOrNull = (t: string): string | null => (t === '—' || t === '-' ? null : t)
const isoOf = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`

/** Cell text and typed value for each known field, or `—`/`-` for empty. */
const knownCells: Record<Field, fc.Arbitrary<[string, unknown]>> = {
  lastRun: epochMs.map((ms) => [isoOf(ms), isoOf(ms)]),
  iterationCount: fc.nat(10_000).map((n) => [String(n), n]),
  bestMetric: fc
    .double({ noNaN: true, noDefaultInfinity: true })
    .map((n) => [String(n), Number(String(n))]),
  targetMetric: fc.integer({ min: -1000, max: 1000 }).map((n) => [`${n / 100}`, n / 100]),
  metricDirection: fc.constantFrom<[string, unknown]>(['higher', 'higher'], ['Lower', 'lower']),
  branch: fc.constantFrom('autoloop/a', 'autoloop/b-2').map((b) => [`\`${b}\``, b]),
  pr: fc.nat(99_999).map((n) => [`#${n}`, n]),
  issue: fc.nat(99_999).map((n) => [`#${n}`, n]),
  paused: fc.constantFrom<[string, unknown]>(['true', true], ['false', false], ['False', false]),
  pauseReason: cleanText.map((t) => [t, textOrNull(t)]),
  completed: fc.constantFrom<[string, unknown]>(['false', false], ['TRUE', true]),
  completedReason: cleanText.map((t) => [t, textOrNull(t)]),
  consecutiveErrors: fc.nat(5).map((n) => [String(n), n]),
  recentStatuses: fc
    .array(statusWord, { minLength: 1, maxLength: 10 })
    .map((list) => [list.join(', '), list])
}

const LABELS: Record<Field, string> = {
  lastRun: 'Last Run',
  iterationCount: 'Iteration Count',
  bestMetric: 'Best Metric',
  targetMetric: 'Target Metric',
  metricDirection: 'Metric Direction',
  branch: 'Branch',
  pr: 'PR',
  issue: 'Issue',
  paused: 'Paused',
  pauseReason: 'Pause Reason',
  completed: 'Completed',
  completedReason: 'Completed Reason',
  consecutiveErrors: 'Consecutive Errors',
  recentStatuses: 'Recent Statuses'
}
const FIELDS = Object.keys(LABELS) as Field[]
const keyOf = (label: string): string => label.toLowerCase().split(' ').join('_')

const knownRow = (field: Field): fc.Arbitrary<[Field, KnownRow]> =>
  fc
    .oneof(
      { weight: 5, arbitrary: knownCells[field] },
      { weight: 1, arbitrary: fc.constantFrom<[string, unknown]>(['—', null], ['-', null]) }
    )
    .map(([cell, typed]) => [
      field,
      { label: LABELS[field], key: keyOf(LABELS[field]), cell, typed }
    ])

const unknownRow = fc
  .tuple(fc.constantFrom('Steering Issue', 'Owner', 'Schedule', 'Budget Notes'), cleanText)
  .map(([label, cell]) => ({ label, key: keyOf(label), cell }))

const padding = fc.constantFrom('', ' ', ' ', '  ', '\t')
/** Human text: emoji, pipes in prose, backticks, `#`, and sometimes a code fence or a table. */
const humanLine = fc.oneof(
  fc
    .array(
      fc.constantFrom(
        'a',
        'Z',
        ' ',
        '|',
        '`',
        '#',
        '—',
        '🚀',
        '⚙️',
        'é',
        '*',
        '-',
        ':',
        '0',
        '<!--',
        '-->'
      ),
      { maxLength: 24 }
    )
    .map((cs) => cs.join('')),
  fc.constantFrom(
    '```',
    '```ts',
    '| Area | Before | After |',
    '|---|---|---|',
    '| x | 1 | 2 |',
    '## inside a fence',
    '---',
    ''
  )
)
const humanSection = fc
  .tuple(
    fc.constantFrom(
      '📋 Program Info',
      '🎯 Current Priorities',
      '📚 Lessons Learned',
      '🔭 Notes',
      'Plain'
    ),
    fc.array(humanLine, { maxLength: 6 })
  )
  .map(([name, lines]) => [`## ${name}`, '', ...lines, '', '---', ''])
/** Text inside Machine State but outside the table: no `|`, never starting a heading. */
const machineStateProse = fc.constantFrom(
  '> 🤖 *Updated automatically — keep it accurate.*',
  '<!-- maintainers: edit freely -->',
  'Some notes: a, b and c.',
  ''
)

interface GeneratedFile {
  text: string
  eol: '\n' | '\r\n'
  known: Map<Field, KnownRow>
  unknown: Map<string, string>
  /** Index (in `linesWithEol(text)`) of each known row, and of the last table row. */
  rowLine: Map<Field, number>
  lastRowLine: number
}

const generatedFile: fc.Arbitrary<GeneratedFile> = fc
  .record({
    eol: fc.constantFrom<'\n' | '\r\n'>('\n', '\r\n'),
    bom: fc.boolean(),
    preamble: fc.array(
      humanLine.filter((line) => !line.startsWith('#')),
      { maxLength: 3 }
    ),
    before: fc.array(humanSection, { maxLength: 1 }),
    headingTail: fc.constantFrom('', ' (automation)'),
    prose: fc.array(machineStateProse, { maxLength: 2 }),
    known: fc
      .uniqueArray(fc.constantFrom(...FIELDS), { maxLength: FIELDS.length })
      .chain((fields) => fc.tuple(...fields.map(knownRow))),
    unknown: fc.uniqueArray(unknownRow, { maxLength: 3, selector: (row) => row.key }),
    order: fc.array(fc.nat(), { minLength: 20, maxLength: 20 }),
    pads: fc.array(fc.tuple(padding, padding, padding, padding), { minLength: 20, maxLength: 20 }),
    after: fc.array(humanSection, { maxLength: 4 }),
    trailing: fc.constantFrom('', 'trailing text without a newline', '\n\n')
  })
  .map((g) => {
    type Row = { field?: Field; label: string; cell: string }
    const rows: Row[] = [
      ...g.known.map(([field, row]) => ({ field, label: row.label, cell: row.cell })),
      ...g.unknown.map((row) => ({ label: row.label, cell: row.cell }))
    ]
    // A deterministic shuffle driven by `order`.
    const shuffled = rows
      .map((row, i) => ({ row, rank: g.order[i] ?? 0 }))
      .sort((a, b) => a.rank - b.rank)
      .map(({ row }) => row)
    if (shuffled.length === 0) shuffled.push({ label: 'Owner', cell: 'someone' })
    const lines: string[] = [
      '# Autoloop: generated',
      '',
      ...g.preamble,
      '',
      '---',
      '',
      ...g.before.flat(),
      `## ⚙️ Machine State${g.headingTail}`,
      '',
      ...g.prose,
      '',
      '| Field | Value |',
      '|-------|-------|'
    ]
    const rowLine = new Map<Field, number>()
    shuffled.forEach((row, i) => {
      const [a, b, c, d] = g.pads[i] ?? ['', ' ', ' ', '']
      if (row.field) rowLine.set(row.field, lines.length)
      lines.push(`|${a}${row.label}${b}|${c === '' ? ' ' : c}${row.cell}${d}|`)
    })
    const lastRowLine = lines.length - 1
    lines.push('', '---', '', ...g.after.flat())
    const text =
      (g.bom ? '\uFEFF' : '') + lines.join(g.eol) + g.eol + g.trailing.replace(/\n/g, g.eol)
    return {
      text,
      eol: g.eol,
      known: new Map(g.known),
      unknown: new Map(g.unknown.map((row) => [row.key, row.cell])),
      rowLine,
      lastRowLine
    }
  })

// ---------------------------------------------------------------------------------------
// Patches, with the cell each value must read back as (computed here, not by the code).

type PatchCase = [Field, unknown, string | null]

const patchValue: Record<Field, fc.Arbitrary<[unknown, string | null]>> = {
  lastRun: epochMs.map((ms) => [ms, isoOf(ms)]),
  iterationCount: fc.nat(1_000_000).map((n) => [n, String(n)]),
  bestMetric: fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => [n, String(n)]),
  targetMetric: fc.constantFrom<[unknown, string | null]>(
    ['0.950', '0.950'],
    [1e-7, '1e-7'],
    [-3, '-3']
  ),
  metricDirection: fc.constantFrom<[unknown, string | null]>(
    ['higher', 'higher'],
    ['lower', 'lower']
  ),
  branch: fc.constantFrom('autoloop/x', 'autoloop/y.z').map((b) => [b, `\`${b}\``]),
  pr: fc.nat(99_999).map((n) => [n, `#${n}`]),
  issue: fc.nat(99_999).map((n) => [n, `#${n}`]),
  paused: fc.boolean().map((b) => [b, String(b)]),
  pauseReason: cleanText.map((t) => [t, textOrNull(t)]),
  completed: fc.boolean().map((b) => [b, String(b)]),
  completedReason: cleanText.map((t) => [t, textOrNull(t)]),
  consecutiveErrors: fc.nat(99).map((n) => [n, String(n)]),
  recentStatuses: fc
    .array(statusWord, { minLength: 1, maxLength: 14 })
    .map((list) => [list, list.slice(-10).join(', ')])
}

const patchCase = (field: Field): fc.Arbitrary<PatchCase> =>
  fc
    .oneof(
      { weight: 6, arbitrary: patchValue[field] },
      { weight: 1, arbitrary: fc.constant<[unknown, string | null]>([null, null]) }
    )
    .map(([value, cell]) => [field, value, cell])

const patchCases = fc
  .uniqueArray(fc.constantFrom(...FIELDS), { minLength: 1, maxLength: FIELDS.length })
  .chain((fields) => fc.tuple(...fields.map(patchCase)))

const patchOf = (cases: readonly PatchCase[]): MachineStatePatch =>
  Object.fromEntries(cases.map(([field, value]) => [field, value])) as MachineStatePatch

/** Text with pipes, line breaks, tabs, controls: what a CI log could put into a pause reason. */
const dirtyText = fc
  .array(
    fc.constantFrom(
      'a',
      'B',
      ' ',
      '|',
      '\n',
      '\r\n',
      '\t',
      '\u0007',
      '\u2028',
      '`',
      '—',
      '🚀',
      '| x | y |',
      '\\|'
    ),
    { maxLength: 40 }
  )
  .map((cs) => cs.join(''))

const RUNS = { numRuns: 300 }

describe('state file properties', () => {
  it('splitSections keeps every byte, in both fence modes', () => {
    fc.assert(
      fc.property(generatedFile, fc.constantFrom('ignore', 'respect'), (file, fences) => {
        const layout = splitSections(file.text, fences)
        expect(
          layout.bom + layout.preamble + layout.sections.map((s) => s.content + s.trailer).join('')
        ).toBe(file.text)
        expect(layout.eol).toBe(file.eol)
      }),
      RUNS
    )
  })

  it('the typed view and the scheduler read the generated values', () => {
    fc.assert(
      fc.property(generatedFile, (file) => {
        const view = readMachineState(file.text)
        const reading = readLikeScheduler(file.text)
        for (const field of FIELDS) {
          const row = file.known.get(field)
          const typed = row ? row.typed : null
          if (field === 'paused' || field === 'completed') expect(view[field]).toBe(typed === true)
          else if (field === 'recentStatuses') expect(view[field]).toEqual(typed ?? [])
          else expect(view[field]).toEqual(typed)
          if (row) expect(reading.fields[row.key]).toBe(textOrNull(row.cell))
        }
        for (const [key, cell] of file.unknown) {
          expect(view.extra[key]).toBe(textOrNull(cell))
          expect(reading.fields[key]).toBe(textOrNull(cell))
        }
      }),
      RUNS
    )
  })

  it('whenever a Machine State section is accepted, the scheduler reads the same rows', () => {
    const token = fc.constantFrom(
      '|',
      '|',
      '|',
      ' ',
      '  ',
      '\t',
      '\u00a0',
      '\u2003',
      '\u001c',
      '\u0085',
      'Paused',
      'true',
      'Pause Reason',
      'x y',
      '—',
      '-',
      '---',
      ':--',
      'PR',
      '#3'
    )
    const ws = fc.constantFrom('', ' ', '  ', '\t', '\u00a0', '\u2003', '\u001c', '\u0085', '\r')
    const cell = fc.constantFrom(
      'Paused',
      'true',
      'Pause Reason',
      'x y',
      '—',
      '-',
      '---',
      ':--',
      'PR',
      '#3',
      'a\u00a0b',
      ''
    )
    const row = fc
      .tuple(ws, ws, cell, ws, ws, cell, ws, ws)
      .map(([a, b, key, c, d, value, e, f]) => `${a}|${b}${key}${c}|${d}${value}${e}|${f}`)
    const line = fc.oneof(
      { weight: 8, arbitrary: row },
      { weight: 1, arbitrary: fc.constantFrom('prose', '', '> note — ok') },
      { weight: 1, arbitrary: fc.array(token, { maxLength: 9 }).map((tokens) => tokens.join('')) }
    )
    const section = fc.array(line, { minLength: 1, maxLength: 8 })
    let accepted = 0
    fc.assert(
      fc.property(section, fc.constantFrom('\n', '\r\n'), (lines, eol) => {
        const text = [
          '# t',
          '',
          '## ⚙️ Machine State',
          '',
          '| Field | Value |',
          '|---|---|',
          ...lines,
          '',
          '## Next',
          'x | y | z'
        ].join(eol)
        let table
        try {
          table = readMachineStateTable(text)
          readMachineState(text)
        } catch (error) {
          if (error instanceof StateFileError) return
          throw error
        }
        accepted += 1
        const fields = readLikeScheduler(text).fields
        for (const [key, row] of table.byKey)
          expect({ key, value: fields[key] }).toEqual({ key, value: row.value })
        const known = new Set(FIELDS.map((field) => keyOf(LABELS[field])))
        for (const key of Object.keys(fields).filter((k) => known.has(k)))
          expect(table.byKey.has(key)).toBe(true)
      }),
      { numRuns: 1000 }
    )
    expect(accepted).toBeGreaterThan(50)
  })

  it('an update changes only the patched value cells (and adds missing rows after the table)', () => {
    fc.assert(
      fc.property(generatedFile, patchCases, (file, cases) => {
        const updated = updateMachineState(file.text, patchOf(cases))
        // The scheduler reads exactly the patch, and everything else as before.
        const before = readLikeScheduler(file.text).fields
        const after = readLikeScheduler(updated).fields
        const expected: Record<string, string | null> = { ...before }
        for (const [field, , cell] of cases) expected[keyOf(LABELS[field])] = cell
        expect(after).toEqual(expected)
        // Byte for byte: patched rows differ only inside their value cell; added rows follow the last row.
        const oldLines = linesWithEol(file.text)
        const newLines = linesWithEol(updated)
        // Missing rows are added in template order.
        const added = FIELDS.filter(
          (field) => cases.some(([f]) => f === field) && !file.rowLine.has(field)
        )
        expect(newLines).toHaveLength(oldLines.length + added.length)
        const patchedLines = new Set(
          cases.flatMap(([field]) =>
            file.rowLine.has(field) ? [file.rowLine.get(field) as number] : []
          )
        )
        oldLines.forEach((oldLine, i) => {
          const newLine = newLines[i > file.lastRowLine ? i + added.length : i] as string
          if (!patchedLines.has(i)) {
            expect(newLine).toBe(oldLine)
            return
          }
          const [oldLead, oldKey, , oldTail] = oldLine.split('|')
          const [newLead, newKey, , newTail] = newLine.split('|')
          expect([newLead, newKey, newTail]).toEqual([oldLead, oldKey, oldTail])
        })
        added.forEach((field, k) => {
          const line = newLines[file.lastRowLine + 1 + k] as string
          expect(line.split('|')[1]?.trim()).toBe(LABELS[field])
          expect(line.endsWith(file.eol)).toBe(true)
        })
        if (file.eol === '\r\n') expect(updated.replace(/\r\n/g, '')).not.toContain('\n')
      }),
      RUNS
    )
  })

  it('free text never adds a row, a pipe or a line break to the table', () => {
    fc.assert(
      fc.property(generatedFile, dirtyText, dirtyText, (file, reason, branch) => {
        const updated = updateMachineState(file.text, {
          pauseReason: reason,
          completedReason: branch,
          paused: true
        })
        const after = readLikeScheduler(updated)
        const before = readLikeScheduler(file.text)
        expect(Object.keys(after.fields).sort()).toEqual(
          [
            ...new Set([
              ...Object.keys(before.fields),
              'pause_reason',
              'completed_reason',
              'paused'
            ])
          ].sort()
        )
        for (const value of [after.fields['pause_reason'], after.fields['completed_reason']]) {
          expect(value ?? '').not.toMatch(/[|\r\n\u2028]/)
        }
        const visible = (text: string): string =>
          text
            .replace(/\|/g, '¦')
            .replace(/[\s\u2028]/g, '')
            .split('\u0007')
            .join('')
        const meant = visible(reason)
        expect(after.fields['pause_reason']).toEqual(
          meant === '' || meant === '—' || meant === '-' ? null : expect.any(String)
        )
        expect(visible(after.fields['pause_reason'] ?? '')).toBe(
          meant === '—' || meant === '-' ? '' : meant
        )
        expect(after.fields['paused']).toBe('true')
        expect(after.skipped).toBe(true)
      }),
      RUNS
    )
  })

  it('the CI Gate section is written after Machine State and never changes what the scheduler reads', () => {
    /** Brief lines: markdown an agent reads, with the characters that could break the cut. */
    const briefLine = fc.constantFrom(
      'x',
      '### a smaller heading',
      ' ## indented',
      '| a | b |',
      '```',
      '— 🚦',
      '- `key`',
      ''
    )
    const body = fc
      .tuple(fc.nat(1000), fc.array(briefLine, { maxLength: 6 }))
      .map(([revision, lines]) => [
        ledgerPointerLine({ path: 'ci-gate/generated.json', revision }),
        ...lines
      ])
    fc.assert(
      fc.property(generatedFile, body, body, (file, first, second) => {
        const once = writeCiGateSection(file.text, first)
        const twice = writeCiGateSection(once, second)
        expect(readLedgerPointer(once)?.path).toBe('ci-gate/generated.json')
        expect(readLedgerPointer(twice)).toEqual({
          path: 'ci-gate/generated.json',
          revision: Number(/revision (\d+)/.exec(second[0] as string)?.[1])
        })
        expect(readLikeScheduler(once).fields).toEqual(readLikeScheduler(file.text).fields)
        expect(readLikeScheduler(twice).fields).toEqual(readLikeScheduler(file.text).fields)
        const names = splitSections(twice, 'ignore').sections.map((s) => s.name)
        expect(names[names.findIndex((name) => name.startsWith('Machine State')) + 1]).toBe(
          'CI Gate'
        )
        // The section comes and goes without touching other bytes.
        expect(removeCiGateSection(twice)).toBe(removeCiGateSection(once))
        if (file.text.slice(file.text.indexOf('## ⚙️ Machine State')).includes('\n## ')) {
          expect(removeCiGateSection(once)).toBe(file.text)
        }
        // And the Machine State rows can still be patched around it.
        const patched = updateMachineState(twice, { paused: true })
        expect(removeCiGateSection(patched)).toBe(
          updateMachineState(removeCiGateSection(twice), { paused: true })
        )
        expect(readLikeScheduler(patched).fields['paused']).toBe('true')
      }),
      RUNS
    )
  })
})
