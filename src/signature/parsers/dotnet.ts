/**
 * dotnet test and build. A failing test is `  Failed NS.Class.Method [2 s]` (VSTest) or
 * `failed NS.Class.Method (12ms)` (Microsoft.Testing.Platform); a compiler or build error is
 * `F.cs(229,30): error CS0618: msg [proj.csproj]`, repeated in the final summary (counted once).
 * Keys: `dotnet:<fully qualified test name>`; `dotnet:<code>:<first quoted name>:<path>`.
 */
import {
  buildKey,
  firstQuotedSymbol,
  normalisePath,
  stripErrorMarker,
  stripTrailingDuration
} from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FindingSet } from './common.js'

const TEST_FAILED =
  /^\s*(?:Failed|failed) ([A-Za-z_][\w`+<>$]*(?:\.[\w`+<>$]+)+.{0,1000}?) (?:\[\s*<?\s*[\d.]+\s*(?:ms|s|m|min)\s*\]|\(\s*[\d.]+\s*(?:ms|s|m|min)\s*\))\s*$/
const BUILD_ERROR =
  /^\s*(?:\d{1,4}>\s*)?((?:[A-Za-z]:)?[^\s(:][^(:]{0,1000}?)(?:\(\d+(?:,\d+)*\))?\s*:\s+error\s+([A-Z]{2,}\d{3,}):\s*(.*?)(?:\s+\[[^\]]{1,1000}\])?\s*$/

export const dotnetGrepPatterns = [
  '^\\s*(Failed|failed) .* (\\[[^]]+\\]|\\([^)]+\\))$',
  ': error [A-Z]{2,}[0-9]{3,}: '
]

export function createDotnetParser(): ToolParser {
  const findings = new FindingSet()
  return {
    tool: 'dotnet',
    push(raw) {
      if (raw.indexOf('ailed ') !== -1) {
        const test = TEST_FAILED.exec(raw)
        if (test !== null) {
          findings.add(buildKey('dotnet', stripTrailingDuration(test[1] ?? '')), raw)
          return
        }
      }
      if (raw.indexOf(': error ') === -1) return
      const build = BUILD_ERROR.exec(stripErrorMarker(raw))
      if (build === null) return
      const code = build[2] ?? ''
      // tsc's codes belong to tsc; MSB3073 and friends wrap a failed command.
      if (code.startsWith('TS') || code === 'TESTERROR') return
      const path = normalisePath(build[1] ?? '')
      findings.add(
        buildKey('dotnet', code, firstQuotedSymbol(build[3] ?? ''), path),
        raw,
        code.startsWith('MSB')
      )
    },
    finish: () => findings.list()
  }
}
