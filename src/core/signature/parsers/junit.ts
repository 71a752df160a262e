/**
 * JUnit 4's text runner (`java org.junit.runner.JUnitCore …`): after `There were 2 failures:`
 * (errors are listed there too), each is `1) addsShipping(shop.CartTest)` (a parameterised
 * case: `discount[1: discount(99, 50) = 50](shop.DiscountTableTest)`), then the exception,
 * `java.lang.AssertionError: …` or `java.lang.ArithmeticException: / by zero`.
 * Key: `junit:<class>.<method>`, plus `:<kind>` when the test threw rather than failed an
 * assertion (the exception's type without its package).
 */
import type { ToolParser } from '../types.js'
import { createNumberedFailureListParser } from './numbered-failure-list.js'

const ENTRY = /^(\d+)\) (.{1,1000})\(([\w.$]{1,500})\)\s*$/

export const junitGrepPatterns = [
  '^There (was 1|were [0-9]+) failures?:',
  '^[0-9]+\\) .*\\([A-Za-z0-9_.$]+\\)$'
]

export function createJunitParser(): ToolParser {
  return createNumberedFailureListParser({
    tool: 'junit',
    section: /^There (?:was 1|were \d+) failures?:\s*$/,
    endOfList: /^(?:FAILURES!!!|Tests run: \d|OK \()/,
    entryId(line) {
      const found = ENTRY.exec(line)
      return found === null ? undefined : `${found[3]}.${found[2]}`
    }
  })
}
