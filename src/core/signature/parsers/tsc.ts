/**
 * TypeScript compiler diagnostics, in the plain form `src/a.ts(3,13): error TS7006: msg` and the
 * pretty form `src/a.ts:3:13 - error TS7006: msg` (also what ts-jest prints under
 * `● Test suite failed to run`), and as webpack's TypeScript loaders and checkers print them,
 * with the place and the code on two lines: ts-loader's `[tsl] ERROR in /abs/src/a.ts(3,13)`,
 * fork-ts-checker-webpack-plugin's `ERROR in ./src/a.ts:3:13` and awesome-typescript-loader's
 * `ERROR in [at-loader] ./src/a.ts:3:13`, each followed by `TS2339: msg`, and the older ones
 * that name only the file (`ERROR in ./src/a.ts`, then `(3,13): error TS2339: msg`).
 * Key: `tsc:TS<code>:<first quoted symbol>:<path>`, whichever tool printed it. A diagnostic's
 * details are its line and what follows it, indented (the `Type '…' is not assignable to …`
 * chain) or as the pretty form's code frame; errors that share a key share a window, each
 * distinct message whole and a repeat by its line only (DiagnosticWindows).
 */
import { buildKey, firstQuotedSymbol, normalisePath, stripErrorMarker } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { DiagnosticWindows, FindingSet, indentOf } from './common.js'

const DIAGNOSTIC =
  /^\s{0,40}(?:\d{1,4}>\s?)?((?:[A-Za-z]:)?[^\s(:][^(:]{0,1000}?)(?:\((\d+),(\d+)\):\s+|:(\d+):(\d+)\s+-\s+)error\s+TS(\d+)\s*:\s*(.*)$/
/**
 * A webpack loader's or checker's place line; the code and message follow on the next line.
 * Older loaders name only the file (ts-loader 0.x: `ERROR in ./src/a.ts`, then `(3,13): error
 * TS2339: msg`); Symfony Encore's checker writes `error  in src/a.ts:3:13` and a clock.
 */
const LOADER_PLACE =
  /^\s{0,4}(?:\[tsl\] )?(?:ERROR|error)\s{1,4}in (?:\[at-loader\] )?((?:[A-Za-z]:)?[^\s(:][^(:]{0,1000}?\.[cm]?tsx?)(?:\(\d+,\d+\)|:\d+:\d+(?:-\d+)?)?(?:\s+\d\d:\d\d:\d\d)?\s*$/
const LOADER_CODE = /^\s*(?:\(\d+,\d+\): error )?TS(\d+):\s*(.*)$/
const LOADER_PLACE_WORDS = /(?:ERROR|error)\s{1,4}in /
/** The pretty form's code frame: `12   const x = f()` and the `~~~` under it. */
const CODE_FRAME = /^(?:\d{1,6} {1,8}\S|\s*~)/
/** Lines of one diagnostic's continuation and code frame read at most; blank lines in a row. */
const MAX_CONTINUATION = 30
const MAX_BLANKS = 2
/** Lines after a loader's place line within which its `TSnnnn:` line must come. */
const LOADER_CODE_WITHIN = 3

export const tscGrepPatterns = [
  'error TS[0-9]+',
  '(ERROR|error) +in .*\\.[cm]?tsx?',
  '^\\s*(\\([0-9]+,[0-9]+\\): error )?TS[0-9]+:'
]

export function createTscParser(): ToolParser {
  /** A loader's diagnostic is two lines: the place, then the code and message. */
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  /** A loader's place line waiting for its code line. */
  let place: { path: string; line: string; waited: number } | undefined
  const windows = new DiagnosticWindows(details)
  /** A diagnostic whose continuation lines are read. */
  let pending:
    { key: string; message: string; indent: number; lines: string[]; blanks: number } | undefined
  const flush = (): void => {
    if (pending === undefined) return
    const lines = pending.lines.slice(0, pending.lines.length - pending.blanks)
    windows.add(pending.key, pending.message, lines)
    findings.add(pending.key, lines[0] ?? '')
    pending = undefined
  }
  /** Whether `line` continues the pending diagnostic (and keeps it). */
  const continues = (line: string): boolean => {
    if (pending === undefined || pending.lines.length > MAX_CONTINUATION) return false
    if (line.trim() === '') {
      if (pending.blanks >= MAX_BLANKS) return false
      pending.blanks += 1
      pending.lines.push(line)
      return true
    }
    const deeper = indentOf(line) > pending.indent
    if (!(deeper || CODE_FRAME.test(line)) || line.indexOf('error TS') !== -1) return false
    pending.blanks = 0
    pending.lines.push(line)
    return true
  }
  return {
    tool: 'tsc',
    push(line) {
      if (pending !== undefined) {
        if (continues(line)) return true
        flush()
      }
      if (place !== undefined) {
        const code = LOADER_CODE.exec(line)
        if (code !== null) {
          const message = code[2] ?? ''
          const key = buildKey('tsc', `TS${code[1]}`, firstQuotedSymbol(message), place.path)
          if (!findings.has(key)) details.open(key, place.line, line)
          details.close()
          findings.add(key, place.line)
          place = undefined
          return false
        }
        place.waited += 1
        if (place.waited >= LOADER_CODE_WITHIN) place = undefined
      }
      if (LOADER_PLACE_WORDS.test(line)) {
        const loader = LOADER_PLACE.exec(line)
        if (loader !== null) {
          place = { path: normalisePath(loader[1] ?? ''), line, waited: 0 }
          return true
        }
      }
      if (line.indexOf('error TS') === -1) return place !== undefined
      const match = DIAGNOSTIC.exec(stripErrorMarker(line))
      if (match === null) return place !== undefined
      const path = normalisePath(match[1] ?? '')
      const message = match[7] ?? ''
      const key = buildKey('tsc', `TS${match[6]}`, firstQuotedSymbol(message), path)
      pending = { key, message, indent: indentOf(line), lines: [line], blanks: 0 }
      return true
    },
    finish() {
      flush()
      return findings.list()
    }
  }
}
