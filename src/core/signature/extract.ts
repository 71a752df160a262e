/**
 * Failure extraction (see the README, Failure signatures): one pass over a log's lines through
 * every parser, then the findings by precedence:
 * 1. what the tool parsers found (test ids, diagnostic codes, lint rules);
 * 2. else the wrappers: the runner's own `##[error]` lines, failed Gradle tasks, MSBuild errors;
 * 3. else the general rule, in the step that failed (in raw output: the whole log): the lines a
 *    person calls the error — each compiler or linter error with a location
 *    (`src/a.c:3:5: error: …` → `error:<path>:<code and message, masked>`) and each failed test
 *    line (`FAIL <title>`, `✗`, `×`, `✘` → `error:FAIL <title, masked>`); when there are none, the
 *    step's first line that reads as an error, masked (`error:<text>`; a thrown exception keeps
 *    its first frame in the project as a detail);
 * 4. else the step trailer `Process completed with exit code N.` as `gha:exit code N`;
 * 5. else, in raw output, the first of a package manager's or build wrapper's own failure lines
 *    (WRAPPER_FAILURE: npm's, pnpm's, yarn's, turbo's, Docker's, Maven's), masked.
 * The step's wrapper lines (what it ran and how that ended) are details of the finding of 3 to 5.
 */
import {
  builderPrefixLength,
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
import { DETAIL_LIMITS, detailLine } from './details.js'
import {
  buildKey,
  maskMessage,
  normalisePath,
  normalisePathsIn,
  stripTrailingDuration
} from './normalise.js'
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
/**
 * Lines of the error family that only wrap another failure (npm's lifecycle lines and
 * boilerplate among them: never the fallback's line, see WRAPPER_FAILURE for its details).
 */
const WRAPPER_LINE =
  /^\s*(?:npm (?:ERR!|error) (?:code|errno|A complete log|This is |command|path|Lifecycle|Failed at the |Exit status |Test failed|workspace |signal |[^\s`]{1,200} [^\s`]{1,200}: `|\s|$)|Error: Process completed with exit code|(?:error|Error:?) Command failed with exit code|(?:error|ERROR):? (?:during build|failed to (?:solve|build))|.{0,80}ELIFECYCLE|ERR_PNPM_|Error: Command "[^"]{1,200}" exited with|\[ERROR\] (?:-> \[Help|Re-run Maven|To see the full stack|For more information|Failed to execute goal|BUILD FAILURE|Tests run:|There (?:was|were) |$)|#\d+ ERROR: process |ERROR: failed to solve: |make(?:\[\d+\])?: \*\*\* )/
/**
 * A wrapper's own line saying what it ran and how that ended, which the fallback carries as a
 * detail (and, when nothing else reads as an error, as its line), after a turbo task's prefix
 * (`api:test: `) when there is one:
 * - npm's lifecycle error: `npm ERR! app@1.0.0 test: \`jest\``, `npm ERR! Exit status 1`,
 *   `npm ERR! Failed at the app@1.0.0 test script.`, `npm ERR! Test failed.`, npm 7 and later's
 *   `npm ERR! Lifecycle script \`test\` failed with error:`, `npm ERR! Error: command failed`,
 *   `npm ERR!   in workspace: api@0.0.0`, `npm error command sh -c jest`, `npm error signal …`;
 * - pnpm's ` ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  app@1.0.0 build: \`tsc\`` (the lines under it
 *   are its message, see WRAPPER_BODY_LINES), ` ELIFECYCLE  Command failed with exit code 1.` and
 *   ` ELIFECYCLE  Test failed. See above for more details.`; yarn's `error Command failed with
 *   exit code 1.`;
 * - turbo's `api#test: command (…/apps/api) npm run test exited (1)` (after ` ERROR  ` in turbo
 *   2), `Failed:    api#test`, ` ERROR  run failed: …` and `ERROR: command finished with error: …`;
 * - Docker's `ERROR: failed to solve: process "/bin/sh -c npm ci" did not complete successfully:
 *   exit code: 1` (compose prints it bare or after `target <name>: `), a build step's
 *   `#12 ERROR: process "…" did not complete successfully: …`, the legacy builder's `The command
 *   '/bin/sh -c npm ci' returned a non-zero code: 1`;
 * - Maven's `[ERROR] Failed to execute goal <plugin>:<goal> (…) on project app: There are test
 *   failures.` (`Error:  Failed to execute goal …` in a job log).
 */
const WRAPPER_FAILURE =
  /^\s*(?:[\w@/.-]{1,200}:[\w:.-]{1,200}:\s+)?(?:npm (?:ERR!|error) (?:[^\s`]{1,200} [^\s`]{1,200}: `|Failed at the |Exit status |Test failed|Lifecycle script |Error: command failed|command |\s*in workspace: |workspace |signal )|ERR_PNPM_\w{1,100}\s|ELIFECYCLE\s+(?:Command|Test) failed|(?:error )?Command failed with |(?:ERROR\s+)?[\w@/.-]{1,200}#[\w:.-]{1,200}: command \(|Failed:\s+[\w@/.-]{1,200}#|command \(.{0,2000}\) .{0,2000}exited \(\d|(?:ERROR|Error):?\s+(?:run failed: |command finished with error)|(?:target [^\s:]{1,200}: |ERROR: )?failed to solve: |(?:#\d{1,5} )?ERROR: process ".{0,4000}" did not complete successfully|The command '.{0,4000}' returned a non-zero code: |(?:\[ERROR\]|Error:)\s+Failed to execute goal )/
/** npm's lines among the wrapper's (WRAPPER_FAILURE), and its `Error` when colour codes follow. */
const NPM_WRAPPER_START =
  'npm (?:ERR!|error) (?:[^\\s`]{1,200} [^\\s`]{1,200}: `|Failed at the |Exit status |Test failed|Lifecycle script |command |\\s*in workspace: |workspace |signal |(?:\\u001b\\[[\\d;]*m)?Error)'
/**
 * Where the wrapper's lines (WRAPPER_FAILURE) begin, for those no other trigger finds: each is a
 * wrapper line, never a candidate of the fallback (WRAPPER_LINE). Tried at each line's start,
 * which costs less than a search of every block: turbo's task lines and its task prefix
 * (`api:test: `) before a package manager's line are spelled out.
 */
const WRAPPER_LINE_START = [
  NPM_WRAPPER_START,
  'ERR_PNPM_',
  'ELIFECYCLE',
  '(?:error )?Command failed with ',
  'Failed: +[\\w@/.-]{1,200}#',
  '(?:target [^\\s:]{1,200}: )?failed to solve: ',
  "The command '",
  'command \\(',
  `[\\w@/.-]{1,200}(?:#[\\w:.-]{1,200}: command \\(|:[\\w:.-]{1,200}:\\s+(?:${NPM_WRAPPER_START}|ERR_PNPM_|ELIFECYCLE|(?:error )?Command failed with ))`
]
/** pnpm prints an error's message on the lines under its `ERR_PNPM_<CODE>` line. */
const WRAPPER_BODY_LINES = 3
/** The wrapper's lines the fallback keeps per step (and per log), within DETAIL_LIMITS.bytes. */
const MAX_WRAPPER_LINES = 10
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
const FALLBACK_LINE_START = ['\\[?(?:fatal|FATAL|Fatal)', '[×✘] ']
/**
 * A compiler's or linter's error at a place: `src/a.c:3:5: error: msg`, `a.py:3: error: msg`,
 * `x.sh:3:1: error: msg [SC1009]`, `src/A.cs(3,5): error CS0103: msg`, `a.ts:3:5 - error TS2322:
 * msg`, `fatal error`; the path has an extension and no blanks. Warnings and notes never match.
 */
const LOCATED_ERROR =
  /^\s*((?:[A-Za-z]:)?[^\s:()'"`]{1,300}\.[A-Za-z][A-Za-z0-9]{0,7})(?:\(\d{1,7}(?:,\d{1,7})?\)|:\d{1,7}(?::\d{1,7})?)(?::\s*|\s+-\s+|\s+)(?:fatal\s+)?(?:error|ERROR|Error)(?:\s*\[?([A-Za-z]{0,10}\d{1,6})\]?)?\s*:?\s+(\S.{0,1000})$/
/**
 * A failed test's line in a tool nobody parses: `FAIL <title>`, `FAILED <title>`, `✗ <title>`,
 * `× <title>`, `✘ <title>`; never a count (`× 2 failed`) or a summary in parentheses.
 */
const FAILED_TEST_LINE = /^\s*(?:FAIL|FAILED|✗|×|✘)\s+(?![(\d])(\S.{0,300})$/
/** Error lines the general rule keeps per step (and per log). */
const MAX_LISTED_ERRORS = 50
/** Lines after a thrown exception read for its first frame in the project. */
const MAX_FRAME_LINES = 30
const FRAME_LINE = /^\s+(?:at |File "|[^\s:]{1,300}\.[A-Za-z]{1,8}:\d)/
/**
 * The parsers' triggers, written for text and rewritten for byte strings (one character per
 * byte). `anywhere` is searched over a whole block at once; `lineStart` is tried where each
 * line's text begins (after a BOM, a runner timestamp, colour codes and blanks).
 */
const ANYWHERE_SOURCE = byteStringPattern(
  [...new Set([...anywhereFragments(), ...FALLBACK_ANYWHERE])].join('|')
)
const LINE_START_SOURCE = [
  ...lineStartFragments(),
  ...FALLBACK_LINE_START,
  ...WRAPPER_LINE_START
].join('|')
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
  /** The general rule's error lines (unknown tools): of the log, and of the current step. */
  private logErrors: ErrorLines = noErrorLines()
  private stepErrors: ErrorLines = noErrorLines()
  /** The error lines of a step that failed (its exit-code trailer came after them). */
  private failedStepErrors: ErrorLines | undefined
  /** Lines left to read for the first frame of the exception the step's first error line threw. */
  private frameLinesLeft = 0
  /** Lines left to read for the message under a wrapper's line (pnpm's `ERR_PNPM_<CODE>`). */
  private bodyLinesLeft = 0
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
      if (
        triggered ||
        this.everyLine ||
        this.active.length > 0 ||
        this.frameLinesLeft > 0 ||
        this.bodyLinesLeft > 0
      ) {
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
        if (this.inStepHeader) {
          this.stepErrors = noErrorLines()
          this.frameLinesLeft = 0
          this.bodyLinesLeft = 0
        }
      } else if (line.startsWith('##[endgroup]')) this.inStepHeader = false
      return
    }
    // The step's script as the runner echoes it, and its shell and variables: not output.
    if (this.inStepHeader && (raw.includes(STEP_SCRIPT_COLOUR) || STEP_HEADER_LINE.test(line))) {
      return
    }
    if (this.frameLinesLeft > 0) this.readFrame(line)
    if (this.bodyLinesLeft > 0) this.readBody(line)
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
    if (!this.unterminated) {
      if (WRAPPER_FAILURE.test(bare)) {
        this.addWrapperLine(bare)
        if (bare.includes('ERR_PNPM_')) this.bodyLinesLeft = WRAPPER_BODY_LINES
      }
      const listed = listedCandidate(bare)
      if (listed !== undefined) {
        addListed(this.stepErrors, listed)
        addListed(this.logErrors, listed)
      } else if (this.stepErrors.first === undefined) {
        const candidate = fallbackCandidate(line)
        if (candidate !== undefined) {
          this.stepErrors.first = candidate
          this.logErrors.first ??= candidate
          if (EXCEPTION_LINE.test(line)) this.frameLinesLeft = MAX_FRAME_LINES
        }
      }
    }
    if (
      line.startsWith('##[error]Process completed') ||
      line.startsWith('Error: Process completed')
    ) {
      const trailer = EXIT_CODE_TRAILER.exec(line)
      if (trailer !== null) {
        this.exitCode ??= trailer[1]
        this.failedStepErrors ??= this.stepErrors
      }
    }
  }

  /**
   * A line after the step's first error line when that was a thrown exception: its first frame
   * in the project becomes the error's second detail; frames in dependencies are passed over.
   */
  private readFrame(line: string): void {
    const first = this.stepErrors.first
    if (first === undefined || !FRAME_LINE.test(line)) {
      this.frameLinesLeft = 0
      return
    }
    this.frameLinesLeft -= 1
    const frame = detailLine(line)
    if (frame === undefined) return
    const own = detailLine(first.line)
    first.details = own === undefined ? [frame] : [own, frame]
    this.frameLinesLeft = 0
  }

  /**
   * A line under a wrapper's line: the wrapper's message (pnpm's `spawn ENOENT`, `Exit status 2`)
   * up to a blank line or the next wrapper line.
   */
  private readBody(line: string): void {
    if (line.trim() === '' || this.unterminated || WRAPPER_FAILURE.test(line)) {
      this.bodyLinesLeft = 0
      return
    }
    this.bodyLinesLeft -= 1
    this.addWrapperLine(line)
  }

  private addWrapperLine(line: string): void {
    const kept = detailLine(line)
    if (kept === undefined || kept.trim() === '') return
    const bytes = Buffer.byteLength(kept, 'utf8') + 1
    for (const errors of [this.stepErrors, this.logErrors]) {
      if (
        errors.wrapper.length < MAX_WRAPPER_LINES &&
        errors.wrapperBytes + bytes <= DETAIL_LIMITS.bytes &&
        !errors.wrapper.includes(kept)
      ) {
        errors.wrapper.push(kept)
        errors.wrapperBytes += bytes
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
    // In a job log, the error lines must come from a step that failed; in raw output, the log's.
    const errors = this.exitCode === undefined ? this.logErrors : this.failedStepErrors
    if (errors !== undefined && errors.listed.size > 0)
      return withDetails([...errors.listed.values()])
    const wrapper = errors?.wrapper ?? []
    if (errors?.first !== undefined) return withWrapperLines(withDetails([errors.first]), wrapper)
    if (this.exitCode !== undefined) {
      const key = buildKey('gha', `exit code ${this.exitCode}`)
      const trailer = { key, line: `##[error]Process completed with exit code ${this.exitCode}.` }
      return wrapper.length > 0 ? [{ ...trailer, details: wrapper }] : [trailer]
    }
    // Raw output where only a wrapper says what failed: its first line is the error.
    const masked = wrapper[0] === undefined ? '' : maskMessage(normalisePathsIn(wrapper[0].trim()))
    if (masked !== '')
      return [{ key: buildKey('error', masked), line: wrapper[0]!, details: wrapper }]
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
 * The fallback's finding with the wrapper's lines after its own details: what the package
 * manager or build tool ran and how it ended, when the error line does not say.
 */
function withWrapperLines(findings: Finding[], wrapper: readonly string[]): Finding[] {
  if (wrapper.length === 0) return findings
  return findings.map((finding) => {
    const own = finding.details ?? []
    const added = wrapper.filter((line) => !own.includes(line))
    return added.length === 0 ? finding : { ...finding, details: [...own, ...added] }
  })
}

/** The general rule's error lines of a step or a log (see the module comment, 3). */
interface ErrorLines {
  /** The first line that reads as an error. */
  first: Finding | undefined
  /** Errors with a place and failed tests' lines, by key. */
  listed: Map<string, Finding>
  /** The wrapper's lines (WRAPPER_FAILURE, and the message under them), as details. */
  wrapper: string[]
  wrapperBytes: number
}

function noErrorLines(): ErrorLines {
  return { first: undefined, listed: new Map(), wrapper: [], wrapperBytes: 0 }
}

function addListed(errors: ErrorLines, finding: Finding): void {
  if (errors.listed.size < MAX_LISTED_ERRORS && !errors.listed.has(finding.key))
    errors.listed.set(finding.key, finding)
}

/** A thrown exception's line (`TypeError: …`, `java.lang.IllegalStateException: …`). */
const EXCEPTION_LINE = /^\s*(?:Uncaught )?[A-Z][\w.$]{0,100}(?:Error|Exception)(?: \[\w+\])?: /

/**
 * The general rule's reading of a line (`##[error]` removed): a compiler's or linter's error at
 * a place, `error:<path>:<code and message, masked>`, or a failed test's line,
 * `error:FAIL <title, masked>`; the line number never enters the key.
 */
function listedCandidate(line: string): Finding | undefined {
  const located = LOCATED_ERROR.exec(line)
  if (located !== null) {
    const message = maskMessage(
      normalisePathsIn([located[2], located[3]].filter((part) => part !== undefined).join(' ')),
      80
    )
    return { key: buildKey('error', normalisePath(located[1] ?? ''), message), line }
  }
  if (line.indexOf('FAIL') === -1 && !/[✗×✘]/.test(line)) return undefined
  const test = FAILED_TEST_LINE.exec(line)
  if (test === null) return undefined
  const title = maskMessage(stripTrailingDuration(normalisePathsIn(test[1] ?? '').trim()), 120)
  return title.length < MIN_SUBSTANCE
    ? undefined
    : { key: buildKey('error', `FAIL ${title}`), line }
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
  i += builderPrefixLength(block, i)
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
