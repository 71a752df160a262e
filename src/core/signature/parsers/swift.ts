/**
 * `swift test`. XCTest reports a failed test as `Test Case 'Class.testX' failed (0.001 seconds)`
 * on Linux and `Test Case '-[Module.Class testX]' failed (0.004 seconds).` on macOS, after the
 * assertion's line, `path/File.swift:12: error: Class.testX : XCTAssertEqual failed: …` (macOS:
 * `error: -[Module.Class testX] : …`), which a cut log may hold alone. Swift Testing prints
 * `✘ Test "name" recorded an issue at File.swift:12:5: …` and `✘ Test name() failed after …`.
 * Key: `swift:<Class.testX>` (the module dropped, so both platforms agree), or `swift:<name>`
 * for a Swift Testing test. Details: every assertion or issue line of the test (a test may
 * fail several), each a diagnostic with its place and values.
 */
import { buildKey } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const CASE_FAILED = /^Test Case '(?:-\[(?:\w+\.)?(\w+) (\w+)\]|(?:\w+\.)?(\w+)\.(\w+))' failed\b/
const ASSERTION =
  /^\S.{0,1000}?:\d+: error: (?:-\[(?:\w+\.)?(\w+) (\w+)\]|(?:\w+\.)?(\w+)\.(\w+)) : /
const SWIFT_TESTING =
  /^\s*(?:✘|􀢄) Test (?:"((?:[^"\\]|\\.){1,500})"|(\S{1,500}\)))(?: recorded an issue| failed)\b/

export const swiftGrepPatterns = [
  "^Test Case '.*' failed",
  ':[0-9]+: error: (-\\[[A-Za-z0-9_.]+ [A-Za-z0-9_]+\\]|[A-Za-z0-9_.]+) : ',
  '^\\s*✘ Test .* (recorded an issue|failed)'
]

export function createSwiftParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  return {
    tool: 'swift',
    push(line) {
      if (line.indexOf('Test') === -1 && line.indexOf(': error: ') === -1) return
      const caseFailed = CASE_FAILED.exec(line)
      const xctest = caseFailed ?? ASSERTION.exec(line)
      if (xctest !== null) {
        const cls = xctest[1] ?? xctest[3] ?? ''
        const method = xctest[2] ?? xctest[4] ?? ''
        add(buildKey('swift', `${cls}.${method}`), line, caseFailed === null)
        return
      }
      const testing = SWIFT_TESTING.exec(line)
      if (testing !== null) {
        add(buildKey('swift', testing[1] ?? testing[2]), line, line.includes(' recorded an issue'))
      }
    },
    finish: () => findings.list()
  }

  /** Adds the finding; an assertion or issue line also goes to the test's details. */
  function add(key: string, line: string, issue: boolean): void {
    findings.add(key, line)
    if (!issue) return
    details.resume(key)
    details.add(line)
    details.close()
  }
}
