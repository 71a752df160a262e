/**
 * mypy: `app/models.py:12: error: Incompatible return value type (got "int", expected "str")
 * [return-value]` (`:col` too with --show-column-numbers). With --pretty the message wraps and
 * the code comes on a following line at column 0, before the indented source excerpt.
 * Notes and warnings are not failures.
 * Key: `mypy:<error code>:<first quoted name>:<path>`; without a code, the masked message.
 */
import {
  buildKey,
  firstQuotedSymbol,
  maskMessage,
  normalisePath,
  stripErrorMarker
} from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FindingSet } from './common.js'

const ERROR_LINE =
  /^((?:[A-Za-z]:)?[^:\s][^:]{0,1000}\.pyi?):\d+(?::\d+)?(?::\d+:\d+)?: error: (.*?)(?:\s{2}\[([\w-]{1,80})\])?\s*$/
const TRAILING_CODE = /\[([\w-]{1,80})\]$/
const NEXT_DIAGNOSTIC = /^(?:[A-Za-z]:)?[^:\s][^:]{0,1000}\.pyi?:\d+/

export const mypyGrepPatterns = ['\\.pyi?:[0-9]+(:[0-9]+)?: error: ']

export function createMypyParser(): ToolParser {
  const findings = new FindingSet()
  /** An error whose code has not been seen yet (--pretty puts it on a later line). */
  let pending: { path: string; message: string; line: string; lines: number } | undefined
  const flush = (code?: string): void => {
    if (pending === undefined) return
    const { path, message, line } = pending
    findings.add(
      code === undefined
        ? buildKey('mypy', maskMessage(message, 80), path)
        : buildKey('mypy', code, firstQuotedSymbol(message), path),
      line
    )
    pending = undefined
  }
  return {
    tool: 'mypy',
    push(raw) {
      if (pending !== undefined) {
        const first = raw.charCodeAt(0)
        if (raw === '' || first === 32 || first === 9 || NEXT_DIAGNOSTIC.test(raw)) flush()
        else {
          const text = raw.trimEnd()
          const code = TRAILING_CODE.exec(text)
          const part = code === null ? text : text.slice(0, code.index)
          pending.message = `${pending.message} ${part.trim()}`.trim()
          pending.lines += 1
          if (code !== null) flush(code[1])
          else if (pending.lines > 5) flush()
          else return true
        }
      }
      if (raw.indexOf(': error: ') === -1) return false
      const match = ERROR_LINE.exec(stripErrorMarker(raw))
      if (match === null) return false
      pending = {
        path: normalisePath(match[1] ?? ''),
        message: match[2] ?? '',
        line: raw,
        lines: 0
      }
      if (match[3] !== undefined) {
        flush(match[3])
        return false
      }
      return true
    },
    finish() {
      flush()
      return findings.list()
    }
  }
}
