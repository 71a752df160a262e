/**
 * cargo test (libtest) and cargo-nextest.
 * - libtest: `test tests::bad_add ... FAILED`, attributed to the test binary announced by
 *   `Running unittests src/lib.rs (target/debug/deps/mycrate-0123abcd)` (the hash goes) or
 *   `Doc-tests mycrate`; the `failures:` list names the tests again (the only place with the
 *   terse format), and so does each `---- tests::bad_add stdout ----` block of captured output,
 *   which is all a log cut before the summary has. Doc-test names lose their ` (line N)`.
 * - nextest: `FAIL [   0.005s] mycrate parser::tests::parses_negative`, `TIMEOUT [ 60.003s] …` for a
 *   test killed at its slow-timeout, `SIGABRT [   0.195s] …` for one a signal ended. What the
 *   test printed follows in `--- STDOUT: … ---` / `--- STDERR: … ---` sections (`──── STDOUT:`
 *   in newer releases): libtest's own report inside them is not another failure.
 * - A libtest run inside a test's captured output (`running 1 test` … `test result:` inside a
 *   `---- name stdout ----` block: a test that runs a test binary) is not this run's either.
 * - The kind comes from the test thread's panic, `thread 'tests::bad_add' panicked at
 *   src/lib.rs:9:5:` and the message on the next line (before Rust 1.73, quoted on the same
 *   line): none for an assertion, else `unwrap on None`, `unwrap on Err`, `index out of
 *   bounds`, `divide by zero`, `overflow`, `todo`, `unimplemented`, `unreachable`, or `panic`.
 * Key: `cargo:<binary>:<test path>`, plus `:<kind>` when the test panicked other than by an
 * assertion, `:timeout` or the signal (`:SIGABRT`) for nextest's TIMEOUT and SIG… results.
 */
import { buildKey } from '../normalise.js'
import type { Finding, ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const RUNNING = /^\s*Running (?:unittests |tests |benches )?\S+ \((.{1,1000})\)\s*$/
const DOC_TESTS = /^\s*Doc-tests (\S+)\s*$/
const TEST_FAILED = /^test (.{1,1000}?) \.\.\. FAILED\s*$/
const NEXTEST_FAIL =
  /^\s*(?:TRY \d+ )?(FAIL|TIMEOUT|SIG[A-Z]{2,8}) \[\s*[\d.]+m?s\]\s+(?:\(\s*\d+\/\d+\)\s+)?(\S+)\s+(\S.*?)\s*$/
/** nextest's section of a test's captured output. */
const NEXTEST_OUTPUT = /^\s*(?:-{3}|─{2,}) STD(?:OUT|ERR):/
/** A nextest status or progress line: the captured output before it is over. */
const NEXTEST_STATUS =
  /^\s*(?:TRY \d+ )?[A-Z][A-Z-]{2,10} \[\s*[\d.]+m?s\]|^\s*(?:Summary|Starting|Canceling|Cancelling) |^─{10,}\s*$/
const LIBTEST_RUN = /^running \d+ tests?\s*$/
const LIST_ENTRY = /^ {4}(\S.*?)\s*$/
const CAPTURED_BLOCK = /^---- (.{1,1000}?) std(?:out|err) ----$/
/** A doc test's name without the line of its example (`src/lib.rs - add (line 5)`). */
const testName = (name: string): string => name.replace(/ \(line \d+\)$/, '')

/**
 * A test thread's panic: before Rust 1.73 the message quoted on the line (`panicked at 'msg',
 * src/lib.rs:9:5`), a message of several lines closing on a later one (`panicked at 'assertion
 * failed: …` then `  left: …` and ` right: …', src/lib.rs:9:5`); since then the place, and the
 * message on the next line.
 */
const PANIC =
  /^\s*thread '([^']{1,1000})'(?: \(\d+\))? panicked at (?:'(.*)', \S+:\d+:\d+|\S+:\d+:\d+:(?: (.*))?|'(.*))\s*$/

export const cargoGrepPatterns = [
  '^test .* \\.\\.\\. FAILED',
  '^\\s*(TRY [0-9]+ )?(FAIL|TIMEOUT|SIG[A-Z]+) \\[',
  '^---- .* std(out|err) ----$'
]

/** Kinds of a Rust panic by its message; an assertion has none, anything else is `panic`. */
const PANIC_KINDS: ReadonlyArray<readonly [RegExp, string | undefined]> = [
  [/^assertion (?:`left [!=]= right` )?failed/, undefined],
  [/^called `Option::unwrap\(\)` on a `None` value/, 'unwrap on None'],
  [/^called `Result::unwrap\(\)` on an `Err` value/, 'unwrap on Err'],
  [/^called `Result::unwrap_err\(\)` on an `Ok` value/, 'unwrap_err on Ok'],
  [/^index out of bounds/, 'index out of bounds'],
  [
    /^attempt to (?:divide|calculate the remainder) (?:by|with a divisor of) zero/,
    'divide by zero'
  ],
  [/^attempt to \w+(?: \w+)? with overflow/, 'overflow'],
  [/^not yet implemented/, 'todo'],
  [/^not implemented/, 'unimplemented'],
  [/^internal error: entered unreachable code/, 'unreachable']
]

function panicKind(message: string): string | undefined {
  const text = message.trim()
  for (const [pattern, kind] of PANIC_KINDS) if (pattern.test(text)) return kind
  return 'panic'
}

interface FailedTest {
  binary?: string
  name: string
  line: string
}

/** libtest's hint after every panic: says nothing about the failure. */
const BACKTRACE_NOTE = /^note: [Rr]un with `RUST_BACKTRACE=/

export function createCargoParser(): ToolParser {
  const failed: FailedTest[] = []
  /** Per test (its thread's name): the panic and what follows it in the test's output block. */
  const details = new FailureDetails()
  const nextest = new FindingSet()
  /** Panic kinds by test name (the test thread's name); `null` for an assertion. */
  const kinds = new Map<string, string | null>()
  let binary: string | undefined
  /** Inside a `failures:` section: the names listed so far. */
  let list: FailedTest[] | undefined
  /** Inside a `---- name stdout ----` block: the test's captured output. */
  let block: string | undefined
  /** A panic line whose message is on the next line. */
  let panicking: string | undefined
  /** Inside nextest's STDOUT/STDERR of a test: only its panics are read. */
  let nextestOutput = false
  /** Inside a libtest run within a captured block: nothing is read until its `test result:`. */
  let nestedRun = false
  return {
    tool: 'cargo',
    push(line) {
      if (panicking !== undefined) {
        if (!kinds.has(panicking)) kinds.set(panicking, panicKind(line) ?? null)
        if (block === undefined) details.add(line)
        panicking = undefined
      }
      if (nextestOutput) {
        if (!NEXTEST_STATUS.test(line)) {
          if (line.trimStart().startsWith("thread '")) readPanic(line)
          return true
        }
        nextestOutput = false
      }
      if (nestedRun) {
        if (line.startsWith('test result:')) nestedRun = false
        return true
      }
      if (list !== undefined) {
        if (line === '') return true
        const entry = LIST_ENTRY.exec(line)
        if (entry !== null) {
          if (list.length < 1000) list.push({ binary, name: entry[1] ?? '', line })
          return true
        }
        endList()
      }
      // A panic, also indented (old releases indented the captured output with a tab).
      if (line.indexOf("thread '") !== -1 && line.trimStart().startsWith("thread '")) {
        readPanic(line)
        return block !== undefined || panicking !== undefined
      }
      const first = line.charCodeAt(0)
      if (first === 45 && line.startsWith('---- ')) {
        // -: a block of one test's captured output
        const header = CAPTURED_BLOCK.exec(line)
        if (header !== null) {
          details.close()
          block = header[1] ?? ''
          record(block, line)
          return true
        }
      }
      if (first === 116) {
        // t
        if (line.startsWith('test result:')) {
          block = undefined
          details.close()
          return false
        }
        if (line.startsWith('test ') && (line.endsWith('FAILED') || line.endsWith('FAILED '))) {
          const test = TEST_FAILED.exec(line)
          if (test !== null) record(test[1] ?? '', line)
          return block !== undefined
        }
      }
      if (first === 102 && line === 'failures:') {
        block = undefined
        details.close()
        list = []
        return true
      }
      if (block !== undefined) {
        if (first === 114 && LIBTEST_RUN.test(line))
          nestedRun = true // r
        else if (!BACKTRACE_NOTE.test(line)) details.add(line)
        return true
      }
      if (NEXTEST_OUTPUT.test(line)) {
        nextestOutput = true
        return true
      }
      if (first !== 32 && first !== 70 && first !== 84 && first !== 68 && first !== 83) return false // ' ', F, T, D, S
      if (line.indexOf('Running ') !== -1) {
        const running = RUNNING.exec(line)
        if (running !== null) binary = binaryName(running[1] ?? '')
        return false
      }
      if (line.indexOf('Doc-tests ') !== -1) {
        const doc = DOC_TESTS.exec(line)
        if (doc !== null) binary = `${doc[1]} doc`
        return false
      }
      if (line.indexOf(' [') !== -1) {
        const found = NEXTEST_FAIL.exec(line)
        if (found !== null) nextest.add(`${found[2]}\u0000${found[3]}\u0000${found[1]}`, line)
      }
      return false
    },
    finish(): Finding[] {
      endList()
      const findings = new FindingSet(details)
      for (const test of failed) {
        const key = buildKey('cargo', test.binary, test.name, kindOf(test.name))
        findings.add(key, test.line, false, test.name)
      }
      for (const { key, line } of nextest.list()) {
        const [crate, name, status] = key.split('\u0000')
        const kind =
          status === 'TIMEOUT'
            ? 'timeout'
            : status?.startsWith('SIG') === true
              ? status
              : kindOf(name ?? '')
        findings.add(buildKey('cargo', crate, name, kind), line, false, name)
      }
      return findings.list()
    },
    capturing: () => block !== undefined || nextestOutput
  }

  function record(name: string, line: string): void {
    if (failed.length < 1000) failed.push({ binary, name: testName(name), line })
  }

  function endList(): void {
    if (list !== undefined) for (const entry of list) record(entry.name, entry.line)
    list = undefined
  }

  function readPanic(line: string): void {
    const panic = PANIC.exec(line)
    if (panic === null) return
    const name = testName(panic[1] ?? '')
    const message = panic[2] ?? panic[3] ?? panic[4]
    details.open(name, line)
    if (message !== undefined && message !== '') {
      if (!kinds.has(name)) kinds.set(name, panicKind(message) ?? null)
    } else panicking = name
  }

  function kindOf(name: string): string | undefined {
    return kinds.get(testName(name)) ?? undefined
  }
}

/** `target/debug/deps/mycrate-0123abcdef012345` → `mycrate`. */
function binaryName(path: string): string {
  const base = path.replaceAll('\\', '/').split('/').pop() ?? path
  return base.replace(/\.exe$/, '').replace(/-[0-9a-f]{8,}$/, '')
}
