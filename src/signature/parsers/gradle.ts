/**
 * Gradle's test logging, `com.example.FooTest > testBar() FAILED` (nested and parameterised
 * tests add more ` > ` parts; JUnit 5's `()` goes). A failed task (`> Task :compileJava FAILED`)
 * is a wrapper, kept only when nothing more specific was found.
 * Key: `gradle:<class>.<test>`; wrapper `gradle:task:<task path>`.
 */
import { buildKey } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FindingSet } from './common.js'

const TEST_FAILED = /^([\w.$]{1,500}) > (.{1,1000}?) FAILED\s*$/
const TASK_FAILED = /^> Task (:\S{1,500}) FAILED\s*$/

export const gradleGrepPatterns = ['^[A-Za-z0-9_.$]+ > .* FAILED$', '^> Task :[^ ]+ FAILED']

export function createGradleParser(): ToolParser {
  const findings = new FindingSet()
  return {
    tool: 'gradle',
    push(line) {
      if (!line.endsWith('FAILED') && !line.endsWith('FAILED ')) return
      const test = TEST_FAILED.exec(line)
      if (test !== null) {
        const parts = (test[2] ?? '').split(' > ').map((part) => part.replace(/\(\)$/, ''))
        findings.add(buildKey('gradle', `${test[1]}.${parts.join(' > ')}`), line)
        return
      }
      const task = TASK_FAILED.exec(line)
      if (task !== null) findings.add(buildKey('gradle', 'task', task[1]), line, true)
    },
    finish: () => findings.list()
  }
}
