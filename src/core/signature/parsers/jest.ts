/**
 * Jest. A failing file opens with `FAIL path (8.5 s)` (multi-project runs put a display name
 * before the path); each failing test is a `● describe › test` title under it, repeated in
 * the "Summary of all failing tests", and the first line after the title says what failed.
 * Key: `jest:<path>><describe > test>`, plus `:<kind>` when the test threw rather than failed
 * an assertion (`:TypeError`, `:timeout`). A file that could not run (`● Test suite failed to
 * run`) adds what stopped it: `jest:<path>>(suite):<TS code>` for ts-jest type errors (tsc's
 * parser adds the full tsc key), else the masked first error line.
 * A paste that starts below the `FAIL` line (or a bot's copy of the failure blocks alone) has
 * `●` titles with no file: the file is then the test file of the block's first stack frame
 * (`at Object.<anonymous> (tests/a.test.js:4:23)`). `● Console` is what the tests printed.
 */
import {
  buildKey,
  failureKind,
  maskMessage,
  normalisePath,
  normalisePathsIn,
  stripTrailingDuration
} from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const SUITE_FAILED = 'Test suite failed to run'
/** Lines of a block without a file read for its stack frame before it is given up. */
const ORPHAN_LINES = 60
/** A stack frame in a test file: `at Object.<anonymous> (tests/a.test.js:4:23)`. */
const TEST_FRAME =
  /^\s+at (?:.{0,500}? \()?((?:file:\/\/)?[^\s()]{1,500}(?:[._-](?:test|spec)|__tests__\/[^\s()]{1,500})\.[cm]?[jt]sx?):\d+:\d+\)?\s*$/
const TS_CODE = /\berror\s+(TS\d+)\b/

export const jestGrepPatterns = ['^\\s*FAIL\\s', '^\\s*● ']

/** Lines that end a `●` block: the next block, a file's result, the run's summary. */
const BLOCK_END =
  /^(?:● |FAIL |PASS |Test Suites:|Summary of all failing tests|Snapshot Summary|› \d+ snapshots? )/

export function createJestParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  let suite: string | undefined
  /** A `●` title waiting for its first error line: the test's id, or the suite's. */
  let waiting: { id: string; line: string; suiteFailed: boolean } | undefined
  /** A `●` title outside any FAIL suite, waiting for a stack frame that names its file. */
  let orphan:
    { title: string; line: string; kind?: string; lines: number; detailsId: string } | undefined
  return {
    tool: 'jest',
    push(line) {
      // Inside a `●` block: its lines are the failure's details, up to the block's end.
      const ended = details.collecting && BLOCK_END.test(line.trimStart())
      if (ended) details.close()
      if (orphan !== undefined) {
        const text = line.trim()
        const frame = TEST_FRAME.exec(line)
        if (frame !== null) {
          const { title, line: titleLine, kind, detailsId } = orphan
          findings.add(
            buildKey('jest', `${normalisePath(frame[1] ?? '')}>${title}`, kind),
            titleLine,
            false,
            detailsId
          )
          orphan = undefined
        } else if (text.startsWith('● ') || ++orphan.lines > ORPHAN_LINES) orphan = undefined
        else {
          if (text !== '' && orphan.lines > 0 && !('kind' in orphan))
            orphan.kind = failureKind(text)
          if (!ended) details.add(line)
          return true
        }
      }
      if (waiting !== undefined) {
        const text = line.trim()
        if (text === '') return true
        const { id, line: titleLine, suiteFailed } = waiting
        waiting = undefined
        if (suiteFailed) {
          const ts = TS_CODE.exec(text)
          const reason = ts !== null ? ts[1] : maskMessage(normalisePathsIn(text), 60)
          findings.add(buildKey('jest', id, reason), titleLine, false, id)
        } else findings.add(buildKey('jest', id, failureKind(text)), titleLine, false, id)
        // The line may itself open the next block (a title with nothing under it).
      }
      if (!ended && details.add(line)) return true
      const first = line.charCodeAt(0)
      if (first !== 32 && first !== 70 && first !== 80 && first !== 9679) return false // ' ', F, P, ●
      const text = line.trimStart()
      if (text.startsWith('FAIL ')) {
        suite = suitePath(text.slice(5))
        return false
      }
      if (text.startsWith('PASS ')) {
        suite = undefined
        return false
      }
      if (!text.startsWith('● ')) return false
      const title = text.slice(2).trim()
      if (title === 'Console') return false
      if (suite === undefined) {
        if (title === SUITE_FAILED) return false
        const testPath = title
          .split(' › ')
          .map((part) => part.trim())
          .join(' > ')
        // Its file is not known yet: the window is named by the title until a frame names it.
        orphan = { title: testPath, line, lines: 0, detailsId: `?>${testPath}` }
        details.open(orphan.detailsId)
        return true
      }
      if (title === SUITE_FAILED) {
        waiting = { id: `${suite}>(suite)`, line, suiteFailed: true }
      } else {
        const testPath = title.split(' › ').map((part) => part.trim())
        waiting = { id: `${suite}>${testPath.join(' > ')}`, line, suiteFailed: false }
      }
      details.open(waiting.id)
      return true
    },
    finish() {
      if (waiting !== undefined && !waiting.suiteFailed) {
        findings.add(buildKey('jest', waiting.id), waiting.line, false, waiting.id)
      }
      waiting = undefined
      return findings.list()
    }
  }
}

/** The path in `src/a.test.ts (8.518 s)` or `web-api  src/a.test.ts`; undefined when it is vitest's form. */
function suitePath(rest: string): string | undefined {
  const text = stripTrailingDuration(rest.trim())
  if (text === '' || text.includes(' > ') || text.endsWith(' ]')) return undefined
  const tokens = text.split(/\s+/)
  return normalisePath(tokens[tokens.length - 1] ?? '')
}
