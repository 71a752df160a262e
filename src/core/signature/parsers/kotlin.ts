/**
 * The Kotlin compiler as Gradle and Maven print it: `e: file:///…/src/A.kt:12:5 Unresolved
 * reference 'x'.` (Kotlin 2), `e: /…/build.gradle.kts:32:5: Unresolved reference: compile`, and
 * the older `e: /…/A.kt: (38, 40): Unresolved reference: x`. Warnings (`w:`) never. Key:
 * `kotlin:<kind>:<path>`, the kind being the message up to its first `: ` (`Unresolved
 * reference`, `Type mismatch`), else the message masked.
 */
import { buildKey, maskMessage, normalisePath } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { DiagnosticWindows, FindingSet } from './common.js'

const ERROR =
  /^e: (?:file:\/\/)?((?:[A-Za-z]:)?[^:]{1,1000}?\.kts?)(?::\d+:\d+:?|: \(\d+, \d+\):) (\S.{0,2000})$/
const KIND = /^([A-Z][A-Za-z ]{2,60}?): /

export const kotlinGrepPatterns = ['^e: .*\\.kts?(:[0-9]+:[0-9]+|: \\([0-9]+, [0-9]+\\))']

export function createKotlinParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  const windows = new DiagnosticWindows(details)
  return {
    tool: 'kotlin',
    push(line) {
      if (!line.startsWith('e: ')) return false
      const match = ERROR.exec(line)
      if (match === null) return false
      const message = match[2] ?? ''
      const kind = KIND.exec(message)?.[1] ?? maskMessage(message, 80)
      const key = buildKey('kotlin', kind, normalisePath(match[1] ?? ''))
      windows.add(key, message, [line])
      findings.add(key, line)
      return false
    },
    finish: () => findings.list()
  }
}
