/**
 * cargo test (libtest) and cargo-nextest.
 * - libtest: `test tests::bad_add ... FAILED`, attributed to the test binary announced by
 *   `Running unittests src/lib.rs (target/debug/deps/mycrate-0123abcd)` (the hash goes) or
 *   `Doc-tests mycrate`; with the terse format only the `failures:` list names the tests.
 *   Doc-test names lose their ` (line N)`.
 * - nextest: `FAIL [   0.005s] mycrate parser::tests::parses_negative`.
 * Key: `cargo:<binary>:<test path>`.
 */
import { buildKey } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FindingSet } from './common.js'

const RUNNING = /^\s*Running (?:unittests |tests |benches )?\S+ \((.{1,1000})\)\s*$/
const DOC_TESTS = /^\s*Doc-tests (\S+)\s*$/
const TEST_FAILED = /^test (.{1,1000}?) \.\.\. FAILED\s*$/
const NEXTEST_FAIL =
  /^\s*(?:TRY \d+ )?FAIL \[\s*[\d.]+m?s\]\s+(?:\(\s*\d+\/\d+\)\s+)?(\S+)\s+(\S.*?)\s*$/
const LIST_ENTRY = /^ {4}(\S.*?)\s*$/

export const cargoGrepPatterns = ['^test .* \\.\\.\\. FAILED', '^\\s*(TRY [0-9]+ )?FAIL \\[']

export function createCargoParser(): ToolParser {
  const findings = new FindingSet()
  let binary: string | undefined
  /** Inside a `failures:` section: its entries, kept only if it is the plain list of names. */
  let list: { names: string[]; lines: string[] } | undefined
  return {
    tool: 'cargo',
    push(line) {
      if (list !== undefined) {
        if (line === '') return true
        if (line.startsWith('test result:')) {
          list.names.forEach((name, i) => add(name, list?.lines[i] ?? name))
          list = undefined
          return false
        }
        const entry = LIST_ENTRY.exec(line)
        if (entry !== null && list.names.length < 1000) {
          list.names.push(entry[1] ?? '')
          list.lines.push(line)
          return true
        }
        list = undefined // `---- name stdout ----` blocks: not the list
      }
      const first = line.charCodeAt(0)
      if (first === 116 && line.startsWith('test ')) {
        if (!line.endsWith('FAILED') && !line.endsWith('FAILED ')) return
        const failed = TEST_FAILED.exec(line)
        if (failed !== null) add(failed[1] ?? '', line)
        return
      }
      if (first === 102 && line === 'failures:') {
        list = { names: [], lines: [] }
        return true
      }
      if (first !== 32 && first !== 70 && first !== 84) return // ' ', 'F', 'T'
      if (line.indexOf('Running ') !== -1) {
        const running = RUNNING.exec(line)
        if (running !== null) binary = binaryName(running[1] ?? '')
        return
      }
      if (line.indexOf('Doc-tests ') !== -1) {
        const doc = DOC_TESTS.exec(line)
        if (doc !== null) binary = `${doc[1]} doc`
        return
      }
      if (line.indexOf('FAIL [') !== -1) {
        const nextest = NEXTEST_FAIL.exec(line)
        if (nextest !== null) findings.add(buildKey('cargo', nextest[1], nextest[2]), line)
      }
    },
    finish: () => findings.list()
  }

  function add(name: string, line: string): void {
    findings.add(buildKey('cargo', binary, name.replace(/ \(line \d+\)$/, '')), line)
  }
}

/** `target/debug/deps/mycrate-0123abcdef012345` → `mycrate`. */
function binaryName(path: string): string {
  const base = path.replaceAll('\\', '/').split('/').pop() ?? path
  return base.replace(/\.exe$/, '').replace(/-[0-9a-f]{8,}$/, '')
}
