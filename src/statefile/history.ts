/**
 * The `## 📊 Iteration History` section of a program state file, pure (docs/state.md: "The state file").
 *
 * `record` prepends one entry per iteration (newest first), in the format the autoloop agent
 * writes its own entries in:
 *
 *     ### Iteration 18 — 2026-03-04 06:12 UTC — [Run](https://…/actions/runs/9001)
 *     <!-- autoloop-ci-gate:iteration 9001 -->
 *
 *     - **Status**: ✅ Accepted
 *     - **Change**: tests for parseRange edge cases
 *     - **Metric**: 0.8731 (previous best: 0.8612, delta: +0.0119)
 *     - **Commit**: 3f9c2ab
 *     - **CI fix attempts**: 2
 *
 * The hidden line under the heading names the workflow run (`GITHUB_RUN_ID`) that recorded
 * it. The runs recorded lately are also listed in one hidden line under the section heading
 * (`<!-- autoloop-ci-gate:recorded 9001 9000 … -->`), which is what makes `record` idempotent
 * per run even after its entry was collapsed.
 *
 * To keep the whole file under its size budget, the oldest entries are collapsed into range
 * lines at the end of the section (`- Iterations 3–17: 9 accepted, 5 rejected, 1 error; best
 * 0.84`); the newest entry, the Machine State and every other section are never touched.
 *
 * The section runs from its heading to the next `## ` heading outside a code fence (entries
 * may hold fenced code; see `core/text/lines.ts` on fences), or to the end of the file. Every
 * byte outside what changes is kept.
 */
import {
  detectEol,
  fencedLines,
  isTrailerLine,
  linesOf,
  sectionName,
  separatorBeforeAppended,
  type Line,
  type LineEnding
} from '../core/text/lines.js'
import { formatDelta, isBetter, type MetricDirection } from '../core/metric.js'

export const HISTORY_HEADING = '## 📊 Iteration History'
const HISTORY_NAME = 'Iteration History'

export type RecordedOutcome = 'accepted' | 'rejected' | 'error'

/** How many recorded run keys the hidden line keeps (newest first). */
const RECORDED_RUNS_KEPT = 30
/** A range line grows until it spans this many iterations; then a new one starts. */
export const RANGE_SPAN = 20

const RECORDED_LINE = /^<!-- autoloop-ci-gate:recorded((?: [A-Za-z0-9.-]+)*) -->[ \t]*$/
const ENTRY_MARKER = /^<!-- autoloop-ci-gate:iteration ([A-Za-z0-9.-]+) -->$/
const COLLAPSED_MARKER = '<!-- autoloop-ci-gate:collapsed -->'
const PLACEHOLDER_LINE = /^\*\(No iterations yet\.\)\*[ \t]*$/

// ---------------------------------------------------------------------------------------
// Run keys and numbers

/**
 * The hidden line that names the run an entry was recorded by: its `GITHUB_RUN_ID` (a re-run
 * of the same run, at a higher attempt, is the same run). Files written by an earlier version
 * name `<run id>.<run attempt>`; those read as their run id.
 */
function entryMarker(runKey: string): string {
  return `<!-- autoloop-ci-gate:iteration ${runKey} -->`
}

/** Whether two run keys name the same run (`9001` and the earlier form `9001.2` do). */
function sameRun(written: string, runKey: string): boolean {
  return written === runKey || written.split('.')[0] === runKey
}

// ---------------------------------------------------------------------------------------
// Entries

export interface HistoryEntry {
  iteration: number
  outcome: RecordedOutcome
  /** Epoch milliseconds. */
  at: number
  metric: number | null
  /** Best Metric before this iteration. */
  previousBest: number | null
  /** One line of markdown, already made safe by the caller. */
  change: string | null
  /** One line of markdown, already made safe by the caller (for `error`, why). */
  reason: string | null
  commit: string | null
  runUrl: string | null
  runKey: string | null
  /** CI fix attempts of the iteration (shown when above 0). */
  fixAttempts: number
}

const OUTCOME_LABEL: Record<RecordedOutcome, string> = {
  accepted: '✅ Accepted',
  rejected: '❌ Rejected',
  error: '⚠️ Error'
}

function historyDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC'
}

/** The entry's lines (heading first, no trailing blank line). */
export function renderHistoryEntry(entry: HistoryEntry): string[] {
  const heading =
    `### Iteration ${entry.iteration} — ${historyDate(entry.at)}` +
    (entry.runUrl ? ` — [Run](${entry.runUrl})` : '')
  const lines = [heading]
  if (entry.runKey) lines.push(entryMarker(entry.runKey))
  lines.push('', `- **Status**: ${OUTCOME_LABEL[entry.outcome]}`)
  if (entry.change) lines.push(`- **Change**: ${entry.change}`)
  if (entry.metric !== null) {
    const against =
      entry.previousBest === null
        ? ' (no previous best)'
        : ` (previous best: ${entry.previousBest}, delta: ${formatDelta(entry.metric, entry.previousBest)})`
    lines.push(`- **Metric**: ${entry.metric}${against}`)
  }
  if (entry.commit) lines.push(`- **Commit**: ${entry.commit.slice(0, 12)}`)
  if (entry.fixAttempts > 0) lines.push(`- **CI fix attempts**: ${entry.fixAttempts}`)
  if (entry.reason) lines.push(`- **Reason**: ${entry.reason}`)
  return lines
}

// ---------------------------------------------------------------------------------------
// Range lines

interface RangeLine {
  /** Lowest and highest iteration numbers covered; null when the entries had none. */
  from: number | null
  to: number | null
  /** How many entries were collapsed into it. */
  entries: number
  accepted: number
  rejected: number
  error: number
  other: number
  /** The best metric among the accepted entries, in the metric's direction. */
  best: number | null
}

const RANGE_RE =
  /^- (?:Iterations? (\d+)(?:–(\d+))?|(\d+) earlier entr(?:y|ies)): ([^;]*?)(?:; best (\S+))?[ \t]*$/

export function parseRangeLine(line: string): RangeLine | null {
  const match = RANGE_RE.exec(line)
  if (!match) return null
  const from = match[1] === undefined ? null : Number(match[1])
  const to = match[1] === undefined ? null : Number(match[2] ?? match[1])
  const counts = { accepted: 0, rejected: 0, error: 0, other: 0 }
  for (const part of (match[4] ?? '').matchAll(/(\d+) (accepted|rejected|errors?|other)/g)) {
    const word = (part[2] ?? '').startsWith('error') ? 'error' : (part[2] as keyof typeof counts)
    counts[word] += Number(part[1])
  }
  const total = counts.accepted + counts.rejected + counts.error + counts.other
  const best = match[5] === undefined ? null : Number(match[5])
  return {
    from,
    to,
    entries: match[3] === undefined ? Math.max(total, 1) : Number(match[3]),
    ...counts,
    best: best === null || !Number.isFinite(best) ? null : best
  }
}

export function renderRangeLine(range: RangeLine): string {
  const counts = [
    range.accepted > 0 ? `${range.accepted} accepted` : '',
    range.rejected > 0 ? `${range.rejected} rejected` : '',
    range.error > 0 ? `${range.error} error${range.error === 1 ? '' : 's'}` : '',
    range.other > 0 ? `${range.other} other` : ''
  ].filter(Boolean)
  const span =
    range.from === null || range.to === null
      ? `${range.entries} earlier entr${range.entries === 1 ? 'y' : 'ies'}`
      : range.from === range.to
        ? `Iteration ${range.from}`
        : `Iterations ${range.from}–${range.to}`
  return `- ${span}: ${counts.length > 0 ? counts.join(', ') : 'no outcome recorded'}${range.best === null ? '' : `; best ${range.best}`}`
}

/** What a collapsed entry contributes to a range line, read from its text. */
export function summariseEntry(raw: string): RangeLine {
  const heading = /^### Iteration (\d+)/.exec(raw)
  const iteration = heading ? Number(heading[1]) : null
  const statusLine = /\*\*Status\*\*:?\**:?([^\n]*)/i.exec(raw)?.[1] ?? raw.split('\n')[0] ?? ''
  const word = /\b(accepted|rejected|error)\b/i.exec(statusLine)?.[1]?.toLowerCase()
  const outcome = (word ?? 'other') as RecordedOutcome | 'other'
  const metricText = /\*\*Metric\*\*:?\**:?\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/.exec(
    raw
  )?.[1]
  const metric = metricText === undefined ? null : Number(metricText)
  return {
    from: iteration,
    to: iteration,
    entries: 1,
    accepted: outcome === 'accepted' ? 1 : 0,
    rejected: outcome === 'rejected' ? 1 : 0,
    error: outcome === 'error' ? 1 : 0,
    other: outcome === 'other' ? 1 : 0,
    best: outcome === 'accepted' && metric !== null && Number.isFinite(metric) ? metric : null
  }
}

function minOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b)
}
function maxOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b)
}

function mergeRanges(a: RangeLine, b: RangeLine, direction: MetricDirection): RangeLine {
  const best =
    a.best === null
      ? b.best
      : b.best === null || !isBetter(b.best, a.best, direction)
        ? a.best
        : b.best
  return {
    from: minOf(a.from, b.from),
    to: maxOf(a.to, b.to),
    entries: a.entries + b.entries,
    accepted: a.accepted + b.accepted,
    rejected: a.rejected + b.rejected,
    error: a.error + b.error,
    other: a.other + b.other,
    best
  }
}

function span(range: RangeLine): number {
  return range.from === null || range.to === null ? range.entries : range.to - range.from + 1
}

// ---------------------------------------------------------------------------------------
// The section

function isHistoryHeading(line: string): boolean {
  return line.startsWith('## ') && sectionName(line) === HISTORY_NAME
}

/** The parsed section, as pieces that join back into the whole file. */
interface HistoryLayout {
  eol: LineEnding
  /** Everything before the first entry: the file up to the section, its heading and intro. */
  head: string
  /** Raw entries, newest first, each with its trailing blank lines. */
  entries: string[]
  /** The collapsed block as written (from its marker to the end of the section content). */
  collapsedRaw: string
  collapsed: RangeLine[]
  /** The section's closing blank lines and `---`, and every later section. */
  tail: string
}

/** Splits the file around its history section; null when it has none. */
function layoutOf(text: string): HistoryLayout | null {
  const eol = detectEol(text)
  const lines = linesOf(text)
  const fenced = fencedLines(lines)
  const headingIndex = lines.findIndex((line, i) => !fenced[i] && isHistoryHeading(line.text))
  if (headingIndex === -1) return null
  let endIndex = lines.length
  for (let i = headingIndex + 1; i < lines.length; i += 1) {
    if (!fenced[i] && (lines[i] as Line).text.startsWith('## ')) {
      endIndex = i
      break
    }
  }
  // The closing trailer: blank lines and `---` at the end, when another section follows.
  let contentEnd = endIndex
  if (endIndex < lines.length) {
    while (contentEnd > headingIndex + 1 && isTrailerLine((lines[contentEnd - 1] as Line).text))
      contentEnd -= 1
  }
  const offset = (index: number): number =>
    index >= lines.length ? text.length : (lines[index] as Line).start
  let collapsedIndex = contentEnd
  for (let i = headingIndex + 1; i < contentEnd; i += 1) {
    if (!fenced[i] && (lines[i] as Line).text.trim() === COLLAPSED_MARKER) {
      collapsedIndex = i
      break
    }
  }
  const entryStarts: number[] = []
  for (let i = headingIndex + 1; i < collapsedIndex; i += 1) {
    if (!fenced[i] && (lines[i] as Line).text.startsWith('### ')) entryStarts.push(i)
  }
  const firstEntry = entryStarts[0] ?? collapsedIndex
  const entries = entryStarts.map((start, i) =>
    text.slice(offset(start), offset(entryStarts[i + 1] ?? collapsedIndex))
  )
  const collapsedRaw = text.slice(offset(collapsedIndex), offset(contentEnd))
  const collapsed = linesOf(collapsedRaw)
    .map((line) => parseRangeLine(line.text))
    .filter((range): range is RangeLine => range !== null)
  return {
    eol,
    head: text.slice(0, offset(firstEntry)),
    entries,
    collapsedRaw,
    collapsed,
    tail: text.slice(offset(contentEnd))
  }
}

function joinLayout(layout: HistoryLayout): string {
  return layout.head + layout.entries.join('') + layout.collapsedRaw + layout.tail
}

function renderCollapsed(ranges: readonly RangeLine[], eol: LineEnding): string {
  if (ranges.length === 0) return ''
  return [
    COLLAPSED_MARKER,
    '**Earlier iterations**, collapsed to keep this file under its size budget (newest first):',
    '',
    ...ranges.map(renderRangeLine),
    ''
  ].join(eol)
}

/** The run keys listed as recorded in the section (newest first). */
export function recordedRuns(text: string): string[] {
  const layout = layoutOf(text)
  if (!layout) return []
  for (const line of linesOf(layout.head)) {
    const match = RECORDED_LINE.exec(line.text)
    if (match) return (match[1] ?? '').trim().split(' ').filter(Boolean)
  }
  return []
}

/** Whether the workflow run `runKey` has already recorded an iteration of this file. */
export function isRecorded(text: string, runKey: string): boolean {
  return recordedRuns(text).some((written) => sameRun(written, runKey))
}

/** The text of the entry recorded by `runKey` (LF line endings, trimmed), when still there. */
export function findHistoryEntry(text: string, runKey: string): string | null {
  const entry = layoutOf(text)?.entries.find((raw) =>
    linesOf(raw).some((line) => {
      const written = ENTRY_MARKER.exec(line.text.trim())?.[1]
      return written !== undefined && sameRun(written, runKey)
    })
  )
  return entry === undefined ? null : entry.replace(/\r\n/g, '\n').trim()
}

/** The file with an empty history section appended when it has none. */
function withHistorySection(text: string): string {
  if (layoutOf(text)) return text
  const eol = detectEol(text)
  return text + separatorBeforeAppended(text) + [HISTORY_HEADING, '', 'Newest first.', ''].join(eol)
}

function withRecordedRun(head: string, runKey: string, eol: LineEnding): string {
  const lines = linesOf(head)
  const existing = lines.find((line) => RECORDED_LINE.test(line.text))
  const previous = existing
    ? (RECORDED_LINE.exec(existing.text)?.[1] ?? '').trim().split(' ').filter(Boolean)
    : []
  const keys = [runKey, ...previous.filter((key) => !sameRun(key, runKey))].slice(
    0,
    RECORDED_RUNS_KEPT
  )
  const line = `<!-- autoloop-ci-gate:recorded ${keys.join(' ')} -->`
  if (existing) {
    const lineEnd = existing.start + existing.text.length
    return head.slice(0, existing.start) + line + head.slice(lineEnd)
  }
  const heading = lines.find((line) => isHistoryHeading(line.text)) as Line
  const atEnd = heading.next === head.length && !head.endsWith('\n')
  return head.slice(0, heading.next) + (atEnd ? eol : '') + line + eol + head.slice(heading.next)
}

function withoutPlaceholder(head: string): string {
  const placeholder = linesOf(head).find((line) => PLACEHOLDER_LINE.test(line.text))
  return placeholder ? head.slice(0, placeholder.start) + head.slice(placeholder.next) : head
}

/** The head ready to be followed by an entry: ends with a blank line. */
function headBeforeEntry(head: string, eol: LineEnding): string {
  if (head.endsWith(`${eol}${eol}`) || head.endsWith('\n\n')) return head
  return head.endsWith('\n') ? head + eol : head + eol + eol
}

interface PrependOptions {
  /** The entry's lines (from `renderHistoryEntry`). */
  lines: readonly string[]
  /** Listed as recorded (the idempotency key); null outside GitHub Actions. */
  runKey: string | null
}

/**
 * Prepends an entry to the history section (created at the end of the file when missing),
 * removes the template's "no iterations yet" line, and lists the run as recorded.
 */
export function prependHistoryEntry(text: string, options: PrependOptions): string {
  const layout = layoutOf(withHistorySection(text)) as HistoryLayout
  const { eol } = layout
  let head = withoutPlaceholder(layout.head)
  if (options.runKey) head = withRecordedRun(head, options.runKey, eol)
  head = headBeforeEntry(head, eol)
  const entry = options.lines.join(eol) + eol + eol
  return joinLayout({ ...layout, head, entries: [entry, ...layout.entries] })
}

interface CompactionResult {
  text: string
  /** Entries collapsed into range lines by this call. */
  collapsed: number
  /** UTF-8 size of the result. */
  bytes: number
  /** Whether the result is within the budget (false: even collapsing everything was not enough). */
  fits: boolean
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

/**
 * Collapses the oldest history entries into range lines until the file is at most `maxBytes`
 * (UTF-8). The newest entry always stays; once it is the only one, the oldest range lines are
 * merged. Nothing outside the history section changes; a file that fits is returned as is.
 */
export function compactHistory(
  text: string,
  maxBytes: number,
  direction: MetricDirection
): CompactionResult {
  const total = byteLength(text)
  const layout = layoutOf(text)
  if (total <= maxBytes || !layout)
    return { text, collapsed: 0, bytes: total, fits: total <= maxBytes }
  const { eol } = layout
  const entries = [...layout.entries]
  const ranges = [...layout.collapsed]
  const fixed = byteLength(layout.head) + byteLength(layout.tail)
  let entryBytes = entries.reduce((sum, entry) => sum + byteLength(entry), 0)
  // The collapsed block starts after a blank line: the last entry gets one when it has none.
  const blankBefore = (): number => {
    const last = entries[entries.length - 1]
    return last !== undefined && ranges.length > 0 && !/(\r?\n){2}$/.test(last)
      ? byteLength(eol)
      : 0
  }
  const size = (): number =>
    fixed + entryBytes + byteLength(renderCollapsed(ranges, eol)) + blankBefore()
  let collapsed = 0
  while (entries.length > 1 && size() > maxBytes) {
    const oldest = entries.pop() as string
    entryBytes -= byteLength(oldest)
    collapsed += 1
    const summary = summariseEntry(oldest.replace(/\r\n/g, '\n'))
    const newest = ranges[0]
    if (newest && span(mergeRanges(newest, summary, direction)) <= RANGE_SPAN)
      ranges[0] = mergeRanges(newest, summary, direction)
    else ranges.unshift(summary)
  }
  while (ranges.length > 1 && size() > maxBytes) {
    const oldest = ranges.pop() as RangeLine
    ranges[ranges.length - 1] = mergeRanges(
      ranges[ranges.length - 1] as RangeLine,
      oldest,
      direction
    )
  }
  if (blankBefore() > 0) entries[entries.length - 1] += eol
  const result = joinLayout({ ...layout, entries, collapsedRaw: renderCollapsed(ranges, eol) })
  const bytes = byteLength(result)
  return { text: result, collapsed, bytes, fits: bytes <= maxBytes }
}
