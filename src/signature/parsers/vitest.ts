/**
 * Vitest. Each failure is detailed under `⎯⎯ Failed Tests N ⎯⎯` as ` FAIL  src/a.test.ts > suite
 * > test` (workspace projects add `|name| ` first); a file that could not run is listed under
 * `Failed Suites` as ` FAIL  src/a.test.ts [ src/a.test.ts ]` followed by its error.
 * The line after a test's ` FAIL ` line is its error. Key: `vitest:<path>><suite > test>`, plus
 * `:<kind>` when the test threw rather than failed an assertion; a file that could not run:
 * `vitest:<path>>(suite):<masked first error line>`.
 */
import {
  buildKey,
  failureKind,
  maskMessage,
  normalisePath,
  normalisePathsIn,
  stripTrailingDuration
} from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FindingSet } from './common.js'

const PROJECT_PREFIX = /^\|([^|]{1,100})\|\s+/
const SUITE_LINE = /^(\S+)\s+\[\s.*\s\]$/

export const vitestGrepPatterns = ['^\\s*FAIL\\s+.* > ', '^\\s*FAIL\\s+.*\\[ .* \\]$']

export function createVitestParser(): ToolParser {
  const findings = new FindingSet()
  let failedSuite: { path: string; line: string } | undefined
  /** A failed test whose error line comes next. */
  let failedTest: { id: string; line: string } | undefined
  return {
    tool: 'vitest',
    push(line) {
      if (failedTest !== undefined) {
        const text = line.trim()
        if (text === '') return true
        findings.add(buildKey('vitest', failedTest.id, failureKind(text)), failedTest.line)
        failedTest = undefined
      }
      if (failedSuite !== undefined) {
        const text = line.trim()
        if (text === '') return true
        const reason = maskMessage(normalisePathsIn(text), 60)
        findings.add(buildKey('vitest', `${failedSuite.path}>(suite)`, reason), failedSuite.line)
        failedSuite = undefined
        return false
      }
      const first = line.charCodeAt(0)
      if (first !== 32 && first !== 70) return // ' ', 'F'
      const text = line.trimStart()
      if (!text.startsWith('FAIL ')) return
      let rest = text.slice(5).trim()
      let project = ''
      const projectMatch = PROJECT_PREFIX.exec(rest)
      if (projectMatch !== null) {
        project = `${(projectMatch[1] ?? '').trim()}/`
        rest = rest.slice(projectMatch[0].length)
      }
      const separator = rest.indexOf(' > ')
      if (separator !== -1) {
        const path = normalisePath(rest.slice(0, separator))
        const title = stripTrailingDuration(rest.slice(separator + 3))
        failedTest = { id: `${project}${path}>${title}`, line }
        return true
      }
      const suite = SUITE_LINE.exec(rest)
      if (suite === null) return false
      failedSuite = { path: `${project}${normalisePath(suite[1] ?? '')}`, line }
      return true
    },
    finish() {
      if (failedTest !== undefined) findings.add(buildKey('vitest', failedTest.id), failedTest.line)
      failedTest = undefined
      return findings.list()
    }
  }
}
