/**
 * `deno test`. Tests report as `name ... FAILED (30ms)` under `running 4 tests from ./a_test.ts`
 * (a step indented under its test, the test then failing `(due to 1 failed step)`), and the
 * ERRORS and FAILURES sections name each failure as `name => ./a_test.ts:2:6` (a step as
 * `test ... step => …`).
 * Key: `deno:<file>><test > step>`. Details: the lines under the failure's name in the ERRORS
 * report (the error, the code frame, the stack).
 */
import { buildKey, normalisePath } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet, indentOf } from './common.js'

const RUNNING = /^running \d+ tests? from (\S{1,1000})\s*$/
const PLACE = /^(\S.{0,2000}?) => (\S{1,1000}?):\d+:\d+\s*$/
const PROGRESS = /^(\s*)(\S.{0,2000}?) \.\.\.(?: (FAILED|ok|ignored)\b(.*))?\s*$/
/** The run's report: ` ERRORS ` and ` FAILURES `, which name each failure as `name => place`. */
const REPORT = /^\s*(?:ERRORS|FAILURES)\s*$/
/** The run's result line, which ends its progress and its report. */
const RESULT = /^(?:ok|FAILED) \|/

export const denoGrepPatterns = [
  ' => .*:[0-9]+:[0-9]+$',
  ' \\.\\.\\. FAILED',
  '^running [0-9]+ tests? from '
]

export function createDenoParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  let file: string | undefined
  /** The open tests and steps of the progress lines, by depth. */
  let open: string[] = []
  /** Inside the ERRORS or FAILURES report. */
  let report = false
  return {
    tool: 'deno',
    push(line) {
      if (
        file === undefined &&
        !report &&
        line.indexOf('running ') === -1 &&
        line.indexOf(' => ') === -1
      ) {
        if (line.indexOf('ERRORS') === -1 && line.indexOf('FAILURES') === -1) return false
      }
      const running = RUNNING.exec(line)
      if (running !== null) {
        file = normalisePath(running[1] ?? '')
        open = []
        return true
      }
      const place = PLACE.exec(line)
      if (place !== null) {
        const name = (place[1] ?? '').split(' ... ').join(' > ')
        const key = buildKey('deno', `${normalisePath(place[2] ?? '')}>${name}`)
        findings.add(key, line)
        // The FAILURES report names it again: its first window (under ERRORS) is kept.
        details.open(key)
        return true
      }
      if (REPORT.test(line)) {
        file = undefined
        report = true
        details.close()
        return true
      }
      if (report) {
        report = !RESULT.test(line)
        if (report) details.add(line)
        else details.close()
        return report
      }
      if (file === undefined) return false
      if (RESULT.test(line)) {
        file = undefined
        return false
      }
      const progress = PROGRESS.exec(line)
      if (progress === null) return true
      const depth = Math.floor(indentOf(progress[1] ?? '') / 2)
      open = open.slice(0, depth)
      open[depth] = progress[2] ?? ''
      // A test that failed because a step did names nothing of its own.
      if (progress[3] === 'FAILED' && !(progress[4] ?? '').includes('due to')) {
        findings.add(buildKey('deno', `${file}>${open.join(' > ')}`), line)
      }
      return true
    },
    finish: () => findings.list()
  }
}
