/**
 * Contract between the log reader and the per-tool parsers (SPEC §4).
 *
 * A parser sees one log line at a time, already cleaned by the reader: the runner's
 * timestamp prefix, ANSI escapes and the trailing `\r` are gone, and `##[group]` /
 * `##[endgroup]` markers are removed. `##[error]` lines reach parsers with the marker kept.
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
}

export interface ToolParser {
  /** Short tool name, the first segment of every key this parser emits. */
  readonly tool: string
  /** Feeds one cleaned line. Must run in time linear in the line's length. */
  push(line: string): void
  /** The findings for the whole log, called once after the last line. */
  finish(): Finding[]
}

export type ParserFactory = () => ToolParser
