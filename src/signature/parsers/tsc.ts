/**
 * TypeScript compiler diagnostics, in the plain form `src/a.ts(3,13): error TS7006: msg` and the
 * pretty form `src/a.ts:3:13 - error TS7006: msg` (also what ts-jest prints under
 * `● Test suite failed to run`). Key: `tsc:TS<code>:<first quoted symbol>:<path>`.
 */
import { buildKey, firstQuotedSymbol, normalisePath, stripErrorMarker } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FindingSet } from './common.js'

const DIAGNOSTIC =
  /^\s{0,40}(?:\d{1,4}>\s?)?((?:[A-Za-z]:)?[^\s(:][^(:]{0,1000}?)(?:\((\d+),(\d+)\):\s+|:(\d+):(\d+)\s+-\s+)error\s+TS(\d+)\s*:\s*(.*)$/

export const tscGrepPatterns = ['error TS[0-9]+']

export function createTscParser(): ToolParser {
  const findings = new FindingSet()
  return {
    tool: 'tsc',
    push(line) {
      if (line.indexOf('error TS') === -1) return
      const match = DIAGNOSTIC.exec(stripErrorMarker(line))
      if (match === null) return
      const path = normalisePath(match[1] ?? '')
      const message = match[7] ?? ''
      findings.add(buildKey('tsc', `TS${match[6]}`, firstQuotedSymbol(message), path), line)
    },
    finish: () => findings.list()
  }
}
