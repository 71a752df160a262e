/**
 * The program state file as text (SPEC §6), pure: no I/O.
 *
 * The file is never re-rendered from a model. Reads locate byte ranges; writes splice new
 * text into exactly the ranges this action owns (value cells of the rows it patches, rows it
 * adds at the end of the Machine State table, and the `## 🚦 CI Gate` section) and keep
 * every other byte: BOM, CRLF or LF, headings and emoji, unknown rows, human sections.
 *
 * The Machine State section is found by the autoloop scheduler's own rule: from the first
 * `## ⚙️ Machine State` to the first `\n## ` after that heading's line. Inside it every
 * line holding a `|` must be a two-cell row `| Field | Value |` with both cells non-blank;
 * anything else would make the scheduler read rows that are not there (its row pattern
 * spans line breaks), so such a file is refused with the offending line quoted.
 */
import { StateFileError } from './errors.js'
import {
  EMPTY_CELL,
  MACHINE_STATE_FIELDS,
  MACHINE_STATE_FIELD_NAMES,
  PROGRAM_NAME_PATTERN,
  MachineStateSchema,
  fieldOfKey,
  renderCell,
  schedulerKey,
  type MachineState,
  type MachineStateField,
  type MachineStatePatch
} from './schema.js'

export const MACHINE_STATE_HEADING = '## ⚙️ Machine State'
export const CI_GATE_HEADING = '## 🚦 CI Gate'
const CI_GATE_NAME = 'CI Gate'

export type LineEnding = '\n' | '\r\n'

// ---------------------------------------------------------------------------------------
// Text helpers

/** Python's whitespace (`str.isspace`), which the scheduler's `\s` and `strip()` use. */
const PY_WS =
  '\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000'
const PY_STRIP = new RegExp(`^[${PY_WS}]+|[${PY_WS}]+$`, 'g')

function pyStrip(text: string): string {
  return text.replace(PY_STRIP, '')
}

const BOM = '\uFEFF'

/** The line ending of the first line break (`\n` when there is none). */
export function detectEol(text: string): LineEnding {
  const at = text.indexOf('\n')
  return at > 0 && text[at - 1] === '\r' ? '\r\n' : '\n'
}

interface Line {
  /** Offset of the first character. */
  start: number
  /** Offset just after the line's text (before `\r\n` or `\n`). */
  end: number
  /** Offset of the next line (after the line ending). */
  next: number
  text: string
  eol: string
}

/** The lines of `text[from, to)`; `from` must be a line start. */
function linesOf(text: string, from = 0, to = text.length): Line[] {
  const lines: Line[] = []
  let start = from
  while (start < to) {
    const nl = text.indexOf('\n', start)
    const next = nl === -1 || nl >= to ? to : nl + 1
    let end = nl === -1 || nl >= to ? to : nl
    if (end > start && text[end - 1] === '\r' && end === nl) end -= 1
    lines.push({ start, end, next, text: text.slice(start, end), eol: text.slice(end, next) })
    start = next
  }
  return lines
}

function lineNumberAt(text: string, offset: number): number {
  let line = 1
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line += 1
  }
  return line
}

function lineAt(text: string, offset: number): { line: number; lineText: string } {
  const start = text.lastIndexOf('\n', offset - 1) + 1
  const nl = text.indexOf('\n', offset)
  const end = nl === -1 ? text.length : nl
  return {
    line: lineNumberAt(text, offset),
    lineText: text
      .slice(start, end)
      .replace(/\r$/, '')
      .replace(/^\uFEFF/, '')
  }
}

function isLineStart(text: string, offset: number): boolean {
  return offset === 0 || (offset === 1 && text.startsWith(BOM)) || text[offset - 1] === '\n'
}

// ---------------------------------------------------------------------------------------
// Sections

export interface Section {
  /** Offset of the heading line in the whole text. */
  start: number
  /** Offset just after the section (the next heading, or the end of the text). */
  end: number
  /** The heading line without its line ending, e.g. `## ⚙️ Machine State`. */
  heading: string
  /** The heading without `## ` and leading emoji, e.g. `Machine State`. */
  name: string
  /** Heading and body, through the line ending of the last line that is not blank or `---`. */
  content: string
  /** What closes the section: the trailing blank lines and `---` separators. */
  trailer: string
}

export interface StateFileLayout {
  /** `\uFEFF` when the file starts with a byte order mark, else empty. */
  bom: string
  eol: LineEnding
  /** Everything before the first `## ` heading: the title, the note, separators. */
  preamble: string
  /** The first `# ` line of the preamble, without `# `. */
  title: string | null
  sections: Section[]
}

function isTrailerLine(line: string): boolean {
  const stripped = pyStrip(line)
  return stripped === '' || /^-{3,}$/.test(stripped)
}

/** Splits `raw` (a heading line and its body) into content and trailer. */
function splitTrailer(raw: string): { content: string; trailer: string } {
  const lines = linesOf(raw)
  let cut = raw.length
  for (let i = lines.length - 1; i >= 1; i -= 1) {
    const line = lines[i] as Line
    if (!isTrailerLine(line.text)) break
    cut = line.start
  }
  return { content: raw.slice(0, cut), trailer: raw.slice(cut) }
}

const LEADING_EMOJI = /^(?:\p{Extended_Pictographic}|\uFE0F|\u200D|\u20E3|\s)+/u

function sectionName(heading: string): string {
  return heading.slice(3).replace(LEADING_EMOJI, '').trim()
}

/**
 * Splits the file into preamble and `## ` sections, keeping every byte:
 * `bom + preamble + sections.map((s) => s.content + s.trailer).join('') === text`.
 * A section starts at every line beginning with `## ` (the scheduler's `\n## ` rule, which
 * does not look at code fences).
 */
export function splitSections(text: string): StateFileLayout {
  const bom = text.startsWith(BOM) ? BOM : ''
  const starts: number[] = []
  if (text.startsWith('## ', bom.length)) starts.push(bom.length)
  for (let at = text.indexOf('\n## ', bom.length); at !== -1; at = text.indexOf('\n## ', at + 1)) {
    starts.push(at + 1)
  }
  const preamble = text.slice(bom.length, starts[0] ?? text.length)
  const titleLine = linesOf(preamble).find((line) => line.text.startsWith('# '))
  const sections = starts.map((start, i) => {
    const end = starts[i + 1] ?? text.length
    const raw = text.slice(start, end)
    const heading = (linesOf(raw)[0] as Line).text
    return { start, end, heading, name: sectionName(heading), ...splitTrailer(raw) }
  })
  return {
    bom,
    eol: detectEol(text),
    preamble,
    title: titleLine ? titleLine.text.slice(2).trim() : null,
    sections
  }
}

// ---------------------------------------------------------------------------------------
// Machine State: locating the section and reading its rows

export interface MachineStateRegion {
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

export interface MachineStateRow {
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

export interface MachineStateTable {
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
export function machineStateOf(text: string, table: MachineStateTable): MachineState {
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
// Machine State: writing

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

// ---------------------------------------------------------------------------------------
// The CI Gate section (owned by this action): a note and a fenced JSON block

export interface LedgerBlock {
  /** The parsed JSON, not yet validated. */
  json: unknown
  /** 1-based line number of the first JSON line. */
  line: number
}

const LEDGER_FIX = `delete the whole "${CI_GATE_HEADING}" section (the CI fix loop of the current iteration starts over) or run the reset command`

function findCiGateSection(text: string): Section | null {
  const found = splitSections(text).sections.filter((section) => section.name === CI_GATE_NAME)
  const second = found[1]
  if (second) {
    throw new StateFileError({
      ...lineAt(text, second.start),
      reason: `a second "${CI_GATE_HEADING}" section (the first is on line ${lineNumberAt(text, (found[0] as Section).start)})`,
      fix: 'delete one of the two sections'
    })
  }
  return found[0] ?? null
}

/** Reads the JSON block of the `## 🚦 CI Gate` section, or null when there is no section. */
export function readLedgerBlock(text: string): LedgerBlock | null {
  const section = findCiGateSection(text)
  if (!section) return null
  const lines = linesOf(text, section.start, section.end)
  const open = lines.findIndex((line) => /^```json\s*$/.test(line.text))
  const close =
    open === -1 ? -1 : lines.findIndex((line, i) => i > open && /^```\s*$/.test(line.text))
  if (open === -1 || close === -1) {
    throw new StateFileError({
      ...lineAt(text, section.start),
      reason:
        open === -1
          ? 'the CI Gate section has no ```json block'
          : 'the ```json block of the CI Gate section is never closed',
      fix: LEDGER_FIX
    })
  }
  const first = lines[open + 1] as Line
  const jsonText = text.slice(first.start, (lines[close] as Line).start)
  try {
    return { json: JSON.parse(jsonText) as unknown, line: lineNumberAt(text, first.start) }
  } catch (error) {
    throw new StateFileError({
      ...lineAt(
        text,
        Math.min(jsonErrorOffset(jsonText, error) + first.start, (lines[close] as Line).start)
      ),
      reason: `the CI Gate ledger is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      fix: LEDGER_FIX
    })
  }
}

/** Where JSON.parse failed, when the runtime says (`position N`, or `line L column C`); else 0. */
function jsonErrorOffset(json: string, error: unknown): number {
  const message = String(error)
  const lineColumn = /line (\d+) column (\d+)/.exec(message)
  if (lineColumn) {
    const lineStarts = [0, ...[...json.matchAll(/\n/g)].map((match) => match.index + 1)]
    return (lineStarts[Number(lineColumn[1]) - 1] ?? 0) + Number(lineColumn[2]) - 1
  }
  const position = /position (\d+)/.exec(message)
  return position ? Number(position[1]) : 0
}

export interface LedgerBlockContent {
  /** One line for humans above the block; must not contain `|` or a line break. */
  note: string
  /** The JSON text; its lines are written with the file's line ending. */
  json: string
}

function renderCiGate(content: LedgerBlockContent, eol: LineEnding): string {
  if (/[|\r\n]/.test(content.note))
    throw new Error('internal error: the ledger note must be one line without "|"')
  const jsonLines = content.json.split(/\r?\n/)
  if (jsonLines.some((line) => line.trimStart().startsWith('```')) || content.json.includes('|')) {
    throw new Error(
      'internal error: the ledger JSON must not contain "|" nor start a line with ```'
    )
  }
  return [CI_GATE_HEADING, '', content.note, '', '```json', ...jsonLines, '```', ''].join(eol)
}

function usesRules(layout: StateFileLayout): boolean {
  return (
    /(^|\n)-{3,}[ \t]*\r?(\n|$)/.test(layout.preamble) ||
    layout.sections.some((section) => /(^|\n)[ \t]*-{3,}[ \t]*\r?(\n|$)/.test(section.trailer))
  )
}

/**
 * Writes the `## 🚦 CI Gate` section: replaces it whole (keeping its trailing separator) or,
 * when missing, creates it right after the Machine State section.
 */
export function writeLedgerBlock(text: string, content: LedgerBlockContent): string {
  readMachineState(text)
  const eol = detectEol(text)
  const rendered = renderCiGate(content, eol)
  const existing = findCiGateSection(text)
  if (existing) {
    return (
      text.slice(0, existing.start) +
      rendered +
      text.slice(existing.start + existing.content.length)
    )
  }
  const region = locateMachineState(text)
  const machineState = splitTrailer(text.slice(region.start, Math.min(region.end + 1, text.length)))
  if (region.end < text.length) {
    const trailer = machineState.trailer === '' ? eol : machineState.trailer
    return text.slice(0, region.end + 1) + rendered + trailer + text.slice(region.end + 1)
  }
  // The Machine State section is the last one: close it with a blank line (and a `---`
  // separator when the file uses them), then append.
  const lines = linesOf(text)
  const lastText = [...lines].reverse().find((line) => pyStrip(line.text) !== '') as Line
  const endsWithNewline = text.endsWith('\n')
  const blankAfter = lines[lines.length - 1] !== lastText
  let prefix = endsWithNewline ? '' : eol
  if (!(blankAfter && endsWithNewline)) prefix += eol
  if (!/^[ \t]*-{3,}[ \t]*$/.test(lastText.text) && usesRules(splitSections(text))) {
    prefix += `---${eol}${eol}`
  }
  return text + prefix + rendered
}

/** Removes the `## 🚦 CI Gate` section (heading to the next section) when there is one. */
export function removeLedgerBlock(text: string): string {
  readMachineState(text)
  const section = findCiGateSection(text)
  return section ? text.slice(0, section.start) + text.slice(section.end) : text
}

// ---------------------------------------------------------------------------------------
// A new file from the autoloop template

export interface NewStateFileOptions {
  eol?: LineEnding
  /** Values for the Machine State rows beyond the template's defaults. */
  machineState?: MachineStatePatch
}

/** A state file from the autoloop template, for a program that has none yet. */
export function createStateFile(program: string, options: NewStateFileOptions = {}): string {
  if (!PROGRAM_NAME_PATTERN.test(program)) {
    throw new RangeError(
      `invalid program name ${JSON.stringify(program)}: it must match ${PROGRAM_NAME_PATTERN}`
    )
  }
  const eol = options.eol ?? '\n'
  const defaults: MachineStatePatch = {
    lastRun: null,
    iterationCount: 0,
    bestMetric: null,
    targetMetric: null,
    metricDirection: null,
    branch: `autoloop/${program}`,
    pr: null,
    issue: null,
    paused: false,
    pauseReason: null,
    completed: false,
    completedReason: null,
    consecutiveErrors: 0,
    recentStatuses: null
  }
  const rows = MACHINE_STATE_FIELD_NAMES.map(
    (field) =>
      `| ${MACHINE_STATE_FIELDS[field].label} | ${renderCell(field, defaults[field] as PatchEntry[1])} |`
  )
  const human = (heading: string, ...body: string[]): string[] => [
    '---',
    '',
    heading,
    '',
    ...body,
    ''
  ]
  const lines = [
    `# Autoloop: ${program}`,
    '',
    '🤖 *This file is maintained by automation (the autoloop agent and autoloop-ci-gate). Maintainers may edit any section.*',
    '',
    ...human(
      MACHINE_STATE_HEADING,
      `> 🤖 *The autoloop scheduler reads this table before every run: one row per field, ${EMPTY_CELL} for an empty value, never a pipe character or a line break inside a value.*`,
      '',
      '| Field | Value |',
      '|-------|-------|',
      ...rows
    ),
    ...human(
      '## 📋 Program Info',
      '*(Goal, metric and links: filled in by the agent on its first iteration.)*'
    ),
    ...human(
      '## 🎯 Current Priorities',
      '*(None set yet: maintainers, write here what the next iterations should focus on.)*'
    ),
    ...human('## 📚 Lessons Learned', '- *(none yet)*'),
    ...human('## 🚧 Foreclosed Avenues', '- *(none yet)*'),
    ...human('## 🔭 Future Directions', '- *(none yet)*'),
    ...human('## 📊 Iteration History', 'Newest first.', '', '*(No iterations yet.)*')
  ]
  const text = lines.join(eol)
  return options.machineState ? updateMachineState(text, options.machineState) : text
}
