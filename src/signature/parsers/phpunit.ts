/**
 * PHPUnit. Failures and errors are listed under `There was 1 failure:` / `There were 2 errors:`,
 * each as `1) Tests\CartTest::testTotal` (a data provider adds `with data set "reduced" (2, 5)`
 * or `with data set #0 (…)`), then the message: `Failed asserting that …` for a failed
 * assertion, or the thrown error's class and message (`DivisionByZeroError: Division by zero`).
 * Key: `phpunit:<Class::method>` plus ` with data set <name>` (its values dropped), plus
 * `:<kind>` when the test threw rather than failed an assertion.
 */
import { buildKey, failureKind } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FindingSet } from './common.js'

const SECTION = /^There (?:was 1|were \d+) (?:failure|error)s?:\s*$/
const ENTRY =
  /^(\d+)\) ([\w\\]{1,500}::\w{1,500})(?: with data set (#\d+|"(?:[^"\\]|\\.){0,500}"))?/
const END_OF_LIST =
  /^(?:FAILURES!|ERRORS!|Tests: \d|There (?:was|were) .* (?:risky|warning|skipped|incomplete|deprecation|notice))/
/** Lines read for one failure before the list is given up as cut or malformed. */
const MAX_LINES_PER_FAILURE = 2000

export const phpunitGrepPatterns = [
  '^There (was 1|were [0-9]+) (failure|error)s?:',
  '^[0-9]+\\) [A-Za-z0-9_\\\\]+::'
]

export function createPhpunitParser(): ToolParser {
  const findings = new FindingSet()
  let inList = false
  let budget = 0
  /** A failure waiting for its message line. */
  let entry: { id: string; line: string } | undefined
  return {
    tool: 'phpunit',
    push(line) {
      if (entry !== undefined) {
        const text = line.trim()
        if (text === '') return true
        findings.add(buildKey('phpunit', entry.id, failureKind(text)), entry.line)
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
        const dataSet = found[3] === undefined ? '' : ` with data set ${found[3]}`
        entry = { id: `${found[2]}${dataSet}`, line }
        budget = MAX_LINES_PER_FAILURE
      }
      return true
    },
    finish() {
      if (entry !== undefined) findings.add(buildKey('phpunit', entry.id), entry.line)
      entry = undefined
      return findings.list()
    }
  }
}
