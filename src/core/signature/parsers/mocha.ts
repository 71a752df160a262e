/**
 * Mocha's spec reporter (and the others, which share its epilogue): after `  N failing`, each of
 * the N failures is `  1) Suite` with every further title part on its own, deeper-indented line,
 * the last part ending in `:`, then the error. The error can run over lines at column 0 (Node's
 * assertion diff), so the list ends after the N-th failure's error, not at the first line that
 * is not indented. Key: `mocha:<suite > … > test>` (the `N)` ordinal dropped), plus `:<kind>`
 * when the test threw rather than failed an assertion (`:TypeError`, `:timeout`).
 */
import { buildKey, failureKind } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet, indentOf, MAX_LINES_PER_FAILURE } from './common.js'

const FAILING_COUNT = /^\s*(\d+) failing\s*$/
const ENTRY = /^\s{0,8}(\d+)\) (.*)$/

export const mochaGrepPatterns = ['^\\s*[0-9]+ failing', '^\\s*[0-9]+\\) ']

export function createMochaParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  /** Blank lines in a row after the last failure's error (two end its details). */
  let tailBlanks: number | undefined
  /** Inside the failure list: how many failures it announced, how many were read. */
  let list: { expected: number; seen: number; budget: number } | undefined
  /** The title parts of the current failure, while its title is being read. */
  let parts: string[] | undefined
  /** A failure whose title is complete, waiting for its first error line. */
  let titled: { id: string; line: string } | undefined
  let entryLine = ''
  return {
    tool: 'mocha',
    push(line) {
      if (tailBlanks !== undefined) {
        tailBlanks = line.trim() === '' ? tailBlanks + 1 : 0
        if (tailBlanks < 2 && !line.startsWith('##[') && details.add(line)) return true
        tailBlanks = undefined
        details.close()
      }
      if (list === undefined) {
        if (line.indexOf(' failing') === -1) return false
        const count = FAILING_COUNT.exec(line)
        if (count === null) return false
        list = { expected: Number(count[1]), seen: 0, budget: MAX_LINES_PER_FAILURE }
        return list.expected > 0 || endList()
      }
      list.budget -= 1
      if (list.budget < 0) return endList()
      const text = line.trim()
      if (parts !== undefined) {
        // A title continuation is indented deeper than the error message under it.
        if (indentOf(line) > 5 && text !== '') {
          addPart(text)
          return true
        }
        closeTitle() // the title ended without `:`; keep what was read
      }
      if (titled !== undefined) {
        if (text === '') return true
        details.add(line)
        findings.add(buildKey('mocha', titled.id, failureKind(text)), titled.line, false, titled.id)
        titled = undefined
        if (list.seen < list.expected) return true
        // The last failure's details run on until two blank lines.
        endList()
        tailBlanks = 0
        return true
      }
      const entry = ENTRY.exec(line)
      if (entry === null || Number(entry[1]) !== list.seen + 1) {
        details.add(line)
        return true
      }
      details.close()
      list.seen += 1
      list.budget = MAX_LINES_PER_FAILURE
      parts = []
      entryLine = line
      addPart((entry[2] ?? '').trim())
      return true
    },
    finish() {
      if (parts !== undefined) closeTitle()
      if (titled !== undefined)
        findings.add(buildKey('mocha', titled.id), titled.line, false, titled.id)
      titled = undefined
      return findings.list()
    }
  }

  function endList(): false {
    if (parts !== undefined) closeTitle()
    if (titled !== undefined) findings.add(buildKey('mocha', titled.id), titled.line)
    titled = undefined
    list = undefined
    return false
  }

  function addPart(part: string): void {
    if (parts === undefined) return
    if (part.endsWith(':')) {
      parts.push(part.slice(0, -1))
      closeTitle()
    } else parts.push(part)
  }

  function closeTitle(): void {
    if (parts !== undefined && parts.length > 0) {
      titled = { id: parts.join(' > '), line: entryLine }
      details.open(titled.id)
    }
    parts = undefined
  }
}
