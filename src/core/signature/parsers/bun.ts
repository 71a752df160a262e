/**
 * `bun test`. Each test file's output opens with its path alone on a line (`src/a.test.ts:`,
 * `::group::src/a.test.ts:` on GitHub Actions, where the job log turns it into a group the
 * reader removes); a failed test ends with `(fail) describe > test [0.44ms]` (older releases:
 * `✗ test [0.44ms]`) after its error and stack. Without a path line the file comes from the
 * stack's frame in a test file (`at <anonymous> (/…/src/a.test.ts:3:38)`).
 * Key: `bun:<path>><describe > test>`. Details: what bun printed between the previous result
 * line and the failed test's (code frame, error, expected and received, stack), read from a
 * file's path line to the run's `Ran N tests` line in a run whose banner was seen (a path line
 * alone, in another tool's output, never makes the parser read every line); the `::error`
 * annotation repeating it is left out.
 */
import { buildKey, normalisePath, stripTrailingDuration } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const FILE_HEADER = /^(?:::group::)?((?:[A-Za-z]:)?[^\s:]{1,500}\.[cm]?[jt]sx?):\s*$/
const FAILED = /^(?:\(fail\)|✗) (\S.{0,2000}?)\s*$/
const RESULT = /^\((?:pass|fail|skip|todo)\) |^[✓✗] /
/** `bun test v1.4.5 (a7733435c)`: the run's banner (other tools print `✗` lines too). */
const BANNER = /^bun test v\d/
/** `Ran 2 tests across 1 file. [9.00ms]`: the run's last line. */
const RAN = /^Ran \d+ tests? across /
/** The workflow command bun adds on GitHub Actions, the error again with `%0A` for newlines. */
const ANNOTATION = /^::error /
/** A stack frame in a test file: `at x (/abs/src/a.test.ts:3:38)` or `at /abs/a.spec.ts:3:2`. */
const TEST_FRAME =
  /^\s+at (?:.{0,500}? \()?((?:file:\/\/)?[^\s()]{1,500}[._-](?:test|spec)\.[cm]?[jt]sx?):\d+:\d+\)?\s*$/

export const bunGrepPatterns = [
  '^bun test v[0-9]',
  '^(::group::)?[^ :]+\\.[cm]?[jt]sx?:\\s*$',
  '^(\\(fail\\)|✗) '
]

export function createBunParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  /** The run's banner was seen: a path line is surely bun's, and its lines are read. */
  let banner = false
  /** Between a file's path line (after the banner) and the run's end: lines go to the pending window. */
  let reading = false
  /** The window of the test whose result line comes next; a passed test's is dropped. */
  let pending = '0'
  let file: string | undefined
  /** A bun run was seen (its banner or a file's path line): `✗` lines are bun's. */
  let bunRun = false
  /** The test file named by a stack frame since the last result line. */
  let frameFile: string | undefined
  return {
    tool: 'bun',
    push(line) {
      const first = line.charCodeAt(0)
      if (reading && first === 82 && RAN.test(line)) {
        reading = false
        details.close()
        return false
      }
      // Results start with `(` or `✗`, paths end with `:`, frames hold `at `.
      if (
        first !== 40 &&
        first !== 10007 &&
        first !== 98 &&
        !line.trimEnd().endsWith(':') &&
        line.indexOf('at ') === -1
      ) {
        return keep(line)
      }
      if (BANNER.test(line)) bunRun = banner = true
      const header = FILE_HEADER.exec(line)
      if (header !== null) {
        bunRun = true
        file = normalisePath(header[1] ?? '')
        frameFile = undefined
        reading = banner
        restart()
        return reading
      }
      const frame = TEST_FRAME.exec(line)
      if (frame !== null) {
        frameFile = normalisePath(frame[1] ?? '')
        return keep(line)
      }
      const failed = FAILED.exec(line)
      if (failed !== null && (bunRun || line.startsWith('('))) {
        const path = file ?? frameFile
        const name = stripTrailingDuration(failed[1] ?? '')
        findings.add(
          buildKey('bun', path === undefined ? name : `${path}>${name}`),
          line,
          false,
          pending
        )
        pending = String(Number(pending) + 1)
        details.open(pending)
      } else if (RESULT.test(line)) restart()
      else return keep(line)
      frameFile = undefined
      return reading
    },
    finish: () => findings.list()
  }

  /** Adds a line to the pending window while a run is read; true then (the parser wants more). */
  function keep(line: string): boolean {
    if (!reading) return false
    if (!ANNOTATION.test(line)) details.add(line)
    return true
  }

  /** A test passed (or a file began): the pending window starts again empty. */
  function restart(): void {
    details.drop(pending)
    details.open(pending)
  }
}
