/**
 * The `## ⚙️ Machine State` table of a program's state file, pure: read by the autoloop
 * scheduler's own rules and written by splicing value cells (docs/state.md: "The state file").
 *
 * The section is found by the scheduler's rule: from the first `## ⚙️ Machine State` to the
 * first `\n## ` after that heading's line (code fences are not looked at). Inside it every
 * line holding a `|` must be a two-cell row `| Field | Value |` with both cells non-blank;
 * anything else would make the scheduler read rows that are not there (its row pattern spans
 * line breaks), so such a file is refused with the offending line quoted. Writes change only
 * the value cells of the patched rows (and add missing rows at the table's end, in its
 * style); every other byte is kept.
 */
import { StateFileError } from '../core/state-errors.js'
import {
  EMPTY_CELL,
  MACHINE_STATE_FIELDS,
  MACHINE_STATE_FIELD_NAMES,
  MachineStateSchema,
  fieldOfKey,
  renderCell,
  schedulerKey,
  type MachineState,
  type MachineStateField,
  type MachineStatePatch
} from '../core/schema.js'
import {
  detectEol,
  isLineStart,
  lineAt,
  lineNumberAt,
  linesOf,
  pyStrip,
  type Line,
  type LineEnding
} from '../core/text/lines.js'

export const MACHINE_STATE_HEADING = '## ⚙️ Machine State'

interface MachineStateRegion {
  /** Offset of `## ⚙️ Machine State`. */
  start: number
  /** Offset of the `\n` that ends the region (the one before the next `## `), or the text length. */
  end: number
}

const NEAR_MISS_HEADING = /^#{1,6}[ \t]*[^\n]*?machine[ \t_-]*state/im

function headingFix(): string {
  return `the heading must be a line of its own reading exactly "${MACHINE_STATE_HEADING}" (the gear emoji U+2699 U+FE0F, then "Machine State"), which is the only spelling the autoloop scheduler reads`
}

/** Finds the Machine State section by the scheduler's rule; throws when it is not usable. */
export function locateMachineState(text: string): MachineStateRegion {
  const start = text.indexOf(MACHINE_STATE_HEADING)
  if (start === -1) {
    const near = NEAR_MISS_HEADING.exec(text)
    if (near) {
      throw new StateFileError({
        ...lineAt(text, near.index),
        reason: 'this heading is not the Machine State heading the scheduler reads',
        fix: headingFix()
      })
    }
    throw new StateFileError({
      reason: `there is no "${MACHINE_STATE_HEADING}" section`,
      fix: `add the section with its "| Field | Value |" table (see the autoloop template), or delete the file so that it is created again`
    })
  }
  if (!isLineStart(text, start)) {
    throw new StateFileError({
      ...lineAt(text, start),
      reason: `"${MACHINE_STATE_HEADING}" first appears inside this line, and the scheduler reads the state from there`,
      fix: `${headingFix()}; reword this line`
    })
  }
  for (let at = text.indexOf(MACHINE_STATE_HEADING, start + 1); at !== -1;) {
    if (isLineStart(text, at)) {
      throw new StateFileError({
        ...lineAt(text, at),
        reason: `a second Machine State section (the first is on line ${lineNumberAt(text, start)}); the scheduler reads only the first`,
        fix: 'merge the two sections into one'
      })
    }
    at = text.indexOf(MACHINE_STATE_HEADING, at + 1)
  }
  const headingEnd = text.indexOf('\n', start)
  if (headingEnd === -1) {
    throw new StateFileError({
      ...lineAt(text, start),
      reason: 'the Machine State heading has no table under it',
      fix: 'add the "| Field | Value |" table under the heading (see the autoloop template)'
    })
  }
  const next = text.indexOf('\n## ', headingEnd + 1)
  return { start, end: next === -1 ? text.length : next }
}

interface MachineStateRow {
  kind: 'header' | 'separator' | 'data'
  /** 1-based line number. */
  line: number
  lineStart: number
  /** Offset just after the row's text (before its line ending). */
  lineEnd: number
  eol: string
  /** The Field cell as the scheduler strips it, e.g. `Last Run`. */
  label: string
  /** The scheduler's key: `last_run`. */
  key: string
  /** The Value cell as the scheduler strips it. */
  rawValue: string
  /** `rawValue`, or null for `—`, `-` (and empty). */
  value: string | null
  /** Offsets of the text between the first and second `|`. */
  keyCell: { start: number; end: number }
  /** Offsets of the text between the second and third `|`. */
  valueCell: { start: number; end: number }
}

const SEPARATOR_CELL = /^:?-+:?$/
const SCHEDULER_SKIPPED_KEYS = new Set(['field', '---', ':---', ':---:', '---:'])
const NULL_VALUES = new Set(['\u2014', '-', ''])

const ROW_FIX =
  'keep only two-column rows "| Field | Value |" in the Machine State section (no other "|" in any cell or line there) and move other text to another section'

function readRow(text: string, line: Line): MachineStateRow {
  const where = { line: lineNumberAt(text, line.start), lineText: line.text }
  const stripped = pyStrip(line.text)
  const pipes: number[] = []
  for (let at = line.text.indexOf('|'); at !== -1; at = line.text.indexOf('|', at + 1))
    pipes.push(at)
  if (pipes.length !== 3 || !stripped.startsWith('|') || !stripped.endsWith('|')) {
    throw new StateFileError({
      ...where,
      reason:
        'this line in the Machine State section is not a "| Field | Value |" row, and the scheduler would read rows out of it',
      fix: ROW_FIX
    })
  }
  const [p1, p2, p3] = pipes as [number, number, number]
  const label = pyStrip(line.text.slice(p1 + 1, p2))
  const rawValue = pyStrip(line.text.slice(p2 + 1, p3))
  if (label === '') {
    throw new StateFileError({
      ...where,
      reason: 'the Field cell of this row is empty',
      fix: ROW_FIX
    })
  }
  if (rawValue === '') {
    throw new StateFileError({
      ...where,
      reason:
        'the Value cell of this row is blank, which the scheduler misreads as the start of another row',
      fix: `write ${EMPTY_CELL} for an empty value`
    })
  }
  const isSeparator = SEPARATOR_CELL.test(label) && SEPARATOR_CELL.test(rawValue)
  return {
    kind: isSeparator ? 'separator' : 'data',
    line: where.line,
    lineStart: line.start,
    lineEnd: line.end,
    eol: line.eol,
    label,
    key: schedulerKey(label),
    rawValue,
    value: NULL_VALUES.has(rawValue) ? null : rawValue,
    keyCell: { start: line.start + p1 + 1, end: line.start + p2 },
    valueCell: { start: line.start + p2 + 1, end: line.start + p3 }
  }
}

interface MachineStateTable {
  region: MachineStateRegion
  /** Every row of the section, in order. */
  rows: MachineStateRow[]
  /**
   * Every row the scheduler reads, by key, exactly as it reads them: all rows but those keyed
   * `Field`, `---`, `:---`, `:---:` or `---:` (so other separator rows count), a later
   * duplicate of an unknown key winning. A known field's row twice is refused.
   */
  byKey: Map<string, MachineStateRow>
}

/** Reads the rows of the Machine State table; throws a StateFileError for a malformed table. */
export function readMachineStateTable(text: string): MachineStateTable {
  const region = locateMachineState(text)
  const rows = linesOf(text, region.start, region.end)
    .filter((line) => line.text.includes('|'))
    .map((line) => readRow(text, line))
  const firstSeparator = rows.findIndex((row) => row.kind === 'separator')
  if (firstSeparator === 1) (rows[0] as MachineStateRow).kind = 'header'
  const byKey = new Map<string, MachineStateRow>()
  for (const row of rows) {
    if (SCHEDULER_SKIPPED_KEYS.has(row.label.toLowerCase())) continue
    const earlier = byKey.get(row.key)
    if (earlier && fieldOfKey(row.key)) {
      throw new StateFileError({
        line: row.line,
        lineText: text.slice(row.lineStart, row.lineEnd),
        reason: `the "${row.label}" row appears twice (first on line ${earlier.line}), and the scheduler only reads the last one`,
        fix: 'delete one of the two rows'
      })
    }
    byKey.set(row.key, row)
  }
  if (!rows.some((row) => row.kind === 'data')) {
    throw new StateFileError({
      ...lineAt(text, region.start),
      reason: 'the Machine State heading has no table under it',
      fix: 'add the "| Field | Value |" table under the heading (see the autoloop template)'
    })
  }
  return { region, rows, byKey }
}

const FIELD_EXAMPLES: Record<MachineStateField, string> = {
  lastRun: 'a UTC time such as 2026-01-15T12:00:00Z',
  iterationCount: 'a whole number such as 12',
  bestMetric: 'a number such as 0.87',
  targetMetric: 'a number such as 0.95',
  metricDirection: 'higher or lower',
  branch: 'a branch name such as `autoloop/my-program`',
  pr: 'a pull request number such as #12',
  issue: 'an issue number such as #7',
  paused: 'true or false',
  pauseReason: 'one line of text',
  completed: 'true or false',
  completedReason: 'one line of text',
  consecutiveErrors: 'a whole number such as 0',
  recentStatuses: 'comma-separated words such as accepted, rejected'
}

function typedValue(
  text: string,
  field: MachineStateField,
  row: MachineStateRow | undefined
): unknown {
  if (row === undefined || row.value === null) return null
  const parsed = MACHINE_STATE_FIELDS[field].cell.safeParse(row.value)
  if (parsed.success) return parsed.data
  throw new StateFileError({
    line: row.line,
    lineText: text.slice(row.lineStart, row.lineEnd),
    reason: `${MACHINE_STATE_FIELDS[field].label} ${parsed.error.issues[0]?.message ?? 'is not valid'}`,
    fix: `write ${FIELD_EXAMPLES[field]} in the Value column, or ${EMPTY_CELL} for empty`
  })
}

/** The typed view of a parsed table. */
function machineStateOf(text: string, table: MachineStateTable): MachineState {
  const view: Record<string, unknown> = {}
  for (const field of MACHINE_STATE_FIELD_NAMES) {
    view[field] = typedValue(
      text,
      field,
      table.byKey.get(schedulerKey(MACHINE_STATE_FIELDS[field].label))
    )
  }
  const extra: Record<string, string | null> = {}
  for (const [key, row] of table.byKey) {
    if (!fieldOfKey(key) && row.kind === 'data') extra[key] = row.value
  }
  return MachineStateSchema.parse({
    ...view,
    paused: view.paused === true,
    completed: view.completed === true,
    recentStatuses: view.recentStatuses ?? [],
    extra
  })
}

/** Reads and validates the Machine State table. Throws a StateFileError quoting a bad line. */
export function readMachineState(text: string): MachineState {
  return machineStateOf(text, readMachineStateTable(text))
}

// ---------------------------------------------------------------------------------------
// Writing

interface Splice {
  at: number
  remove: number
  insert: string
}

function applySplices(text: string, splices: Splice[]): string {
  let result = text
  for (const splice of [...splices].sort((a, b) => b.at - a.at)) {
    result = result.slice(0, splice.at) + splice.insert + result.slice(splice.at + splice.remove)
  }
  return result
}

function leadingSpace(cell: string): string {
  return /^[ \t]*/.exec(cell)?.[0] ?? ''
}

/** A cell with new content, keeping its padding (and its width when the content fits). */
function restyleCell(rawCell: string, content: string): string {
  const body = leadingSpace(rawCell) + content
  return /[ \t]$/.test(rawCell) ? body.padEnd(Math.max(rawCell.length, body.length + 1), ' ') : body
}

/**
 * A new row in the style of the table's last data row: its indent and cell padding, and the
 * key column's width when every data row has the same (an aligned table).
 */
function rowLike(text: string, table: MachineStateTable, label: string, value: string): string {
  const dataRows = table.rows.filter((row) => row.kind === 'data')
  const model = dataRows[dataRows.length - 1] as MachineStateRow
  const line = text.slice(model.lineStart, model.lineEnd)
  const indent = /^[ \t]*/.exec(line)?.[0] ?? ''
  const keyCell = text.slice(model.keyCell.start, model.keyCell.end)
  const valueCell = text.slice(model.valueCell.start, model.valueCell.end)
  const keyWidth = (row: MachineStateRow): number => row.keyCell.end - row.keyCell.start
  const aligned = dataRows.length > 1 && dataRows.every((row) => keyWidth(row) === keyWidth(model))
  const trail = (cell: string): string => (/[ \t]$/.test(cell) ? ' ' : '')
  const newKeyCell = aligned
    ? restyleCell(keyCell, label)
    : leadingSpace(keyCell) + label + trail(keyCell)
  return `${indent}|${newKeyCell}|${leadingSpace(valueCell)}${value}${trail(valueCell)}|`
}

type PatchEntry = [MachineStateField, NonNullable<MachineStatePatch[MachineStateField]> | null]

function patchEntries(patch: MachineStatePatch): PatchEntry[] {
  return MACHINE_STATE_FIELD_NAMES.filter((field) => patch[field] !== undefined).map(
    (field) => [field, patch[field] as PatchEntry[1]] as PatchEntry
  )
}

/**
 * Writes `patch` into the Machine State table. Only the value cells of the patched rows
 * change; patched rows missing from the table are added after its last row, in its style.
 * The file must be valid first (a StateFileError is thrown otherwise, and nothing is written).
 */
export function updateMachineState(text: string, patch: MachineStatePatch): string {
  const table = readMachineStateTable(text)
  machineStateOf(text, table)
  const splices: Splice[] = []
  const added: string[] = []
  const last = table.rows[table.rows.length - 1] as MachineStateRow
  const eol = last.eol === '' ? detectEol(text) : (last.eol as LineEnding)
  const expected = new Map<string, string>()
  for (const [field, value] of patchEntries(patch)) {
    const label = MACHINE_STATE_FIELDS[field].label
    const cell = renderCell(field, value)
    expected.set(schedulerKey(label), cell)
    const row = table.byKey.get(schedulerKey(label))
    if (row) {
      const rawCell = text.slice(row.valueCell.start, row.valueCell.end)
      splices.push({
        at: row.valueCell.start,
        remove: rawCell.length,
        insert: restyleCell(rawCell, cell)
      })
    } else {
      added.push(rowLike(text, table, label, cell))
    }
  }
  if (added.length > 0) {
    splices.push({ at: last.lineEnd, remove: 0, insert: added.map((row) => eol + row).join('') })
  }
  const updated = applySplices(text, splices)
  const reread = readMachineStateTable(updated)
  for (const [key, cell] of expected) {
    if (reread.byKey.get(key)?.rawValue !== cell) {
      throw new Error(`internal error: the Machine State row ${key} did not read back as ${cell}`)
    }
  }
  return updated
}
