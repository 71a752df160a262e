/**
 * dotnet test and build. A failing test is, by runner:
 * - VSTest's console logger: `  Failed NS.Class.Method(x: 1) [2 ms]` (older releases
 *   `Failed   NS.Class.Method` with no duration, or `  X NS.Class.Method [134ms]`), then
 *   `  Error Message:` and the message;
 * - xUnit.net's own lines inside VSTest's output: `[xUnit.net 00:00:01.40]     NS.Class.Method
 *   [FAIL]`, then the message on the next `[xUnit.net …]` line;
 * - Microsoft.Testing.Platform: `failed Method(x: 1) (6s 220ms)`, then the message, indented.
 * The message's first line gives the kind (`System.DivideByZeroException : …` →
 * `DivideByZeroException`; none for a failed `Assert.…`); MSTest's `Test method … threw
 * exception:` puts the exception on the line after.
 * A compiler or build error is `F.cs(229,30): error CS0618: msg [proj.csproj]`, repeated in the
 * final summary (counted once).
 * Keys: `dotnet:<test name>` plus `:<kind>` when the test threw rather than failed an assertion;
 * `dotnet:<code>:<first quoted name>:<path>`.
 */
import {
  buildKey,
  failureKind,
  firstQuotedSymbol,
  normalisePath,
  stripErrorMarker
} from '../normalise.js'
import type { Finding, ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

/** A .NET test name: a dotted identifier, then its arguments if any (which may hold blanks). */
const TEST_NAME = String.raw`([A-Za-z_][\w\`+<>$]*(?:\.[\w\`+<>$]+)*(?:\s?\(.{0,1000}\))?)`
const DURATION = String.raw`(?:\[\s*<?\s*[\d.]+\s*(?:ms|s|m|min|h)(?:\s+[\d.]+\s*(?:ms|s|m))*\s*\]|\((?:\d+(?:\.\d+)?\s?(?:h|m|s|ms)\s?){1,4}\))`
const VSTEST_FAILED = new RegExp(String.raw`^\s*(?:Failed|X)\s+${TEST_NAME}\s+${DURATION}\s*$`)
const VSTEST_FAILED_OLD = new RegExp(String.raw`^\s*Failed\s+${TEST_NAME}\s*$`)
const XUNIT_PREFIX = /^\[xUnit\.net [\d:.]+\]\s*/
const XUNIT_FAILED = /^\[xUnit\.net [\d:.]+\]\s+(\S.{0,1000}?)\s+\[FAIL\]\s*$/
const MTP_FAILED = new RegExp(String.raw`^\s*failed\s+(\S.{0,1000}?)\s+${DURATION}\s*$`)
const ERROR_MESSAGE_HEADER = /^\s*Error Message:\s*$/
const THREW = /threw exception:\s*$/
const BUILD_ERROR =
  /^\s*(?:\d{1,4}>\s*)?((?:[A-Za-z]:)?[^\s(:][^(:]{0,1000}?)(?:\(\d+(?:,\d+)*\))?\s*:\s+error\s+([A-Z]{2,}\d{3,}):\s*(.*?)(?:\s+\[[^\]]{1,1000}\])?\s*$/
/** Lines after a failed test within which its message must start. */
const MESSAGE_WITHIN = 4

export const dotnetGrepPatterns = [
  '^\\s*(Failed|failed|X) .* (\\[[^]]+\\]|\\([^)]+\\))$',
  '^Failed +[A-Za-z_][^ ]*$',
  '\\[FAIL\\]$',
  ': error [A-Z]{2,}[0-9]{3,}: '
]

/** Lines that end a failed test's block: a blank line, the run's totals, captured output. */
const BLOCK_END =
  /^\s*(?:$|Total tests:|Test Run |Results File:|Passed!|Failed!|Standard (?:Output|Error) Messages:)/

export function createDotnetParser(): ToolParser {
  const tests = new Map<string, Finding & { kind?: string }>()
  /** Per test: its block (message, expected and actual, stack trace), from the runner's lines. */
  const details = new FailureDetails()
  const builds = new FindingSet()
  /** A failed test whose message is still to come. */
  let waiting: { name: string; waited: number; threw: boolean } | undefined
  return {
    tool: 'dotnet',
    push(raw) {
      const name = failedTestName(raw)
      if (details.collecting) {
        if (name !== undefined || BLOCK_END.test(raw.replace(XUNIT_PREFIX, ''))) details.close()
        else details.add(raw)
      }
      if (waiting !== undefined && readMessage(raw)) return true
      if (name !== undefined) {
        if (!tests.has(name) && tests.size < 1000) tests.set(name, { key: name, line: raw })
        waiting = { name, waited: 0, threw: false }
        details.open(name)
        return true
      }
      if (details.collecting) return true
      if (raw.indexOf(': error ') === -1) return false
      const build = BUILD_ERROR.exec(stripErrorMarker(raw))
      if (build === null) return false
      const code = build[2] ?? ''
      // tsc's codes belong to tsc; MSB3073 and friends wrap a failed command.
      if (code.startsWith('TS') || code === 'TESTERROR') return false
      const path = normalisePath(build[1] ?? '')
      builds.add(
        buildKey('dotnet', code, firstQuotedSymbol(build[3] ?? ''), path),
        raw,
        code.startsWith('MSB')
      )
      return false
    },
    finish(): Finding[] {
      const findings = new FindingSet(details)
      for (const [name, test] of tests)
        findings.add(buildKey('dotnet', name, test.kind), test.line, false, name)
      for (const finding of builds.list())
        findings.add(finding.key, finding.line, finding.secondary)
      return findings.list()
    }
  }

  /**
   * Reads a line after a failed test, up to the first line of its message, whose kind the test
   * takes. Returns false for a line that is not the test's (the next failed test, or nothing
   * came within MESSAGE_WITHIN lines), which is then read afresh.
   */
  function readMessage(raw: string): boolean {
    if (waiting === undefined) return false
    if (failedTestName(raw) !== undefined || waiting.waited >= MESSAGE_WITHIN) {
      waiting = undefined
      return false
    }
    waiting.waited += 1
    const text = raw.replace(XUNIT_PREFIX, '').trim()
    if (text === '' || ERROR_MESSAGE_HEADER.test(text)) return true
    if (THREW.test(text) && !waiting.threw) {
      waiting.threw = true
      return true
    }
    const test = tests.get(waiting.name)
    if (test !== undefined) test.kind ??= failureKind(text)
    waiting = undefined
    return true
  }
}

/** The failed test a line names, in any of the runners' forms; undefined for other lines. */
function failedTestName(raw: string): string | undefined {
  const first = raw.trimStart().charCodeAt(0)
  if (first === 91) {
    // [: xUnit.net
    if (!raw.endsWith('[FAIL]') && !raw.endsWith('[FAIL] ')) return undefined
    return XUNIT_FAILED.exec(raw)?.[1]
  }
  if (first !== 70 && first !== 102 && first !== 88) return undefined // F, f, X
  const match = VSTEST_FAILED.exec(raw) ?? MTP_FAILED.exec(raw) ?? VSTEST_FAILED_OLD.exec(raw)
  return match?.[1]?.trim()
}
