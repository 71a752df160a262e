/**
 * The one line-and-section model of state file text, pure. Every module that reads or edits
 * a program's state file (Machine State, the CI Gate section, the Iteration History) splits
 * it with these functions and splices its own byte ranges, so every other byte is kept.
 *
 * Code fences are an explicit choice (`fences`):
 * - `'ignore'`: a section starts at every line beginning with `## `, inside a fence or not.
 *   This is the autoloop scheduler's own rule (it cuts Machine State at the first `\n## `), so
 *   Machine State and the CI Gate section, which the scheduler's cut decides, use it.
 * - `'respect'`: a `## ` line inside a fenced code block is text. The Iteration History is
 *   written by humans and the agent and holds fenced code, so a quoted heading there must not
 *   end the section.
 */

export type LineEnding = '\n' | '\r\n'
export type FenceMode = 'ignore' | 'respect'

export const BOM = '\uFEFF'

/** Python's whitespace (`str.isspace`), which the scheduler's `\s` and `strip()` use. */
const PY_WS =
  '\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000'
const PY_STRIP = new RegExp(`^[${PY_WS}]+|[${PY_WS}]+$`, 'g')

/** Python's `str.strip()`: what the scheduler does to every cell. */
export function pyStrip(text: string): string {
  return text.replace(PY_STRIP, '')
}

/** The line ending of the first line break (`\n` when there is none). */
export function detectEol(text: string): LineEnding {
  const at = text.indexOf('\n')
  return at > 0 && text[at - 1] === '\r' ? '\r\n' : '\n'
}

export interface Line {
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
export function linesOf(text: string, from = 0, to = text.length): Line[] {
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

const FENCE = /^ {0,3}(`{3,}|~{3,})/

/** For each line, whether it is inside a fenced code block (fence lines count as inside). */
export function fencedLines(lines: readonly Pick<Line, 'text'>[]): boolean[] {
  const inside: boolean[] = []
  let open: string | null = null
  for (const line of lines) {
    const fence = FENCE.exec(line.text)?.[1]
    if (open === null) {
      if (fence) open = fence
      inside.push(fence !== undefined)
    } else {
      inside.push(true)
      if (
        fence &&
        fence[0] === open[0] &&
        fence.length >= open.length &&
        line.text.trim() === fence
      )
        open = null
    }
  }
  return inside
}

export function lineNumberAt(text: string, offset: number): number {
  let line = 1
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line += 1
  }
  return line
}

/** The line holding `offset`, for error messages: its number and its text. */
export function lineAt(text: string, offset: number): { line: number; lineText: string } {
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

export function isLineStart(text: string, offset: number): boolean {
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

interface StateFileLayout {
  /** `\uFEFF` when the file starts with a byte order mark, else empty. */
  bom: string
  eol: LineEnding
  /** Everything before the first `## ` heading: the title, the note, separators. */
  preamble: string
  /** The first `# ` line of the preamble, without `# `. */
  title: string | null
  sections: Section[]
}

/** A line that only closes a section: blank, or a `---` rule. */
export function isTrailerLine(line: string): boolean {
  const stripped = pyStrip(line)
  return stripped === '' || /^-{3,}$/.test(stripped)
}

/** Splits `raw` (a heading line and its body) into content and trailer. */
export function splitTrailer(raw: string): { content: string; trailer: string } {
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

/** `## ⚙️ Machine State` → `Machine State`. */
export function sectionName(heading: string): string {
  return heading.slice(3).replace(LEADING_EMOJI, '').trim()
}

/**
 * Splits the file into preamble and `## ` sections, keeping every byte:
 * `bom + preamble + sections.map((s) => s.content + s.trailer).join('') === text`.
 */
export function splitSections(text: string, fences: FenceMode): StateFileLayout {
  const bom = text.startsWith(BOM) ? BOM : ''
  const lines = linesOf(text, bom.length)
  const fenced = fences === 'respect' ? fencedLines(lines) : lines.map(() => false)
  const starts = lines
    .filter((line, i) => line.text.startsWith('## ') && !fenced[i])
    .map((line) => line.start)
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

/** Whether the file separates its sections with `---` rules. */
export function usesRules(text: string): boolean {
  const layout = splitSections(text, 'ignore')
  return (
    /(^|\n)-{3,}[ \t]*\r?(\n|$)/.test(layout.preamble) ||
    layout.sections.some((section) => /(^|\n)[ \t]*-{3,}[ \t]*\r?(\n|$)/.test(section.trailer))
  )
}

/**
 * What goes between the end of `text` and a section appended after it: a line break when the
 * text does not end with one, a blank line, and a `---` rule when the file uses them.
 */
export function separatorBeforeAppended(text: string): string {
  const eol = detectEol(text)
  if (text.trim() === '') return text === '' || text.endsWith('\n') ? '' : eol
  const lines = linesOf(text)
  const lastText = [...lines].reverse().find((line) => pyStrip(line.text) !== '') as Line
  const endsWithNewline = text.endsWith('\n')
  const blankAfter = lines[lines.length - 1] !== lastText
  let prefix = endsWithNewline ? '' : eol
  if (!(blankAfter && endsWithNewline)) prefix += eol
  if (!/^[ \t]*-{3,}[ \t]*$/.test(lastText.text) && usesRules(text)) prefix += `---${eol}${eol}`
  return prefix
}

/** Where JSON.parse failed, when the runtime says (`position N`, or `line L column C`); else 0. */
export function jsonErrorOffset(json: string, error: unknown): number {
  const message = String(error)
  const lineColumn = /line (\d+) column (\d+)/.exec(message)
  if (lineColumn) {
    const lineStarts = [0, ...[...json.matchAll(/\n/g)].map((match) => match.index + 1)]
    return (lineStarts[Number(lineColumn[1]) - 1] ?? 0) + Number(lineColumn[2]) - 1
  }
  const position = /position (\d+)/.exec(message)
  return position ? Number(position[1]) : 0
}
