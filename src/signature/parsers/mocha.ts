/**
 * Mocha's spec reporter: after `  N failing`, each failure is `  1) Suite` with every further
 * title part on its own, deeper-indented line, the last part ending in `:`, then the error.
 * Key: `mocha:<suite > … > test>` (the `N)` ordinal dropped).
 */
import { buildKey } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FindingSet, indentOf } from './common.js'

const FAILING_COUNT = /^\s*\d+ failing\s*$/
const ENTRY = /^\s{0,8}\d+\) (.*)$/

export const mochaGrepPatterns = ['^\\s*[0-9]+ failing', '^\\s*[0-9]+\\) ']

export function createMochaParser(): ToolParser {
  const findings = new FindingSet()
  let inFailures = false
  let parts: string[] | undefined
  let entryLine = ''
  return {
    tool: 'mocha',
    push(line) {
      if (!inFailures) {
        if (line.indexOf(' failing') !== -1 && FAILING_COUNT.test(line)) inFailures = true
        return inFailures
      }
      if (line.length > 0 && indentOf(line) === 0) {
        // The failure list is indented; text at column 0 is whatever ran next.
        if (parts !== undefined) finishEntry()
        inFailures = false
        return false
      }
      if (parts !== undefined) {
        // A title continuation is indented deeper than the 5 spaces of the error message.
        if (indentOf(line) > 5 && line.trim() !== '') {
          addPart(line.trim())
          return true
        }
        finishEntry() // the title ended without `:`; keep what was read
      }
      const entry = ENTRY.exec(line)
      if (entry !== null) {
        parts = []
        entryLine = line
        addPart((entry[1] ?? '').trim())
      }
      return true
    },
    finish() {
      if (parts !== undefined) finishEntry()
      return findings.list()
    }
  }

  function addPart(part: string): void {
    if (parts === undefined) return
    if (part.endsWith(':')) {
      parts.push(part.slice(0, -1))
      finishEntry()
    } else parts.push(part)
  }

  function finishEntry(): void {
    if (parts !== undefined && parts.length > 0) {
      findings.add(buildKey('mocha', parts.join(' > ')), entryLine)
    }
    parts = undefined
  }
}
