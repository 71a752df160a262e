/**
 * RSpec. Under `Failures:` each failure is `  1) Cart#total adds the prices`, then
 * `     Failure/Error: <source line>`, then either the exception's class on a line of its own
 * (`     ZeroDivisionError:`) or the expectation's message, and the backtrace (`     #
 * ./spec/cart_spec.rb:10:in …`). The closing `Failed examples:` list repeats each one with its
 * file, `rspec ./spec/cart_spec.rb:4 # Cart#total adds the prices` (or the `[1:2:1]` id form);
 * a log cut before that list takes the file from the failure's backtrace.
 * A spec file that raised while loading is `An error occurred while loading ./spec/a_spec.rb.`,
 * then `Failure/Error: <source line>` and the exception's class at column 0 (`NameError:`).
 * Key: `rspec:<spec file>><description>` (never the line number), plus `:<kind>` when the
 * example raised rather than failed an expectation (`:ZeroDivisionError`, `:NoMethodError`);
 * `rspec:<spec file>>(load):<class>` for a file that could not load.
 */
import { buildKey, failureKind, normalisePath } from '../normalise.js'
import type { Finding, ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet, MAX_LINES_PER_FAILURE } from './common.js'

const FAILURES = /^Failures:\s*$/
const ENTRY = /^ {2}(\d+)\) (\S.{0,1000}?)\s*$/
const FAILURE_ERROR = /^\s+Failure\/Error:/
/** The exception's class alone on its line, e.g. `     ZeroDivisionError:` or `NoMethodError:`. */
const EXCEPTION_CLASS = /^\s{3,}((?:[A-Z]\w*::)*[A-Z]\w*):\s*$/
const BACKTRACE_SPEC = /^\s+# (\S{1,1000}?_spec\.rb):\d+/
const FAILED_EXAMPLE = /^rspec (\S{1,1000}?\.rb)(?::\d+|\[[\d:]+\])? # (.{1,1000}?)\s*$/
const END_OF_FAILURES = /^(?:Finished in |Failed examples:|\d+ examples?, )/
const LOAD_ERROR = /^An error occurred while loading (\S{1,1000}?)\.?\s*$/
/** The class of what a file raised while loading, at column 0: `NameError:`. */
const LOAD_ERROR_CLASS = /^((?:[A-Z]\w*::)*[A-Z]\w*):\s*$/
/** Lines after a load error's header within which its class must come. */
const LOAD_ERROR_LINES = 200

export const rspecGrepPatterns = [
  '^Failures:',
  '^rspec .*\\.rb(:[0-9]+|\\[[0-9:]+\\])? # ',
  '^An error occurred while loading '
]

interface Example {
  description: string
  line: string
  file?: string
  kind?: string
  /** The Failure/Error line was read: the class line, if any, comes next. */
  afterFailureLine: boolean
}

export function createRspecParser(): ToolParser {
  const examples: Example[] = []
  const listed: { file: string; description: string; line: string }[] = []
  let inFailures = false
  let current: Example | undefined
  let budget = 0
  /** Per example (its description), per file that failed to load: the lines of its report. */
  const details = new FailureDetails()
  /** A spec file that failed to load, waiting for the class of what it raised. */
  let loading: { file: string; line: string; lines: number } | undefined
  /** After a load error's class: its message and backtrace, up to the run's end. */
  let loadReport = false
  const loadErrors = new FindingSet(details)
  return {
    tool: 'rspec',
    push(line) {
      if (loadReport) {
        loadReport = !END_OF_FAILURES.test(line) && !LOAD_ERROR.test(line) && !FAILURES.test(line)
        if (loadReport && details.add(line)) return true
        loadReport = false
        details.close()
      }
      if (loading !== undefined) {
        const { file } = loading
        const type = LOAD_ERROR_CLASS.exec(line)
        if (type !== null) {
          const id = `${file}>(load)`
          loadErrors.add(
            buildKey('rspec', id, lastSegment(type[1] ?? '')),
            loading.line,
            false,
            file
          )
          loading = undefined
          details.add(line)
          loadReport = true
          return true
        } else if (LOAD_ERROR.test(line) || ++loading.lines > LOAD_ERROR_LINES) {
          loadErrors.add(buildKey('rspec', `${file}>(load)`), loading.line, false, file)
          loading = undefined
          details.close()
        } else {
          details.add(line)
          return true
        }
      }
      if (line.charCodeAt(0) === 65 && line.startsWith('An error occurred while loading ')) {
        const load = LOAD_ERROR.exec(line)
        if (load !== null) {
          loading = { file: normalisePath(load[1] ?? ''), line, lines: 0 }
          // Named by the file: an example's window is named by its description, never a path.
          details.open(loading.file, line)
          return true
        }
      }
      if (line.charCodeAt(0) === 114 && line.startsWith('rspec ')) {
        const example = FAILED_EXAMPLE.exec(line)
        if (example !== null && listed.length < 1000) {
          listed.push({
            file: normalisePath(example[1] ?? ''),
            description: example[2] ?? '',
            line
          })
        }
        return false
      }
      if (!inFailures) {
        inFailures = FAILURES.test(line)
        budget = MAX_LINES_PER_FAILURE
        return inFailures
      }
      if (END_OF_FAILURES.test(line) || --budget < 0) {
        inFailures = false
        current = undefined
        details.close()
        return false
      }
      const entry = ENTRY.exec(line)
      if (entry !== null) {
        current = { description: entry[2] ?? '', line, afterFailureLine: false }
        if (examples.length < 1000) examples.push(current)
        details.open(current.description)
        budget = MAX_LINES_PER_FAILURE
        return true
      }
      if (current === undefined) return true
      details.add(line)
      if (FAILURE_ERROR.test(line)) {
        current.afterFailureLine = true
        return true
      }
      if (current.afterFailureLine && line.trim() !== '') {
        current.afterFailureLine = false
        const type = EXCEPTION_CLASS.exec(line)
        if (type !== null) current.kind = failureKind(lastSegment(type[1] ?? ''))
      }
      if (current.file === undefined) {
        const frame = BACKTRACE_SPEC.exec(line)
        if (frame !== null) current.file = normalisePath(frame[1] ?? '')
      }
      return true
    },
    finish(): Finding[] {
      if (loading !== undefined)
        loadErrors.add(
          buildKey('rspec', `${loading.file}>(load)`),
          loading.line,
          false,
          loading.file
        )
      loading = undefined
      const findings = new FindingSet(details)
      const kinds = new Map(examples.map((example) => [example.description, example.kind]))
      const listedDescriptions = new Set<string>()
      for (const { file, description, line } of listed) {
        const key = buildKey('rspec', `${file}>${description}`, kinds.get(description))
        findings.add(key, line, false, description)
        listedDescriptions.add(description)
      }
      for (const example of examples) {
        if (listedDescriptions.has(example.description)) continue
        const id =
          example.file === undefined
            ? example.description
            : `${example.file}>${example.description}`
        findings.add(buildKey('rspec', id, example.kind), example.line, false, example.description)
      }
      return [...loadErrors.list(), ...findings.list()]
    }
  }
}

/** `RSpec::Expectations::ExpectationNotMetError` → `ExpectationNotMetError`. */
function lastSegment(name: string): string {
  const cut = name.lastIndexOf('::')
  return cut === -1 ? name : name.slice(cut + 2)
}
