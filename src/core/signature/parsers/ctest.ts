/**
 * CTest (CMake's test driver). Each test ends with a progress line, `2/27 Test  #2: name
 * .....***Failed    0.19 sec` (or `***Timeout`, `***Exception: SegFault`, `***Not Run`), and the
 * run ends with `The following tests FAILED:` and one `\t 16 - name (Failed)` line per test
 * (`(Timeout)`, `(Not Run)`, `(SEGFAULT)`, …; `(Disabled)` tests are listed but did not fail).
 * Key: `ctest:<test name>`, plus `:timeout` for a test that ran out of time.
 */
import { buildKey } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FindingSet } from './common.js'

const PROGRESS =
  /^\s*\d+\/\d+ Test\s+#\d+: (\S.{0,1000}?) \.*(?:\s*\S.{0,100}?)?\*\*\*(Failed|Timeout|Exception|Not Run)\b/
const LISTED = /^\s*\d+ - (\S.{0,1000}?) \(([A-Za-z_ ]{1,40})\)\s*$/
/** What a listed test's status may be when it failed (ctest's `GetTestStatus`). */
const FAILED_STATUS =
  /^(?:Failed|Timeout|Not Run|SEGFAULT|ILLEGAL|INTERRUPT|NUMERICAL|OTHER_FAULT|BUS_ERROR|Subprocess aborted|Child aborted|Exception|Could not find executable|Required Files Missing)$/

export const ctestGrepPatterns = [
  '\\*\\*\\*(Failed|Timeout|Exception|Not Run)',
  '^\\s*[0-9]+ - .* \\([A-Za-z_ ]+\\)\\s*$'
]

export function createCtestParser(): ToolParser {
  const findings = new FindingSet()
  return {
    tool: 'ctest',
    push(line) {
      if (line.indexOf('***') === -1 && line.indexOf(' - ') === -1) return
      const progress = PROGRESS.exec(line)
      if (progress !== null) {
        add(progress[1] ?? '', progress[2] === 'Timeout', line)
        return
      }
      const listed = LISTED.exec(line)
      if (listed !== null && FAILED_STATUS.test(listed[2] ?? '')) {
        add(listed[1] ?? '', listed[2] === 'Timeout', line)
      }
    },
    finish: () => findings.list()
  }

  function add(name: string, timeout: boolean, line: string): void {
    findings.add(buildKey('ctest', name.trim(), timeout ? 'timeout' : undefined), line)
  }
}
