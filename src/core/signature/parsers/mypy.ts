/**
 * mypy: `app/models.py:12: error: Incompatible return value type (got "int", expected "str")
 * [return-value]` (`:col` too with --show-column-numbers). With --pretty the message wraps and
 * the code comes on a following line at column 0, before the indented source excerpt.
 * Notes and warnings are not failures. Details: each distinct error of a key with its lines, a
 * repeat (the same error at another line) by its first line, which says where.
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
import { FailureDetails } from '../details.js'
import { DiagnosticWindows, FindingSet } from './common.js'

const ERROR_LINE =
  /^((?:[A-Za-z]:)?[^:\s][^:]{0,1000}\.pyi?):\d+(?::\d+)?(?::\d+:\d+)?: error: (.*?)(?:\s{2}\[([\w-]{1,80})\])?\s*$/
const TRAILING_CODE = /\[([\w-]{1,80})\]$/
const NEXT_DIAGNOSTIC = /^(?:[A-Za-z]:)?[^:\s][^:]{0,1000}\.pyi?:\d+/

export const mypyGrepPatterns = ['\\.pyi?:[0-9]+(:[0-9]+)?: error: ']

export function createMypyParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  const windows = new DiagnosticWindows(details)
  /** An error whose code has not been seen yet (--pretty puts it on a later line). */
  let pending: { path: string; message: string; line: string; lines: string[] } | undefined
  const flush = (code?: string): void => {
    if (pending === undefined) return
    const { path, message, line, lines } = pending
    const key =
      code === undefined
        ? buildKey('mypy', maskMessage(message, 80), path)
        : buildKey('mypy', code, firstQuotedSymbol(message), path)
    windows.add(key, message, lines)
    findings.add(key, line)
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
          pending.lines.push(raw)
          if (code !== null) flush(code[1])
          else if (pending.lines.length > 6) flush()
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
        lines: [raw]
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
