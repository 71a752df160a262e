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
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const PROJECT_PREFIX = /^\|([^|]{1,100})\|\s+/
const SUITE_LINE = /^(\S+)\s+\[\s.*\s\]$/

export const vitestGrepPatterns = ['^\\s*FAIL\\s+.* > ', '^\\s*FAIL\\s+.*\\[ .* \\]$']

/** Lines that end a failure's block: the `⎯⎯⎯[1/2]⎯` rule, the next failure, the totals. */
const BLOCK_END = /^\s*(?:⎯|FAIL |Test Files |Tests )/

export function createVitestParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  let failedSuite: { path: string; line: string } | undefined
  /** A failed test whose error line comes next. */
  let failedTest: { id: string; line: string } | undefined
  return {
    tool: 'vitest',
    push(line) {
      const ended = details.collecting && BLOCK_END.test(line)
      if (ended) details.close()
      if (failedTest !== undefined) {
        const text = line.trim()
        if (text === '') return true
        const id = failedTest.id
        findings.add(buildKey('vitest', id, failureKind(text)), failedTest.line, false, id)
        failedTest = undefined
      }
      if (failedSuite !== undefined) {
        const text = line.trim()
        if (text === '') return true
        const reason = maskMessage(normalisePathsIn(text), 60)
        const id = `${failedSuite.path}>(suite)`
        findings.add(buildKey('vitest', id, reason), failedSuite.line, false, id)
        failedSuite = undefined
      }
      if (!ended && details.add(line)) return true
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
        details.open(failedTest.id)
        return true
      }
      const suite = SUITE_LINE.exec(rest)
      if (suite === null) return false
      failedSuite = { path: `${project}${normalisePath(suite[1] ?? '')}`, line }
      details.open(`${failedSuite.path}>(suite)`)
      return true
    },
    finish() {
      if (failedTest !== undefined)
        findings.add(buildKey('vitest', failedTest.id), failedTest.line, false, failedTest.id)
      failedTest = undefined
      return findings.list()
    }
  }
}
