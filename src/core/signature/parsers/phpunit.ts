/**
 * PHPUnit. Failures and errors are listed under `There was 1 failure:` / `There were 2 errors:`,
 * each as `1) Tests\CartTest::testTotal` (a data provider adds `with data set "reduced" (2, 5)`
 * or `with data set #0 (…)`), then the message: `Failed asserting that …` for a failed
 * assertion, or the thrown error's class and message (`DivisionByZeroError: Division by zero`).
 * Key: `phpunit:<Class::method>` plus ` with data set <name>` (its values dropped), plus
 * `:<kind>` when the test threw rather than failed an assertion.
 */
import type { ToolParser } from '../types.js'
import { createNumberedFailureListParser } from './numbered-failure-list.js'

const ENTRY =
  /^(\d+)\) ([\w\\]{1,500}::\w{1,500})(?: with data set (#\d+|"(?:[^"\\]|\\.){0,500}"))?/

export const phpunitGrepPatterns = [
  '^There (was 1|were [0-9]+) (failure|error)s?:',
  '^[0-9]+\\) [A-Za-z0-9_\\\\]+::'
]

export function createPhpunitParser(): ToolParser {
  return createNumberedFailureListParser({
    tool: 'phpunit',
    section: /^There (?:was 1|were \d+) (?:failure|error)s?:\s*$/,
    endOfList:
      /^(?:FAILURES!|ERRORS!|Tests: \d|There (?:was|were) .* (?:risky|warning|skipped|incomplete|deprecation|notice))/,
    entryId(line) {
      const found = ENTRY.exec(line)
      if (found === null) return undefined
      const dataSet = found[3] === undefined ? '' : ` with data set ${found[3]}`
      return `${found[2]}${dataSet}`
    }
  })
}
