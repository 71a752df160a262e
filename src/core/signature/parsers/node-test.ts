/**
 * `node --test`. Spec reporter: the `✖ failing tests:` section lists each failing test as
 * `test at <path>:<line>:<col>` then `✖ <name> (<duration>)`. TAP reporter (the default when
 * output is not a terminal on Node 20): `not ok N - <name>` then a YAML block whose
 * `location:` gives the file; suites that failed only because of a subtest
 * (`failureType: 'subtestsFailed'`) are left out. Key: `node-test:<path>><name>`, plus `:<kind>`
 * when the test threw rather than failed an assertion (the error's type, or `timeout`): the line
 * after the name in the spec form, `name:` or `failureType: 'testTimeoutFailure'` in the TAP form.
 * Inline `✖` lines are used only when neither form is present (a cut log).
 */
import { buildKey, failureKind, normalisePath, stripTrailingDuration } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const TEST_AT = /^test at (.+?):\d+:\d+$/
const CROSS = /^(\s*)✖ (.+)$/
const NOT_OK = /^\s*not ok \d+ - /
/** A TAP directive after the name; found by one forward search (see `tapTestName`). */
const TAP_DIRECTIVE = /\s# (?:SKIP|TODO)\b/
const LOCATION = /^\s*location: '(.+?)(?::\d+:\d+)?'$/
const FAILURE_TYPE = /^\s*failureType: '([^']*)'$/
const ERROR_NAME = /^\s*name: '([\w$]{1,200})'$/
const DURATION_END = /\(\d+(?:\.\d+)?m?s\)$/
const SUITE_TYPE = /^\s*type: 'suite'$/

/**
 * The test name of a `not ok N - <name>` line: everything up to a ` # SKIP` / ` # TODO`
 * directive and the blanks before it. A lazy `(.*?)` followed by `\s+# …` would retry the
 * blank run from every position (quadratic on a long run of spaces), so the directive is
 * found by one forward search and the blanks are walked back over.
 */
function tapTestName(rest: string): string {
  const directive = TAP_DIRECTIVE.exec(rest)
  if (directive === null) return rest
  let end = directive.index
  while (end > 0 && /\s/.test(rest[end - 1] ?? '')) end--
  return rest.slice(0, end)
}

export const nodeTestGrepPatterns = ['^test at ', '^\\s*not ok [0-9]+ - ', '✖ ']

/** YAML lines of a TAP block that say nothing about the failure. */
const TAP_NOISE = /^(?:---|\.\.\.|duration_ms: .*|type: 'test')?$/
/** Lines that end a spec-form failure's details: the next failure, the run's totals. */
const SPEC_END = /^\s*(?:test at |✖ |ℹ )/

export function createNodeTestParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  let detailIds = 0
  /** Reading the lines under a spec-form failure's first error line. */
  let specDetails = false
  const inline = new FindingSet()
  const suites = new Set<string>()
  let inFailingSection = false
  let failingAt: string | undefined
  /** A failing test of the spec form's section, waiting for its error line. */
  let failing: { id: string; line: string } | undefined
  let tap:
    | {
        name: string
        line: string
        path?: string
        suite: boolean
        kind?: string
        detailsId: string
      }
    | undefined
  return {
    tool: 'node-test',
    push(line) {
      if (tap !== undefined && readTapDetail(line)) return tap !== undefined
      if (specDetails) {
        if (!SPEC_END.test(line) && details.add(line)) return true
        specDetails = false
        details.close()
      }
      if (failing !== undefined) {
        const text = line.trim()
        if (text === '') return true
        const detailsId = String(detailIds++)
        details.open(detailsId, line)
        specDetails = true
        findings.add(
          buildKey('node-test', failing.id, failureKind(text)),
          failing.line,
          false,
          detailsId
        )
        failing = undefined
        return true
      }
      const first = line.trimStart().charCodeAt(0)
      if (first === 0x2716) {
        // ✖
        const cross = CROSS.exec(line)
        if (cross === null) return
        const text = (cross[2] ?? '').trim()
        if (text === 'failing tests:') {
          inFailingSection = true
          return
        }
        // node's result lines always end with a duration; eslint's `✖ 3 problems` does not.
        if (!DURATION_END.test(text)) return
        const name = stripTrailingDuration(text)
        if (inFailingSection && failingAt !== undefined) {
          failing = { id: `${failingAt}>${name}`, line }
          failingAt = undefined
          return true
        } else if (!inFailingSection) inline.add(buildKey('node-test', name), line)
        return
      }
      if (first === 0x25b6) {
        // ▶ a suite: its own ✖ line later is not a test failure
        suites.add(buildKey('node-test', stripTrailingDuration(line.trim().slice(2).trim())))
        return
      }
      if (first === 116 && line.startsWith('test at ')) {
        const at = TEST_AT.exec(line)
        if (at !== null) failingAt = normalisePath(at[1] ?? '')
        return
      }
      if (first === 110 && line.indexOf('not ok ') !== -1) {
        const notOk = NOT_OK.exec(line)
        if (notOk !== null) {
          const name = tapTestName(line.slice(notOk[0].length))
          const detailsId = String(detailIds++)
          details.open(detailsId)
          tap = { name: name.replaceAll('\\#', '#'), line, suite: false, detailsId }
        }
      }
      return tap !== undefined
    },
    finish() {
      flushTap()
      if (failing !== undefined) findings.add(buildKey('node-test', failing.id), failing.line)
      failing = undefined
      if (findings.size > 0) return findings.list()
      return inline.list().filter((finding) => !suites.has(finding.key))
    }
  }

  /** Reads a line of the YAML block after `not ok`; returns false when the block is over. */
  function readTapDetail(line: string): boolean {
    if (tap === undefined) return false
    const text = line.trim()
    if (!TAP_NOISE.test(text) && !/^(?:not ok|ok) /.test(text)) details.add(line)
    if (text === '---' || text === '') return true
    if (text === '...') {
      flushTap()
      return true
    }
    if (text.startsWith('location:')) {
      const location = LOCATION.exec(line)
      if (location !== null) tap.path = normalisePath(location[1] ?? '')
      return true
    }
    if (text.startsWith('failureType:')) {
      const type = FAILURE_TYPE.exec(line)
      if (type !== null && type[1] === 'subtestsFailed') tap.suite = true
      if (type !== null && type[1] === 'testTimeoutFailure') tap.kind = 'timeout'
      return true
    }
    if (text.startsWith('name:')) {
      const name = ERROR_NAME.exec(line)
      if (name !== null) tap.kind ??= failureKind(name[1] ?? '')
      return true
    }
    if (SUITE_TYPE.test(line)) {
      tap.suite = true
      return true
    }
    if (text.startsWith('not ok ') || text.startsWith('ok ') || text.startsWith('# Subtest')) {
      flushTap()
      return false
    }
    return true
  }

  function flushTap(): void {
    if (tap !== undefined && !tap.suite) {
      const id = tap.path === undefined ? tap.name : `${tap.path}>${tap.name}`
      findings.add(buildKey('node-test', id, tap.kind), tap.line, false, tap.detailsId)
    }
    details.close()
    tap = undefined
  }
}
