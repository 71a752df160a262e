/**
 * Maven Surefire (and Failsafe). A failed test's line is `[ERROR] com.x.FooTest.method -- Time
 * elapsed: 0.171 s <<< FAILURE!` (Surefire 3.1 and later), `[ERROR] com.x.FooTest.method  Time
 * elapsed: 0.01 s  <<< ERROR!` (3.0) or `[ERROR] method(com.x.FooTest)  Time elapsed: …` (2.x),
 * and the line after it is the exception. Maven's end-of-run summary names the tests again under
 * `[ERROR] Failures:` and `[ERROR] Errors:` as `[ERROR]   FooTest.method:42 message` or
 * `[ERROR]   FooTest.method:42 » NullPointer message` (no package, no parameters); it counts for
 * the tests the per-test lines did not name (a log cut at the start). The class line `Tests run:
 * …, Failures: 1 … <<< FAILURE! -- in com.x.FooTest` counts only when no test of that class is
 * named (a class that failed to initialise). On GitHub `[ERROR]` can read `Error:`. Surefire 2.x's
 * summary is `Failed tests:` and `Tests in error:` (no level), each entry `  method(com.x.FooTest)`
 * (2.19: `  FooTest.method:42 » NullPointer`), the first one sometimes on the header's line.
 * Key: `surefire:<class without package>.<method>`, plus `:<kind>` for a test in error: the
 * exception's simple class name (`NullPointerException` for `java.lang.NullPointerException`),
 * the kind every parser uses (see `failureKind`). A test named only in the summary keeps the
 * summary's shortened type (`» NullPointer`), since the log holds nothing more.
 */
import { buildKey, failureKind } from '../normalise.js'
import type { Finding, ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet, indentOf } from './common.js'

/** `[ERROR] `, `Error: ` on GitHub, or nothing (Surefire before 2.13 printed no level). */
const PREFIX = String.raw`^(?:(?:\[ERROR\]|Error:)\s+)?`
const TEST_LINE = new RegExp(
  `${PREFIX}(\\S.{0,1000}?)\\s+(?:-+\\s+)?Time elapsed:.*<<< (FAILURE|ERROR)!`
)
const OLD_ID = /^(.{1,1000})\(([\w.$]{1,500})\)$/
const CLASS_LINE = new RegExp(
  `${PREFIX}Tests run:.*<<< (?:FAILURE|ERROR)!.*?\\s(?:in\\s+)?([\\w.$]{1,500})\\s*$`
)
const SUMMARY_HEADER = /^(?:\[ERROR\]|Error:)\s+(Failures|Errors):\s*$/
/** `FooTest.method:42 message`, `FooTest.method:42->helper:7 » Type message`, `FooTest » Type`. */
const SUMMARY_ENTRY =
  /^(?:\[ERROR\]|Error:) {2,}(?!Run \d+:)([\w$]{1,500}(?:\.[\w$]{1,500})?)(?:[:\d]*(?:->[\w$.]+:\d+)*)(?: (?:» (\w{1,200}))?.*)?$/

/** Surefire 2.x's summary lists; an entry may follow on the header's line. */
const OLD_SUMMARY_HEADER = /^(Failed tests|Tests in error):\s*(.*)$/
const OLD_ID_ENTRY = /^[\w$]{1,500}\([\w.$]{1,500}\)/
const OLD_SUMMARY_ENTRY =
  /^\s*(?:([\w$]{1,500})\(([\w.$]{1,500})\)|([\w$]{1,500}\.[\w$]{1,500})(?::\d+)*(?: » (\w{1,200}))?)(?:[\s:].*)?$/

export const surefireGrepPatterns = [
  '^(Failed tests|Tests in error):',
  '<<< (FAILURE|ERROR)!',
  '^(\\[ERROR\\]|Error:) +(Failures|Errors): *$'
]

interface Named {
  cls: string
  method: string
  line: string
  kind?: string
  detailsId?: string
}

/** A line after a test's exception and frames: a blank, or Maven's next `[INFO]`/`[ERROR]` line. */
const DETAILS_END = /^(?:\s*$|\[[A-Z]+\]|(?:Error|Warning):\s)/

export function createSurefireParser(): ToolParser {
  const tests: Named[] = []
  const summary: Named[] = []
  const classes = new FindingSet()
  /** A test in error whose exception line comes next. */
  let awaitingException: Named | undefined
  /** Inside the end-of-run summary: which list. */
  let section: 'Failures' | 'Errors' | undefined
  /** Inside Surefire 2.x's summary: which list. */
  let oldSection: 'Failures' | 'Errors' | undefined
  /**
   * Reads one entry of Surefire 2.x's summary; false when the line is not one. `line` is the
   * line as printed: the list's header too for its first entry (`Failed tests:   method(…)`).
   */
  function addOld(text: string, list: 'Failures' | 'Errors', line = text): boolean {
    const entry = OLD_SUMMARY_ENTRY.exec(text)
    if (entry === null) return false
    const [cls, method] =
      entry[1] !== undefined ? [entry[2] ?? '', entry[1]] : splitId(entry[3] ?? '')
    const kind = list === 'Errors' ? entry[4] : undefined
    if (summary.length < 1000) summary.push({ cls, method, line, kind })
    return true
  }
  /** Per test: its exception and stack frames, the lines after its `<<< FAILURE!` line. */
  const details = new FailureDetails()
  return {
    tool: 'surefire',
    push(line) {
      if (details.collecting) {
        if (!DETAILS_END.test(line) && details.add(line)) {
          if (awaitingException === undefined) return true
        } else details.close()
      }
      if (awaitingException !== undefined) {
        const kind = failureKind(line)
        if (kind !== undefined) awaitingException.kind = kind
        awaitingException = undefined
        if (details.collecting) return true
      }
      if (section !== undefined) {
        const entry = SUMMARY_ENTRY.exec(line)
        if (entry !== null) {
          const [cls, method] = splitId(entry[1] ?? '')
          const kind = section === 'Errors' && entry[2] !== undefined ? entry[2] : undefined
          if (summary.length < 1000) summary.push({ cls, method, line, kind })
          return true
        }
        section = undefined
      }
      if (oldSection !== undefined) {
        // Entries are indented; a paste that lost the indent keeps `method(com.x.FooTest)`.
        const entryLike = indentOf(line) > 0 || OLD_ID_ENTRY.test(line)
        if (line.trim() !== '' && entryLike && addOld(line, oldSection)) return true
        oldSection = undefined
      }
      const first = line.charCodeAt(0)
      if (first === 70 || first === 84) {
        // F, T
        const old = OLD_SUMMARY_HEADER.exec(line)
        if (old !== null) {
          oldSection = old[1] === 'Tests in error' ? 'Errors' : 'Failures'
          if ((old[2] ?? '') !== '') addOld(old[2] ?? '', oldSection, line)
          return true
        }
      }
      const header = SUMMARY_HEADER.exec(line)
      if (header !== null) {
        section = header[1] === 'Errors' ? 'Errors' : 'Failures'
        return true
      }
      if (line.indexOf('<<< ') === -1) return false
      if (line.indexOf('Tests run:') !== -1) {
        const cls = CLASS_LINE.exec(line)
        if (cls !== null) classes.add(buildKey('surefire', simpleName(cls[1] ?? '')), line)
        return false
      }
      const test = TEST_LINE.exec(line)
      if (test === null) return false
      const id = test[1] ?? ''
      const old = OLD_ID.exec(id)
      const [cls, method] = old !== null ? [old[2] ?? '', old[1] ?? ''] : splitId(id)
      const named: Named = { cls: simpleName(cls), method, line, detailsId: String(tests.length) }
      if (tests.length < 1000) tests.push(named)
      details.open(String(tests.length - 1))
      awaitingException = named
      return true
    },
    finish(): Finding[] {
      oldSection = undefined
      const findings = new FindingSet(details)
      const namedClasses = new Set<string>()
      const namedTests = new Set<string>()
      for (const test of tests) {
        const key = buildKey('surefire', `${test.cls}.${test.method}`, test.kind)
        findings.add(key, test.line, false, test.detailsId)
        namedClasses.add(test.cls)
        namedTests.add(`${test.cls}.${withoutParameters(test.method)}`)
      }
      for (const entry of summary) {
        const cls = simpleName(entry.cls)
        if (namedTests.has(`${cls}.${entry.method}`)) continue
        const id = entry.method === '' ? cls : `${cls}.${entry.method}`
        findings.add(buildKey('surefire', id, entry.kind), entry.line)
        namedClasses.add(cls)
      }
      const named = new Set([...namedClasses].map((cls) => buildKey('surefire', cls)))
      return [...findings.list(), ...classes.list().filter((finding) => !named.has(finding.key))]
    }
  }
}

/** `com.x.FooTest.method(params)` → [`com.x.FooTest`, `method(params)`]; `FooTest` → [`FooTest`, ``]. */
function splitId(id: string): [string, string] {
  const paren = id.search(/[([]/)
  const head = paren === -1 ? id : id.slice(0, paren)
  const dot = head.lastIndexOf('.')
  if (dot === -1) return [id, '']
  return [id.slice(0, dot), id.slice(dot + 1)]
}

/** `com.x.FooTest` → `FooTest` (the summary never prints the package). */
function simpleName(cls: string): string {
  const dot = cls.lastIndexOf('.')
  return dot === -1 ? cls : cls.slice(dot + 1)
}

/** `discount[1: discount(99, 50) = 50]` → `discount`, `addsTax(int)` → `addsTax`. */
function withoutParameters(method: string): string {
  const cut = method.search(/[([]/)
  return cut === -1 ? method : method.slice(0, cut)
}
