/**
 * Gradle's test logging, `com.example.FooTest > testBar() FAILED` (nested and parameterised
 * tests add more ` > ` parts; JUnit 5's `()` goes). A failed task (`> Task :compileJava FAILED`)
 * is a wrapper, kept only when nothing more specific was found. The line after a failed test is
 * its exception (`    java.lang.NullPointerException at Customer.java:9`); the indented lines
 * under a failed test (exception, message, frames) are its details.
 * Key: `gradle:<class>.<test>`, plus `:<kind>` when the test threw rather than failed an
 * assertion; wrapper `gradle:task:<task path>`.
 */
import { buildKey, failureKind } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const TEST_FAILED = /^([\w.$]{1,500}) > (.{1,1000}?) FAILED\s*$/
const TASK_FAILED = /^> Task (:\S{1,500}) FAILED\s*$/

export const gradleGrepPatterns = ['^[A-Za-z0-9_.$]+ > .* FAILED$', '^> Task :[^ ]+ FAILED']

export function createGradleParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  /** A failed test whose exception line comes next. */
  let failed: { id: string; line: string } | undefined
  return {
    tool: 'gradle',
    push(line) {
      if (failed !== undefined) {
        if (line.trim() === '') return true
        details.add(line)
        findings.add(
          buildKey('gradle', failed.id, failureKind(line)),
          failed.line,
          false,
          failed.id
        )
        failed = undefined
        return true
      }
      if (details.collecting) {
        if (/^\s/.test(line) && details.add(line)) return true
        details.close()
      }
      if (!line.endsWith('FAILED') && !line.endsWith('FAILED ')) return false
      const test = TEST_FAILED.exec(line)
      if (test !== null) {
        const parts = (test[2] ?? '').split(' > ').map((part) => part.replace(/\(\)$/, ''))
        failed = { id: `${test[1]}.${parts.join(' > ')}`, line }
        details.open(failed.id)
        return true
      }
      const task = TASK_FAILED.exec(line)
      if (task !== null) findings.add(buildKey('gradle', 'task', task[1]), line, true)
      return false
    },
    finish() {
      if (failed !== undefined)
        findings.add(buildKey('gradle', failed.id), failed.line, false, failed.id)
      failed = undefined
      return findings.list()
    }
  }
}
