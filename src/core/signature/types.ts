/**
 * Contract between the log reader and the per-tool parsers (see the README, Failure signatures).
 *
 * A parser sees one log line at a time, already cleaned by the reader: how the log was copied
 * (a `gh run view --log` line's job and step names, the runner's timestamp, other CI systems'
 * and builders' line prefixes), ANSI escapes and the trailing `\r` are gone, and `##[group]` /
 * `##[endgroup]` markers are removed. A `##[error]` line reaches the runner's parser (`gha`)
 * with the marker and every other parser without it (a problem matcher put it before a tool's
 * line).
 * Parsers may keep state between lines (multi-line formats such as jest's `●` blocks),
 * so each log gets fresh instances from the factories in the registry.
 */
export interface Finding {
  /** The failure key, normalised and stable across noisy re-runs, e.g. `tsc:TS2339:fromArrays:src/a.ts`. */
  key: string
  /** The line that showed the failure (cleaned, not yet sanitised), for the failure summary. */
  line: string
  /**
   * A wrapper-level finding (the runner's own `##[error]` lines, a Gradle task that failed):
   * kept only when no parser found anything more specific in the same log.
   */
  secondary?: boolean
  /**
   * What the tool printed about this failure, kept exactly (message, expected and received,
   * location, code frame), bounded: see `details.ts` (docs/failure-details.md: "Failure details"). A parser
   * fills it through a `FailureDetails` it owns: `open(id)` where the failure's block begins,
   * `add(line)` for each line of it (returning `true` from `push` while it `collecting`),
   * `close()` at its end, and `new FindingSet(details)` with `add(key, line, false, id)`. Left
   * out, the extractor uses `line` (a diagnostic is its own detail).
   */
  details?: string[]
}

export interface ToolParser {
  /** Short tool name, the first segment of every key this parser emits. */
  readonly tool: string
  /**
   * Feeds one cleaned line. Must run in time linear in the line's length, and must be correct
   * when fed every line of a log. For speed the extractor feeds a parser only the lines that
   * match its registry triggers (see parsers/index.ts), plus every line while the parser's
   * last `push` returned `true` (it is inside a multi-line block and needs what follows).
   * `previous` is the line before this one in the log, whether or not it was fed.
   */
  push(line: string, previous?: string): boolean | void
  /** The findings for the whole log, called once after the last line. */
  finish(): Finding[]
  /**
   * True while the parser reads a test's captured output (what the test printed: pytest's
   * `Captured stdout` sections, cargo's `---- name stdout ----` blocks). Those lines may hold
   * another tool's failure output from a run inside the test, which is not this run's failure:
   * while any parser captures, lines reach only the parsers inside a block, never the others
   * or the unknown-tool fallback. A capturing parser keeps returning `true` from `push`.
   */
  capturing?(): boolean
  /**
   * True for a parser that, while inside a block, must see the runner's `##[error]` marker of a
   * line (a test runner's annotation printed between its own lines is not part of its block);
   * other parsers always get such a line without the marker.
   */
  readonly keepsMarkers?: boolean
}

export type ParserFactory = () => ToolParser
