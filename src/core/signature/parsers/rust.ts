/**
 * rustc diagnostics, which also carry clippy's lints. A block starts at column 0 with
 * `error[E0599]: msg` or `error: msg`, names its place on ` --> src/main.rs:4:18` and ends at a
 * blank line; the short format (`--message-format=short`) is one line,
 * `src/main.rs:10:13: error[E0308]: mismatched types: <labels>`. A block at the very end of a
 * log, with no blank line after it, counts too. Warnings are not failures,
 * and blocks with neither a code nor a place (`error: could not compile …`) are wrappers.
 * Keys: `rustc:<code>:<first backticked name>:<path>`; without a code (clippy's lints, rustc's
 * lints denied by -D warnings) `rustc:<masked message>:<path>`. The lint name is not in the
 * key because the short format never prints it, and both formats must give one key.
 */
import { buildKey, firstQuotedSymbol, maskMessage, normalisePath } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { DETAIL_LIMITS, FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const BLOCK_START = /^(error|warning)(?:\[(E\d{4})\])?: (.*)$/
const LOCATION = /^\s*--> ((?:[A-Za-z]:)?[^:]{1,1000}):\d+:\d+\s*$/
const SHORT = /^((?:[A-Za-z]:)?[^:\s][^:]{0,1000}\.rs):\d+:\d+: error(?:\[(E\d{4})\])?: (.*)$/

export const rustGrepPatterns = ['^error(\\[E[0-9]{4}\\])?: ', '\\.rs:[0-9]+:[0-9]+: error']

interface Diagnostic {
  code?: string
  message: string
  path?: string
  line: string
  /** The block as printed (bounded): message, place, code frame, notes. */
  lines: string[]
}

/**
 * Returns a line reader that reports true while it is inside an error block, and a function
 * that ends the log: a block that the log's end cut off (no blank line after it) still counts.
 */
function createRustReader(
  emit: (diagnostic: Diagnostic) => void
): [read: (line: string) => boolean, end: () => void] {
  let block: Diagnostic | undefined
  let ignoring = false // inside a warning block
  const close = (): void => {
    if (block !== undefined) emit(block)
    block = undefined
    ignoring = false
  }
  const read = (line: string): boolean => {
    const first = line.charCodeAt(0)
    if (first === 101 || first === 119) {
      // 'e', 'w'
      const start = BLOCK_START.exec(line)
      if (start !== null) {
        close()
        if (start[1] === 'error')
          block = { code: start[2], message: start[3] ?? '', line, lines: [line] }
        else ignoring = true
        return true
      }
    }
    if (block === undefined) {
      if (ignoring) {
        if (line === '') ignoring = false
        return ignoring
      }
      if (line.indexOf('.rs:') === -1 || line.indexOf(': error') === -1) return false
      const short = SHORT.exec(line)
      if (short !== null) {
        // The short form appends the labels (`: expected \`u32\`…`, `: help: …`) to the message.
        const message = (short[3] ?? '').split(': ', 1)[0] ?? ''
        emit({ code: short[2], message, path: normalisePath(short[1] ?? ''), line, lines: [line] })
      }
      return false
    }
    if (line === '') {
      close()
      return false
    }
    if (block.lines.length < DETAIL_LIMITS.lines) block.lines.push(line)
    if (block.path === undefined && line.indexOf('--> ') !== -1) {
      const location = LOCATION.exec(line)
      if (location !== null) block.path = normalisePath(location[1] ?? '')
      return true
    }
    return true
  }
  return [read, close]
}

export function createRustcParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  const [read, end] = createRustReader((d) => {
    const key =
      d.code !== undefined
        ? buildKey('rustc', d.code, firstQuotedSymbol(d.message), d.path)
        : d.path !== undefined
          ? buildKey('rustc', maskMessage(d.message, 80), d.path)
          : undefined
    if (key === undefined || findings.has(key)) return
    details.open(key, ...d.lines)
    details.close()
    findings.add(key, d.line)
  })
  return {
    tool: 'rustc',
    push: read,
    finish() {
      end()
      return findings.list()
    }
  }
}
