/**
 * go test, go build and go vet.
 * - Tests: `--- FAIL: TestX/sub (0.00s)` (indented for subtests; the parents fail too and are
 *   left out), attributed to the package of the `FAIL\t<pkg>\t0.5s` line that closes the
 *   package's output; `go test -json` lines with `"Action":"fail"` and a `"Test"`. A benchmark's
 *   name loses the `-N` GOMAXPROCS suffix (`BenchmarkTotal-8`), which changes with the machine.
 *   A test that panicked (`panic: …` right after its `--- FAIL`) gets the kind `panic`.
 * - A test binary that timed out (`panic: test timed out after 2s`) names the tests that were
 *   running: in the `running tests:` list (Go 1.20 and later, tab-indented) or, in older
 *   releases, as `pkg.TestX(…)` frames of the goroutine dump (`TestMain` is not a test), or
 *   else, in verbose output, as the last `=== RUN` test. They get the kind `timeout`.
 *   Key: `go:<pkg>:<TestX/sub>` (or `go:<TestX/sub>` when no package line was seen), plus
 *   `:panic` or `:timeout`.
 * - Compile and vet diagnostics at column 0: `./main.go:7:2: undefined: Store`.
 *   Key: `go:<path>:<masked message>` (identifiers kept, numbers masked).
 * - A package that failed with neither: `FAIL\t<pkg> [build failed]` or a bare `FAIL\t<pkg>`.
 *   Key: `go:<pkg>:(package failed)` / `go:<pkg>:[build failed]`.
 */
import { buildKey, maskMessage, normalisePath } from '../normalise.js'
import type { Finding, ToolParser } from '../types.js'
import { DETAIL_LIMITS, FailureDetails } from '../details.js'
import { FindingSet, indentOf } from './common.js'
import { GOLANGCI_ISSUE } from './golangci-lint.js'

const TEST_FAIL = /^\s*--- FAIL: (\S+)/
const PACKAGE_FAIL = /^FAIL\t(\S+)(?:\t|\s+\[([^\]]{1,80})\]|\s*$)/
const PACKAGE_OK = /^ok\s+(\S+)/
const DIAGNOSTIC = /^((?:\.{1,2}\/)?(?:[A-Za-z]:)?[^\s:][^:\s]{0,1000}\.go):\d+(?::\d+)?: (.*)$/
const JSON_FAIL = /"Action":"fail"/
const JSON_PACKAGE = /"Package":"([^"]{1,500})"/
const JSON_TEST = /"Test":"((?:[^"\\]|\\.){1,1000})"/
const RUNNING_TEST = /^\s+(Test\w*(?:\/\S+)?) \(/
/** A test function's frame in a goroutine dump: `example.com/shop/pricing.TestSlow(0x0?)`. */
const TEST_FRAME = /^[\w./~-]{1,500}\.(Test(?!Main\()[A-Z0-9_]\w*)(?:\.func\d+)*\(/
const RUN_LINE = /^=== RUN\s+(\S+)/
/** What a test printed with `t.Errorf` and friends: `    total_test.go:14: got 1, want 2`. */
const TEST_OUTPUT = /^\s+\S{1,500}\.go:\d+: /
/** Lines that end a panic's goroutine dump: the package's result. */
const DUMP_END = /^(?:FAIL|ok|exit status )/
/** The GOMAXPROCS suffix Go appends to a benchmark's name, and to a test's under -cpu. */
const PROCS_SUFFIX = /-\d+$/

export const goGrepPatterns = [
  '^\\s*--- FAIL: ',
  '^FAIL\\s',
  '^\\S+\\.go:[0-9]+(:[0-9]+)?: ',
  '"Action":"fail"'
]

/** Most failed tests remembered per log (the parent check is quadratic in this). */
const MAX_TESTS = 2000

function unescapeJson(text: string): string {
  try {
    return JSON.parse(`"${text}"`) as string
  } catch {
    return text
  }
}

interface FailedTest {
  name: string
  line: string
  pkg?: string
  kind?: string
  /** The window of its details (what it printed, its panic). */
  detailsId?: string
}

export function createGoParser(): ToolParser {
  const tests: FailedTest[] = []
  let pending: FailedTest[] = []
  const diagnostics = new FindingSet()
  const packages = new FindingSet()
  let timedOut = false
  /** The count of recorded tests when the last `--- FAIL` line was read. */
  let lastFailed = -1
  /** The test of the last `=== RUN` line (verbose output). */
  let lastRun: string | undefined
  /** Tests recorded when the current timeout panic began. */
  let beforeTimeout = 0
  const details = new FailureDetails()
  /** The indentation of the `--- FAIL` line whose output follows (-1: none). */
  let outputIndent = -1
  /** Inside a panic's goroutine dump, which goes to the details of the test that panicked. */
  let inDump = false
  /** In verbose output, what the running test printed so far (before its `--- FAIL` line). */
  let running: { name: string; lines: string[] } | undefined
  let detailIds = 0
  return {
    tool: 'go',
    push(line) {
      const more = readDetails(line)
      if (more !== undefined) return more
      const first = line.charCodeAt(0)
      if (first === 123) {
        // {: a `go test -json` event
        if (!JSON_FAIL.test(line)) return
        const test = JSON_TEST.exec(line)
        const pkg = JSON_PACKAGE.exec(line)?.[1]
        if (test !== null) record({ name: unescapeJson(test[1] ?? ''), line, pkg })
        else if (pkg !== undefined) packageFailed(pkg, undefined, line)
        return
      }
      if (timedOut && (first === 32 || first === 9)) {
        const running = RUNNING_TEST.exec(line)
        if (running !== null) {
          record({ name: running[1] ?? '', line, kind: 'timeout' })
          return true
        }
      }
      if (timedOut && first !== 9 && first !== 32) {
        const frame = TEST_FRAME.exec(line)
        if (frame !== null) {
          record({ name: frame[1] ?? '', line, kind: 'timeout' })
          return true
        }
      }
      if (first === 32 || first === 45 || first === 9) {
        // ' ', '-', tab
        if (line.indexOf('--- FAIL: ') === -1) {
          if (
            running !== undefined &&
            running.lines.length < DETAIL_LIMITS.lines &&
            TEST_OUTPUT.test(line)
          )
            running.lines.push(line)
          return timedOut
        }
        const test = TEST_FAIL.exec(line)
        if (test !== null) {
          const name = test[1] ?? ''
          const detailsId = String(detailIds++)
          const printed = running?.name === name ? running.lines : []
          details.open(detailsId, ...printed)
          outputIndent = indentOf(line)
          record({ name, line, detailsId })
          lastFailed = tests.length + pending.length
          return true
        }
        return timedOut
      }
      if (first === 70 && line.startsWith('FAIL')) {
        const pkg = PACKAGE_FAIL.exec(line)
        if (pkg !== null) packageFailed(pkg[1] ?? '', pkg[2], line)
        return timedOut
      }
      if (first === 111 && line.startsWith('ok ')) {
        const pkg = PACKAGE_OK.exec(line)
        if (pkg !== null) assignPending(pkg[1])
        return
      }
      if (first === 112 && line.startsWith('panic: ')) {
        if (line.startsWith('panic: test timed out')) {
          timedOut = true
          beforeTimeout = tests.length + pending.length
          details.open('timeout', line)
          inDump = true
          return true
        }
        // A panic right after a test's `--- FAIL` line is that test's.
        const last = pending.at(-1) ?? tests.at(-1)
        if (last !== undefined && lastFailed === tests.length + pending.length) {
          last.kind ??= 'panic'
          if (last.detailsId !== undefined) {
            details.resume(last.detailsId)
            details.add(line)
            inDump = true
            return true
          }
        }
        return timedOut
      }
      if (first === 61 && line.startsWith('=== RUN')) {
        // =: in verbose output the last test started is the one a timeout interrupts
        lastRun = RUN_LINE.exec(line)?.[1]
        running = lastRun === undefined ? undefined : { name: lastRun, lines: [] }
        return timedOut
      }
      if (line.indexOf('.go:') === -1) return timedOut
      const diagnostic = DIAGNOSTIC.exec(line)
      // A golangci-lint issue (its linter named at the end) is that parser's.
      if (diagnostic !== null && !GOLANGCI_ISSUE.test(line)) {
        const message = (diagnostic[2] ?? '').replace(/^vet: /, '')
        if (message.startsWith('too many errors')) return timedOut
        diagnostics.add(
          buildKey('go', normalisePath(diagnostic[1] ?? ''), maskMessage(message, 80)),
          line
        )
      }
      return timedOut
    },
    finish(): Finding[] {
      endTimeout('')
      assignPending(undefined)
      return [...testFindings(), ...diagnostics.list(), ...packageFindings()]
    }
  }

  /**
   * The details of the failed test being read: the lines under its `--- FAIL` line indented
   * deeper (what it printed), and a panic's goroutine dump up to the package's result line.
   * Undefined when the line is not one of them (it is then read as usual).
   */
  function readDetails(line: string): boolean | undefined {
    if (inDump) {
      if (DUMP_END.test(line)) {
        inDump = false
        details.close()
        return undefined
      }
      details.add(line)
      // A timeout's dump is read as usual too: it names the tests that were running.
      return timedOut ? undefined : true
    }
    if (outputIndent < 0) return undefined
    if (line.trim() === '' || (indentOf(line) > outputIndent && !TEST_FAIL.test(line))) {
      if (details.add(line)) return true
    }
    outputIndent = -1
    if (!line.startsWith('panic: ')) details.close()
    return undefined
  }

  function record(found: FailedTest): void {
    if (tests.length + pending.length >= MAX_TESTS) return
    const test = { ...found, name: withoutProcsSuffix(found.name) }
    if (test.kind === 'timeout') test.detailsId ??= 'timeout'
    if (test.pkg !== undefined) tests.push(test)
    else pending.push(test)
  }

  /** A timeout whose running tests were named nowhere: the last test started is the one. */
  function endTimeout(line: string): void {
    if (timedOut && tests.length + pending.length === beforeTimeout && lastRun !== undefined) {
      record({ name: lastRun, line, kind: 'timeout' })
    }
    timedOut = false
  }

  function packageFailed(pkg: string, reason: string | undefined, line: string): void {
    endTimeout(line)
    const before = tests.length
    assignPending(pkg)
    if (tests.length > before) return
    if (tests.some((test) => test.pkg === pkg)) return
    packages.add(
      buildKey('go', pkg, reason === undefined ? '(package failed)' : `[${reason}]`),
      line
    )
  }

  function assignPending(pkg: string | undefined): void {
    for (const test of pending) tests.push(pkg === undefined ? test : { ...test, pkg })
    pending = []
  }

  function testFindings(): Finding[] {
    const set = new FindingSet(details)
    const names = new Set(tests.map((test) => `${test.pkg ?? ''}\u0000${test.name}`))
    for (const test of tests) {
      // A parent fails when a subtest fails: keep only the leaves.
      const prefix = `${test.pkg ?? ''}\u0000${test.name}/`
      let parent = false
      for (const name of names) {
        if (name.startsWith(prefix)) {
          parent = true
          break
        }
      }
      if (!parent)
        set.add(buildKey('go', test.pkg, test.name, test.kind), test.line, false, test.detailsId)
    }
    return set.list()
  }

  function packageFindings(): Finding[] {
    // A package marked failed whose tests or diagnostics are known adds nothing.
    if (tests.length > 0 || diagnostics.size > 0) return []
    return packages.list()
  }
}

/**
 * `BenchmarkTotal-8` → `BenchmarkTotal`, `BenchmarkParse/size=10-8` → `BenchmarkParse/size=10`,
 * `TestTotal-4` → `TestTotal`. A Go function name has no `-`, so on a test only the top-level
 * name can carry the suffix; a benchmark's comes after its full name.
 */
function withoutProcsSuffix(name: string): string {
  if (name.startsWith('Benchmark')) return name.replace(PROCS_SUFFIX, '')
  const slash = name.indexOf('/')
  const top = slash === -1 ? name : name.slice(0, slash)
  const stripped = top.replace(PROCS_SUFFIX, '')
  return stripped === top ? name : stripped + (slash === -1 ? '' : name.slice(slash))
}
