/**
 * pytest. The short summary (`FAILED tests/t.py::test_x[p] - AssertionError: …`, `ERROR
 * tests/t.py::test_y`) and verbose result lines (`tests/t.py::test_x FAILED [ 50%]`, xdist's
 * `[gw1] [ 50%] FAILED tests/t.py::test_x`) give the node id; the message after ` - ` is cut
 * to the terminal width, so it never enters the key. A collection error has no test:
 * `ERROR tests/t.py - ImportError` or `___ ERROR collecting tests/t.py ___`.
 * Key: `pytest:<node id>`, or `pytest:error:<node id or path>` for errors outside a test body.
 */
import { buildKey, normalisePath } from '../normalise.js'
import type { ToolParser } from '../types.js'
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

export const pytestGrepPatterns = [
  '^(\\[gw[0-9]+\\] +)?(\\[ *[0-9]+%\\] +)?(FAILED|ERROR) ',
  ' (FAILED|ERROR)( +\\[ *[0-9]+%\\])? *$',
  'ERROR collecting '
]

export function createPytestParser(): ToolParser {
  const findings = new FindingSet()
  return {
    tool: 'pytest',
    push(line) {
      const failed = line.indexOf('FAILED')
      const error = failed === -1 ? line.indexOf('ERROR') : -1
      if (failed === -1 && error === -1) return
      const summary = SUMMARY.exec(line)
      if (summary !== null) {
        add(summary[2] ?? '', summary[1] === 'ERROR', line)
        return
      }
      const verbose = VERBOSE.exec(line)
      if (verbose !== null) {
        add(verbose[1] ?? '', verbose[2] === 'ERROR', line)
        return
      }
      const collecting = COLLECTING.exec(line)
      if (collecting !== null) add(collecting[1] ?? '', true, line)
    },
    finish: () => findings.list()
  }

  function add(rawId: string, isError: boolean, line: string): void {
    if (!rawId.includes('::') && !/\.py$/.test(rawId)) return // not a pytest node id (Gradle, Maven…)
    const separator = rawId.indexOf('::')
    const id =
      separator === -1
        ? normalisePath(rawId)
        : normalisePath(rawId.slice(0, separator)) + rawId.slice(separator)
    findings.add(isError ? buildKey('pytest', 'error', id) : buildKey('pytest', id), line)
  }
}
