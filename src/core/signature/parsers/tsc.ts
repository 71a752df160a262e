/**
 * TypeScript compiler diagnostics, in the plain form `src/a.ts(3,13): error TS7006: msg` and the
 * pretty form `src/a.ts:3:13 - error TS7006: msg` (also what ts-jest prints under
 * `● Test suite failed to run`), and as webpack's TypeScript loaders and checkers print them,
 * with the place and the code on two lines: ts-loader's `[tsl] ERROR in /abs/src/a.ts(3,13)`,
 * fork-ts-checker-webpack-plugin's `ERROR in ./src/a.ts:3:13` and awesome-typescript-loader's
 * `ERROR in [at-loader] ./src/a.ts:3:13`, each followed by `TS2339: msg`, and the older ones
 * that name only the file (`ERROR in ./src/a.ts`, then `(3,13): error TS2339: msg`).
 * Key: `tsc:TS<code>:<first quoted symbol>:<path>`, whichever tool printed it.
 */
import { buildKey, firstQuotedSymbol, normalisePath, stripErrorMarker } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

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
  return {
    tool: 'tsc',
    push(line) {
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
      findings.add(buildKey('tsc', `TS${match[6]}`, firstQuotedSymbol(message), path), line)
      return place !== undefined
    },
    finish: () => findings.list()
  }
}
