/**
 * Vitest. Each failure is detailed under `⎯⎯ Failed Tests N ⎯⎯` as ` FAIL  src/a.test.ts > suite
 * > test` (workspace projects add `|name| ` first); a file that could not run is listed under
 * `Failed Suites` as ` FAIL  src/a.test.ts [ src/a.test.ts ]` followed by its error.
 * The line after a test's ` FAIL ` line is its error; several FAIL lines in a row share the error
 * that follows them (vitest prints an error once for every test that threw it), and each gets
 * its key and details. The runner's annotation lines (`##[error]…`, from vitest's
 * github-actions reporter) may sit between or inside blocks and belong to none. Key: `vitest:<path>><suite > test>`, plus
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

/** Lines that end a failure's block: the `⎯⎯⎯[1/2]⎯` rule, the next failure. */
const BLOCK_END = /^\s*(?:⎯|FAIL )/
/**
 * The run's totals, which end no block: on a runner stdout and stderr interleave, so they may
 * come inside the last block; they belong to none.
 */
const TOTALS = /^\s*(?:Test Files |Tests |Type Errors |Start at |Duration |Errors )/

export function createVitestParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  let failedSuite: { path: string; line: string } | undefined
  /**
   * Failed tests whose error comes next: one FAIL line, or several in a row when vitest printed
   * one error for them all. The window is the first one's; the others get a copy at its end.
   */
  let group: { id: string; line: string }[] = []
  /** The tests the open window's lines belong to (its own first). */
  let blockIds: string[] = []
  const endBlock = (): void => {
    const [first, ...others] = blockIds
    if (first !== undefined && others.length > 0) {
      const lines = details.of(first) ?? []
      for (const id of others) details.open(id, ...lines)
    }
    details.close()
    blockIds = []
  }
  const failedTestOf = (line: string): { id: string; line: string } | undefined => {
    const first = line.charCodeAt(0)
    if (first !== 32 && first !== 70) return undefined // ' ', 'F'
    const text = line.trimStart()
    if (!text.startsWith('FAIL ')) return undefined
    let rest = text.slice(5).trim()
    let project = ''
    const projectMatch = PROJECT_PREFIX.exec(rest)
    if (projectMatch !== null) {
      project = `${(projectMatch[1] ?? '').trim()}/`
      rest = rest.slice(projectMatch[0].length)
    }
    const separator = rest.indexOf(' > ')
    if (separator === -1) return undefined
    const path = normalisePath(rest.slice(0, separator))
    const title = stripTrailingDuration(rest.slice(separator + 3))
    return { id: `${project}${path}>${title}`, line }
  }
  return {
    tool: 'vitest',
    keepsMarkers: true,
    push(line) {
      // The runner's annotation lines (vitest's github-actions reporter) and the totals may come
      // anywhere, even inside a block: they neither end a block nor belong to it.
      if (line.startsWith('##[') || TOTALS.test(line)) return group.length > 0 || details.collecting
      if (group.length > 0) {
        const text = line.trim()
        if (text === '') return true
        const test = failedTestOf(line)
        if (test !== undefined) {
          group.push(test)
          return true
        }
        // The error of every test of the group.
        const kind = failureKind(text)
        for (const member of group)
          findings.add(buildKey('vitest', member.id, kind), member.line, false, member.id)
        blockIds = group.map((member) => member.id)
        group = []
        details.add(line)
        return true
      }
      if (failedSuite !== undefined) {
        const text = line.trim()
        if (text === '') return true
        const reason = maskMessage(normalisePathsIn(text), 60)
        const id = `${failedSuite.path}>(suite)`
        findings.add(buildKey('vitest', id, reason), failedSuite.line, false, id)
        failedSuite = undefined
      }
      const ended = BLOCK_END.test(line)
      if (ended) endBlock()
      if (!ended && details.add(line)) return true
      const test = failedTestOf(line)
      if (test !== undefined) {
        endBlock()
        group = [test]
        blockIds = [test.id]
        details.open(test.id)
        return true
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
      const suite = SUITE_LINE.exec(rest)
      if (suite === null) return false
      endBlock()
      failedSuite = { path: `${project}${normalisePath(suite[1] ?? '')}`, line }
      details.open(`${failedSuite.path}>(suite)`)
      return true
    },
    finish() {
      for (const member of group)
        findings.add(buildKey('vitest', member.id), member.line, false, member.id)
      group = []
      endBlock()
      return findings.list()
    }
  }
}
