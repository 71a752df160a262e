/**
 * Failure extraction (see the README, Failure signatures): one pass over a log's lines through
 * every parser, then the findings by precedence:
 * 1. what the tool parsers found (test ids, diagnostic codes, lint rules);
 * 2. else the wrappers: the runner's own `##[error]` lines, failed Gradle tasks, MSBuild errors;
 * 3. else the first line that reads as an error in the step that failed, masked: `error:<text>`;
 * 4. else the step trailer `Process completed with exit code N.` as `gha:exit code N`.
 */
import {
  bytesToText,
  byteStringPattern,
  cleanLine,
  DEFAULT_MAX_LINE_LENGTH,
  foreignPrefixLength,
  ghCopyPrefixLength,
  LineBlockSplitter,
  runnerMarker,
  type LineReaderOptions
} from './lines.js'
import { detailLine } from './details.js'
import { buildKey, maskMessage, normalisePathsIn } from './normalise.js'
import { anywhereFragments, lineStartFragments, PARSERS } from './parsers/index.js'
import { EXIT_CODE_TRAILER } from './parsers/runner.js'
import type { Finding, ToolParser } from './types.js'

type ExtractOptions = LineReaderOptions & ExtractTuning

export interface ExtractResult {
  /** De-duplicated by key, in the order first seen per parser. */
  findings: Finding[]
  /** Reading stopped at the byte cap: the findings come from the first `bytesRead` bytes only. */
  truncated: boolean
  bytesRead: number
}

/**
 * A line that reads as an error in a tool nobody parses: `error: …`, `ERROR …`, `fatal: …`,
 * `[ERROR] …`, `npm error …`, `SomeError: …`, `SomeException: …`.
 */
const ERROR_LINE =
  /^\s*(?:\[?(?:error|ERROR|Error|fatal|FATAL|Fatal)\]?(?::|!|\s|$)|npm (?:ERR!|error) |[A-Z][\w.]{0,100}(?:Error|Exception)(?: \[\w+\])?: |[\w.+/-]{1,60}: [^\n]{0,300}?(?:cannot |can't |No such file|Permission denied|command not found))/
/** Lines of the error family that only wrap another failure. */
const WRAPPER_LINE =
  /^\s*(?:npm (?:ERR!|error) (?:code|errno|A complete log|command|path|Lifecycle|\s*$)|Error: Process completed with exit code|(?:error|Error:?) Command failed with exit code|(?:error|ERROR):? (?:during build|failed to (?:solve|build))|.{0,80}ELIFECYCLE|ERR_PNPM_|Error: Command "[^"]{1,200}" exited with|\[ERROR\] (?:-> \[Help|Re-run Maven|To see the full stack|For more information|Failed to execute goal|BUILD FAILURE|Tests run:|There (?:was|were) |$)|#\d+ ERROR: process |ERROR: failed to solve: |make(?:\[\d+\])?: \*\*\* )/
/**
 * Words that make a line an error without saying what failed; a candidate for the fallback that
 * has fewer than MIN_SUBSTANCE letters besides them is a banner (`====== ERRORS ======`, `*** Error
 * ***`, `FAILED!`), not a failure.
 */
const BANNER_WORDS = /\b(?:errors?|fatal|fail(?:ed|ures?)?|build|npm|err)\b/gi
const MIN_SUBSTANCE = 4
/** The lines of the runner's step header (the script, `shell:`, `env:` and the variables). */
const STEP_HEADER_LINE = /^(?:shell: |env:$| {2}[A-Za-z_][\w]*: )/
/** The runner echoes a step's script in its header in this colour (ESC[36;1m). */
const STEP_SCRIPT_COLOUR = '\u001b[36;1m'

/**
 * What the fallback reads as an error: `Error:`, `ERROR`, `SomeError [CODE]:`, `…Exception`,
 * fatal, and a shell or coreutils message (`<program>: … cannot …`, `No such file`, …).
 */
const FALLBACK_ANYWHERE = [
  'Error[:/ ]',
  'RROR',
  'Exception',
  // Shell and coreutils failures, `ls: cannot access 'x': No such file or directory`: one
  // distinctive fragment, since every fragment here is searched over the whole log.
  'No such file or directory'
]
const FALLBACK_LINE_START = ['\\[?(?:fatal|FATAL|Fatal)']
/**
 * The parsers' triggers, written for text and rewritten for byte strings (one character per
 * byte). `anywhere` is searched over a whole block at once; `lineStart` is tried where each
 * line's text begins (after a BOM, a runner timestamp, colour codes and blanks).
 */
const ANYWHERE_SOURCE = byteStringPattern(
  [...new Set([...anywhereFragments(), ...FALLBACK_ANYWHERE])].join('|')
)
const LINE_START_SOURCE = [...lineStartFragments(), ...FALLBACK_LINE_START].join('|')
/** The line-start triggers for one cleaned line. */
const LINE_START = new RegExp(`^[ \\t]*(?:${LINE_START_SOURCE})`)

/**
 * A line of a job log that the runner stamped (after a BOM and a `gh run view --log` copy's job
 * and step names). A multi-line annotation (`::error::a%0Ab`) is written as one stamped
 * `##[error]a` line and unstamped lines for the rest.
 */
const STAMPED = /^\ufeff?(?:[^\t\n]{0,300}\t[^\t\n]{0,300}\t\ufeff?)?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/

/** The first lines of a log, where a `gh run view --log` copy's prefix is looked for. */
const GH_COPY_LINES = 20

/** Options for tests: `everyLine` feeds every line to every parser (no trigger prefilter). */
interface ExtractTuning {
  everyLine?: boolean
}

/**
 * One log's pass. Lines arrive in blocks of byte strings. One search over the block finds the
 * `anywhere` triggers, and a sticky match at each line's start the `lineStart` ones; a noise
 * line is never cut out of its block, decoded or cleaned. Lines that match, and every line
 * while a parser is inside a multi-line block, are decoded, cleaned and fed.
 */
class Extraction {
  private readonly parsers: ToolParser[] = PARSERS.map((entry) => entry.create())
  /** Parsers inside a multi-line block: they get every line. */
  private active: ToolParser[] = []
  /** An active parser reads a test's captured output: no other parser may read those lines. */
  private capturing = false
  /** The previous line: its block and range (cut out only when a parser needs it). */
  private previousBlock = ''
  private previousStart = 0
  private previousEnd = 0
  /** The unknown-tool fallback: the first error line of the log, and of the current step. */
  private firstErrorLine: Finding | undefined
  private stepErrorLine: Finding | undefined
  /** The first error line of a step that failed (its exit-code trailer came after it). */
  private failedStepErrorLine: Finding | undefined
  private exitCode: string | undefined
  /** Inside the runner's step header (`##[group]Run …` up to `##[endgroup]`). */
  private inStepHeader = false
  /** After a stamped annotation line (`##[error]…`): its unstamped lines are its message's. */
  private inAnnotation = false
  /** The line being fed is the last one and no newline ended it: it may be cut. */
  private unterminated = false
  private readonly anywhere = new RegExp(ANYWHERE_SOURCE, 'g')
  private readonly lineStart = new RegExp(`(?:${byteStringPattern(LINE_START_SOURCE)})`, 'y')
  private readonly maxLineLength: number
  private readonly everyLine: boolean
  /** The log is a `gh run view --log` copy: its lines start with the job's and step's names. */
  private ghCopy = false
  private linesSeen = 0
  step: string | undefined

  constructor(options: ExtractOptions = {}) {
    this.maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH
    this.everyLine = options.everyLine === true
  }

  /** Takes a block of whole lines as a byte string, each line ending with `\n`. */
  readonly pushBlock = (block: string, unterminated = false): void => {
    const length = block.length
    const anywhere = this.anywhere
    const lineStart = this.lineStart
    this.unterminated = unterminated
    let nextAnywhere = -1
    let pos = 0
    while (pos < length) {
      const end = block.indexOf('\n', pos)
      if (nextAnywhere < pos) {
        anywhere.lastIndex = pos
        nextAnywhere = anywhere.exec(block)?.index ?? length
      }
      // A `gh run view --log` copy shows itself on its first lines (see pushLine for the rest).
      if (!this.ghCopy && this.linesSeen < GH_COPY_LINES) {
        this.linesSeen += 1
        if (ghCopyPrefixLength(block, pos) > 0) this.ghCopy = true
      }
      let triggered = nextAnywhere < end
      if (!triggered) {
        const start = textStart(block, pos, end, this.ghCopy)
        if (start < 0) {
          // Colour codes at the start may also split the text after them: test it cleaned.
          triggered = LINE_START.test(cleanLine(bytesToText(block.slice(pos, end))))
        } else {
          lineStart.lastIndex = start
          triggered = lineStart.test(block)
        }
      }
      if (triggered || this.everyLine || this.active.length > 0) {
        this.pushLine(block, pos, end, triggered || this.everyLine)
      }
      this.previousBlock = block
      this.previousStart = pos
      this.previousEnd = end
      pos = end + 1
    }
  }

  /** Feeds the line `block[start, end)`, to every parser when `triggered`, else to the active ones. */
  private pushLine(block: string, start: number, end: number, triggered: boolean): void {
    const cut = Math.min(end, start + this.maxLineLength)
    const raw = bytesToText(block.slice(start, cut))
    if (!this.ghCopy && ghCopyPrefixLength(raw, 0) > 0) this.ghCopy = true
    const line = cleanLine(raw)
    // The rest of a multi-line annotation: a copy of what a tool printed, between its lines.
    if (this.inAnnotation) {
      if (!STAMPED.test(raw)) return
      this.inAnnotation = false
    }
    if (line.charCodeAt(0) === 35 && /^##\[(?:error|warning)\]/.test(line)) {
      this.inAnnotation = STAMPED.test(raw)
    }
    const marker = runnerMarker(line)
    if (marker !== undefined) {
      if (marker.step !== undefined) {
        this.step = marker.step
        this.inStepHeader = line.startsWith('##[group]Run ')
        if (this.inStepHeader) this.stepErrorLine = undefined
      } else if (line.startsWith('##[endgroup]')) this.inStepHeader = false
      return
    }
    // The step's script as the runner echoes it, and its shell and variables: not output.
    if (this.inStepHeader && (raw.includes(STEP_SCRIPT_COLOUR) || STEP_HEADER_LINE.test(line))) {
      return
    }
    const previousEnd = Math.min(this.previousEnd, this.previousStart + this.maxLineLength)
    const previous =
      this.previousBlock === ''
        ? undefined
        : cleanLine(bytesToText(this.previousBlock.slice(this.previousStart, previousEnd)))
    if (triggered && !this.capturing) this.pushToAll(line, previous)
    else this.pushToActive(line, previous)
  }

  private pushToAll(line: string, previous: string | undefined): void {
    const parsers = this.parsers
    // A problem matcher's `##[error]` before a tool's line: the tool parsers read the line
    // without it, the runner's parser (`gha`) with it.
    const bare = line.charCodeAt(0) === 35 && line.startsWith('##[error]') ? line.slice(9) : line
    let active: ToolParser[] | undefined
    for (let i = 0; i < parsers.length; i++) {
      const parser = parsers[i]!
      const marked =
        bare === line ||
        parser.tool === 'gha' ||
        (parser.keepsMarkers === true && this.active.includes(parser))
      const text = marked ? line : bare
      if (parser.push(text, previous) === true) (active ??= []).push(parser)
    }
    this.setActive(active ?? [])
    if (this.capturing) return
    if (this.stepErrorLine === undefined && !this.unterminated) {
      const candidate = fallbackCandidate(line)
      if (candidate !== undefined) {
        this.stepErrorLine = candidate
        this.firstErrorLine ??= candidate
      }
    }
    if (
      line.startsWith('##[error]Process completed') ||
      line.startsWith('Error: Process completed')
    ) {
      const trailer = EXIT_CODE_TRAILER.exec(line)
      if (trailer !== null) {
        this.exitCode ??= trailer[1]
        this.failedStepErrorLine ??= this.stepErrorLine
      }
    }
  }

  private pushToActive(line: string, previous: string | undefined): void {
    const still: ToolParser[] = []
    for (const parser of this.active) if (parser.push(line, previous) === true) still.push(parser)
    this.setActive(still)
  }

  private setActive(active: ToolParser[]): void {
    this.active = active
    let capturing = false
    for (const parser of active) if (parser.capturing?.() === true) capturing = true
    this.capturing = capturing
  }

  findings(): Finding[] {
    const primary = new Map<string, Finding>()
    const secondary = new Map<string, Finding>()
    for (const parser of this.parsers) {
      for (const finding of parser.finish()) {
        const target = finding.secondary === true ? secondary : primary
        if (!target.has(finding.key)) target.set(finding.key, finding)
      }
    }
    if (primary.size > 0) return withDetails([...primary.values()])
    if (secondary.size > 0) return withDetails([...secondary.values()])
    // In a job log, the error line must come from a step that failed; in raw output, the first.
    const fallback = this.exitCode === undefined ? this.firstErrorLine : this.failedStepErrorLine
    if (fallback !== undefined) return withDetails([fallback])
    if (this.exitCode !== undefined) {
      const key = buildKey('gha', `exit code ${this.exitCode}`)
      return [{ key, line: `##[error]Process completed with exit code ${this.exitCode}.` }]
    }
    return []
  }
}

/**
 * Every finding with its details: a parser's window when it kept one, else the line that showed
 * the failure (a compiler's or linter's diagnostic is its own detail), the checkout root removed.
 */
function withDetails(findings: Finding[]): Finding[] {
  return findings.map((finding) => {
    if (finding.details !== undefined) return finding
    const line = detailLine(finding.line)
    return line === undefined || line.trim() === '' ? finding : { ...finding, details: [line] }
  })
}

/**
 * The unknown-tool fallback's reading of a line: an error line that is neither a wrapper around
 * another failure (`npm error code 1`, Maven's `Failed to execute goal`, make's `***`) nor a
 * banner, as `error:<line with paths normalised, masked>`.
 */
function fallbackCandidate(line: string): Finding | undefined {
  if (!ERROR_LINE.test(line) || WRAPPER_LINE.test(line)) return undefined
  const substance = line.replace(BANNER_WORDS, '').replace(/[^A-Za-z]/g, '')
  if (substance.length < MIN_SUBSTANCE) return undefined
  const masked = maskMessage(normalisePathsIn(line.trim()))
  return masked === '' ? undefined : { key: buildKey('error', masked), line }
}

/**
 * Where the text of the line `block[start, end)` begins: after a UTF-8 BOM, a `gh run view --log`
 * copy's job and step names (when the log is one), a runner timestamp
 * (`2026-07-28T23:19:32.4965943Z `), another CI system's prefix and blanks; -1 when the text begins with an escape
 * sequence (colour, or its visible `^[[` form), which the caller must clean first.
 */
function textStart(block: string, start: number, end: number, ghCopy: boolean): number {
  let i = start
  if (block.charCodeAt(i) === 0xef && block.charCodeAt(i + 1) === 0xbb) i += 3
  if (ghCopy) {
    i += ghCopyPrefixLength(block, i)
    if (block.charCodeAt(i) === 0xef && block.charCodeAt(i + 1) === 0xbb) i += 3
  }
  if (
    block.charCodeAt(i + 4) === 45 &&
    block.charCodeAt(i + 10) === 84 &&
    block.charCodeAt(i + 13) === 58
  ) {
    const limit = Math.min(end, i + 31)
    let z = i + 19
    while (z < limit && block.charCodeAt(z) !== 90) z++
    if (z < limit) i = block.charCodeAt(z + 1) === 32 ? z + 2 : z + 1
  }
  i += foreignPrefixLength(block, i)
  for (;;) {
    const code = block.charCodeAt(i)
    if (code === 32 || code === 9) i++
    // ESC, or ESC written visibly (`^[[31m`): the caller cleans the line first.
    else return code === 27 || (code === 94 && block.charCodeAt(i + 1) === 91) ? -1 : i
  }
}

/** Reads a log stream (chunks of bytes; strings are accepted too) or a whole string. */
export async function extractFailures(
  source: AsyncIterable<Uint8Array | string> | string,
  options: ExtractOptions = {}
): Promise<ExtractResult> {
  if (typeof source === 'string') return extractFailuresFromString(source, options)
  const extraction = new Extraction(options)
  const splitter = new LineBlockSplitter(extraction.pushBlock, options)
  const encoder = new TextEncoder()
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk
    if (!splitter.write(bytes)) break
  }
  splitter.end()
  return {
    findings: extraction.findings(),
    truncated: splitter.truncated,
    bytesRead: splitter.bytesRead
  }
}

/** The same as `extractFailures`, for a log already in memory. */
export function extractFailuresFromString(
  text: string,
  options: ExtractOptions = {}
): ExtractResult {
  const extraction = new Extraction(options)
  const splitter = new LineBlockSplitter(extraction.pushBlock, options)
  splitter.write(new TextEncoder().encode(text))
  splitter.end()
  return {
    findings: extraction.findings(),
    truncated: splitter.truncated,
    bytesRead: splitter.bytesRead
  }
}
