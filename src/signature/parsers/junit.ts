/**
 * JUnit 4's text runner (`java org.junit.runner.JUnitCore …`): after `There were 2 failures:`
 * (errors are listed there too), each is `1) addsShipping(shop.CartTest)` (a parameterised
 * case: `discount[1: discount(99, 50) = 50](shop.DiscountTableTest)`), then the exception,
 * `java.lang.AssertionError: …` or `java.lang.ArithmeticException: / by zero`.
 * Key: `junit:<class>.<method>`, plus `:<kind>` when the test threw rather than failed an
 * assertion (the exception's type without its package).
 */
import { buildKey, failureKind } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FindingSet } from './common.js'

const SECTION = /^There (?:was 1|were \d+) failures?:\s*$/
const ENTRY = /^(\d+)\) (.{1,1000})\(([\w.$]{1,500})\)\s*$/
const END_OF_LIST = /^(?:FAILURES!!!|Tests run: \d|OK \()/
/** Lines read for one failure before the list is given up as cut or malformed. */
const MAX_LINES_PER_FAILURE = 2000

export const junitGrepPatterns = [
  '^There (was 1|were [0-9]+) failures?:',
  '^[0-9]+\\) .*\\([A-Za-z0-9_.$]+\\)$'
]

export function createJunitParser(): ToolParser {
  const findings = new FindingSet()
  let inList = false
  let budget = 0
  /** A failure waiting for its exception line. */
  let entry: { id: string; line: string } | undefined
  return {
    tool: 'junit',
    push(line) {
      if (entry !== undefined) {
        if (line.trim() === '') return true
        findings.add(buildKey('junit', entry.id, failureKind(line)), entry.line)
        entry = undefined
        return true
      }
      if (SECTION.test(line)) {
        inList = true
        budget = MAX_LINES_PER_FAILURE
        return true
      }
      if (!inList) return false
      if (END_OF_LIST.test(line) || --budget < 0) {
        inList = false
        return false
      }
      const found = ENTRY.exec(line)
      if (found !== null) {
        entry = { id: `${found[3]}.${found[2]}`, line }
        budget = MAX_LINES_PER_FAILURE
      }
      return true
    },
    finish() {
      if (entry !== undefined) findings.add(buildKey('junit', entry.id), entry.line)
      entry = undefined
      return findings.list()
    }
  }
}
