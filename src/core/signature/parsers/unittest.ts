/**
 * Python's `unittest` (and runners that print its report: `python -m unittest`, Django's test
 * runner, `setup.py test`). Each failure is a block: a line of `=`, then `FAIL: test_x
 * (pkg.module.Class)` or `ERROR: test_x (pkg.module.Class)` (Python 3.11 and later repeat the
 * method: `(pkg.module.Class.test_x)`; a subtest adds ` [msg] (i=1)`), a line of `-`, and the
 * traceback, whose last line names what was raised.
 * Key: `unittest:<pkg.module.Class.test_x>`, plus `:<kind>` for an ERROR (the test raised:
 * `:KeyError`; a FAIL is a failed assertion and has none). Details: the block's traceback.
 */
import { buildKey, failureKind } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const HEADER =
  /^(FAIL|ERROR): (\w{1,300}) \(([\w.]{1,500})\)(?: \[.{0,500}\])?(?: \(.{0,500}\))?\s*$/
const RULE = /^(?:={20,}|-{20,})\s*$/
/** Lines read for one block before it is given up as cut. */
const MAX_BLOCK_LINES = 2000

export const unittestGrepPatterns = ['^(FAIL|ERROR): [A-Za-z0-9_]+ \\([A-Za-z0-9_.]+\\)']

export function createUnittestParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  /** A block whose traceback is being read: its details, and for an ERROR the raised type. */
  let block:
    | { id: string; line: string; error: boolean; last: string; rules: number; lines: number }
    | undefined
  return {
    tool: 'unittest',
    push(line) {
      if (block !== undefined) {
        if (RULE.test(line)) {
          block.rules += 1
          // The rule under the header opens the traceback; the next one ends the block.
          if (block.rules < 2) return true
          close()
        } else if (HEADER.test(line)) close()
        else {
          block.lines += 1
          if (line.trim() !== '' && line.charCodeAt(0) !== 32) block.last = line
          details.add(line)
          if (block.lines < MAX_BLOCK_LINES) return true
          close()
          return false
        }
      }
      const first = line.charCodeAt(0)
      if (first !== 70 && first !== 69) return false // F, E
      const header = HEADER.exec(line)
      if (header === null) return false
      const method = header[2] ?? ''
      const path = header[3] ?? ''
      const id = path.endsWith(`.${method}`) ? path : `${path}.${method}`
      block = { id, line, error: header[1] === 'ERROR', last: '', rules: 0, lines: 0 }
      details.open(id)
      return true
    },
    finish() {
      close()
      return findings.list()
    }
  }

  function close(): void {
    if (block === undefined) return
    const kind = !block.error || block.last === '' ? undefined : failureKind(block.last)
    findings.add(buildKey('unittest', block.id, kind), block.line, false, block.id)
    details.close()
    block = undefined
  }
}
