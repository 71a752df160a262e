/**
 * The failure list of xUnit text runners (JUnit 4's `JUnitCore`, PHPUnit, which took its
 * format): a heading such as `There were 2 failures:`, then each failure as `1) <test>`
 * followed by its exception or message line, until the run's closing line. The parser keys
 * each failure by the test's id and, from the line after it, the kind of failure; the lines
 * under the entry, up to the next one, are its details.
 */
import { buildKey, failureKind } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet, MAX_LINES_PER_FAILURE } from './common.js'

interface NumberedFailureList {
  tool: string
  /** The heading that opens the list. */
  section: RegExp
  /** Lines that close the list (the run's summary). */
  endOfList: RegExp
  /** The test's id when `line` is an entry (`1) …`) of the list, else undefined. */
  entryId(line: string): string | undefined
}

export function createNumberedFailureListParser(format: NumberedFailureList): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  let inList = false
  let budget = 0
  /** A failure waiting for its exception or message line. */
  let entry: { id: string; line: string } | undefined
  return {
    tool: format.tool,
    push(line) {
      if (entry !== undefined) {
        const text = line.trim()
        if (text === '') return true
        details.add(line)
        findings.add(
          buildKey(format.tool, entry.id, failureKind(text)),
          entry.line,
          false,
          entry.id
        )
        entry = undefined
        return true
      }
      if (format.section.test(line)) {
        inList = true
        budget = MAX_LINES_PER_FAILURE
        return true
      }
      if (!inList) return false
      if (format.endOfList.test(line) || --budget < 0) {
        inList = false
        details.close()
        return false
      }
      const id = format.entryId(line)
      if (id !== undefined) {
        entry = { id, line }
        details.open(id)
        budget = MAX_LINES_PER_FAILURE
      } else details.add(line)
      return true
    },
    finish() {
      if (entry !== undefined)
        findings.add(buildKey(format.tool, entry.id), entry.line, false, entry.id)
      entry = undefined
      return findings.list()
    }
  }
}
