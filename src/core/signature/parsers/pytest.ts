/**
 * pytest. The short summary (`FAILED tests/t.py::test_x[p] - AssertionError: …`, `ERROR
 * tests/t.py::test_y`) and verbose result lines (`tests/t.py::test_x FAILED [ 50%]`, xdist's
 * `[gw1] [ 50%] FAILED tests/t.py::test_x`) give the node id; the message after ` - ` is cut
 * to the terminal width, so it never enters the key. A collection error has no test:
 * `ERROR tests/t.py - ImportError` or `___ ERROR collecting tests/t.py ___`.
 * The kind comes from the test's section of the FAILURES or ERRORS report (`____ test_x ____`):
 * the exception type of its last `tests/t.py:9: KeyError` line, else of its first `E   …` line.
 * A `Captured stdout call` (or stderr, log) part of a section is what the test printed: another
 * tool's failures there are not this run's, nor a whole pytest session the test ran (pytester,
 * from its `test session starts` banner to its `N failed in 0.01s` one).
 * A paste of the FAILURES or ERRORS report alone (no summary, no result lines) names each test
 * only in its section's title: its file is then the first `tests/t.py:9: ` place in the section
 * (old py.test: `file /abs/tests/t.py, line 9`).
 * Key: `pytest:<node id>`, or `pytest:error:<node id or path>` for errors outside a test body,
 * plus `:<kind>` when the test raised rather than failed an assertion.
 */
import { buildKey, failureKind, normalisePath } from '../normalise.js'
import type { Finding, ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

/** A node id: runs of characters other than space and `[`, or a bracketed parameter id. */
const NODE_ID = String.raw`((?:[^\s\[]|\[[^\]]{0,500}\]){1,1000})`
const SUMMARY = new RegExp(
  String.raw`^(?:\[gw\d+\]\s+)?(?:\[\s*\d+%\]\s+)?(FAILED|ERROR)\s+(?:\[[\d.]+m?s\]\s+)?` +
    NODE_ID +
    String.raw`(?:\s+-\s.*)?$`
)
const VERBOSE = new RegExp(`^${NODE_ID}\\s+(FAILED|ERROR)(?:\\s+\\[\\s*\\d+%\\])?\\s*$`)
const COLLECTING = /^_{2,}\s+ERROR collecting (\S+)\s+_{2,}$/
/** The header of a report section: `____ test_x[p] ____`, `____ ERROR at setup of test_y ____`. */
const SECTION = /^_{3,} (.{1,1000}?) _{3,}$/
/** Where a section's exception was raised, with its type: `shop/pricing.py:5: KeyError`. */
const RAISED_AT = /^\S{1,1000}\.py:\d+: ([A-Za-z_][\w.]{0,200})$/
const E_LINE = /^E\s+(.*)$/
/** A place in a section's traceback: `tests/t.py:9: ` or old py.test's `file /abs/t.py, line 9`. */
const PLACE = /^(?:(\S{1,1000}\.py):\d+:(?: |$)|file (\S{1,1000}\.py), line \d+$)/
/** A big banner (`==== FAILURES ====`, `==== short test summary info ====`) ends a section. */
const BANNER = /^={3,} /
const CAPTURED = /^-{3,} Captured (?:stdout|stderr|log) /
/** The first and the last banner of a pytest session. */
const SESSION_START = /^={3,} test session starts ={3,}$/
const SESSION_END = /^={3,} .{0,500}\bin \d+(?:\.\d+)?s\b.{0,100} ={3,}$/
/**
 * A section's lines kept as details: not the test's source around the failing line (indented
 * code) nor the `_ _ _` frame separators; the `>` line, the `E` lines, `path.py:9:` locations
 * and local variables stay.
 */
const SOURCE_CONTEXT = /^(?:\s|_ _ )/

export const pytestGrepPatterns = [
  '^(\\[gw[0-9]+\\] +)?(\\[ *[0-9]+%\\] +)?(FAILED|ERROR) ',
  ' (FAILED|ERROR)( +\\[ *[0-9]+%\\])? *$',
  'ERROR collecting '
]

interface Result {
  id: string
  isError: boolean
  line: string
  /** The title of the report section it was read from, when it was (its details' window). */
  section?: string
}

interface Section {
  title: string
  line: string
  /** The first place in its traceback: the test's file. */
  file?: string
  kindAt?: string
  firstE?: string
  captured: boolean
  /** Inside a pytest session the test ran and printed. */
  nested?: boolean
}

export function createPytestParser(): ToolParser {
  const results: Result[] = []
  const kinds = new Map<string, string | undefined>()
  /** Each section's title and file, for a report without a summary. */
  const sections: { title: string; file: string; line: string }[] = []
  const details = new FailureDetails()
  let section: Section | undefined
  return {
    tool: 'pytest',
    push(line) {
      if (section !== undefined && readSection(line)) return true
      const failed = line.indexOf('FAILED')
      const error = failed === -1 ? line.indexOf('ERROR') : -1
      if (failed === -1 && error === -1) {
        if (line.charCodeAt(0) === 95) return openSection(line) // _
        return false
      }
      const summary = SUMMARY.exec(line)
      if (summary !== null) {
        add(summary[2] ?? '', summary[1] === 'ERROR', line)
        return false
      }
      const verbose = VERBOSE.exec(line)
      if (verbose !== null) {
        add(verbose[1] ?? '', verbose[2] === 'ERROR', line)
        return false
      }
      const collecting = COLLECTING.exec(line)
      if (collecting !== null) add(collecting[1] ?? '', true, line)
      return openSection(line)
    },
    finish(): Finding[] {
      closeSection()
      const titled = new Set(results.map(({ id, isError }) => sectionTitle(id, isError)))
      for (const { title, file, line } of sections) {
        if (titled.has(title)) continue
        const setup = /^ERROR at (?:setup|teardown) of (.+)$/.exec(title)
        const name = setup?.[1] ?? title
        const open = name.indexOf('[')
        const path = open === -1 ? name : name.slice(0, open)
        add(
          `${file}::${path.replaceAll('.', '::')}${open === -1 ? '' : name.slice(open)}`,
          setup !== null,
          line,
          title
        )
      }
      const findings = new FindingSet(details)
      for (const { id, isError, line, section: detailsId } of results) {
        const title = sectionTitle(id, isError)
        const kind = kinds.get(title)
        findings.add(
          isError ? buildKey('pytest', 'error', id, kind) : buildKey('pytest', id, kind),
          line,
          false,
          detailsId ?? title
        )
      }
      return findings.list()
    },
    capturing: () => section?.captured === true
  }

  function add(rawId: string, isError: boolean, line: string, section?: string): void {
    if (!rawId.includes('::') && !/\.py$/.test(rawId)) return // not a pytest node id (Gradle, Maven…)
    if (results.length >= 1000) return
    const separator = rawId.indexOf('::')
    const id =
      separator === -1
        ? normalisePath(rawId)
        : normalisePath(rawId.slice(0, separator)) + rawId.slice(separator)
    results.push(section === undefined ? { id, isError, line } : { id, isError, line, section })
  }

  function openSection(line: string): boolean {
    const header = SECTION.exec(line)
    if (header === null) return false
    closeSection()
    section = { title: (header[1] ?? '').trim(), captured: false, line }
    details.open(section.title)
    return true
  }

  /** Reads a line inside a section; false when the line ends it (it is then read afresh). */
  function readSection(line: string): boolean {
    if (section === undefined) return false
    if (section.nested === true) {
      if (SESSION_END.test(line)) section.nested = false
      return true
    }
    if (section.captured && SESSION_START.test(line)) {
      section.nested = true
      return true
    }
    if (BANNER.test(line) || SECTION.test(line)) {
      closeSection()
      return false
    }
    if (CAPTURED.test(line)) {
      section.captured = true
      details.close()
      return true
    }
    if (section.captured) return true
    if (section.file === undefined) {
      const place = PLACE.exec(line)
      if (place !== null) section.file = normalisePath(place[1] ?? place[2] ?? '')
    }
    if (!SOURCE_CONTEXT.test(line)) details.add(line)
    const raised = RAISED_AT.exec(line)
    if (raised !== null) section.kindAt = raised[1]
    else if (section.firstE === undefined) {
      const e = E_LINE.exec(line)
      if (e !== null) section.firstE = e[1]
    }
    return true
  }

  function closeSection(): void {
    if (section === undefined) return
    if (kinds.size < 1000) {
      const type = section.kindAt ?? section.firstE
      kinds.set(section.title, type === undefined ? undefined : failureKind(type))
      if (section.file !== undefined && !section.title.startsWith('ERROR collecting ')) {
        sections.push({ title: section.title, file: section.file, line: section.line })
      }
    }
    details.close()
    section = undefined
  }
}

/**
 * The section title pytest gives a result: the node id after its file, `::` read as `.`
 * (`TestCart.test_total[a-1]`); errors are `ERROR at setup of …` or `ERROR collecting <path>`.
 */
function sectionTitle(id: string, isError: boolean): string {
  const separator = id.indexOf('::')
  if (separator === -1) return `ERROR collecting ${id}`
  const name = id.slice(separator + 2).replaceAll('::', '.')
  return isError ? `ERROR at setup of ${name}` : name
}
