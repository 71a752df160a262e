/**
 * pyright and basedpyright, the command-line form: a file's header line (its path alone), then
 * each diagnostic indented under it, `  /abs/src/a.py:12:5 - error: Argument of type "Path |
 * None" cannot be assigned to parameter "dest_path" …`, its continuation lines indented deeper,
 * and the rule in parentheses at the end of the diagnostic's last line (`(reportArgumentType)`);
 * a summary `2 errors, 0 warnings, 0 informations` at the end. Older releases print
 * `  12:5 - error: …` under the header, without the path. Warnings and informations are never
 * failures. Key: `pyright:<rule>:<path>` (the tool's own name for what is wrong, as mypy's
 * and tsc's codes); a diagnostic without a rule (a syntax error): the masked message instead.
 * `--outputjson` prints the same diagnostics as JSON, one property a line: each object of the
 * `"generalDiagnostics"` array has its `"file"`, `"severity"`, `"message"` (its lines joined by
 * `\n`), `"range"` and, when it has one, `"rule"`; an error gets the key the text form gives, and
 * its file, severity, message and rule lines as details.
 */
import { buildKey, maskMessage, normalisePath, stripErrorMarker } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { DiagnosticWindows, FindingSet, indentOf } from './common.js'

/** `  path.py:12:5 - error: message` (`- warning:`, `- information:` are read to be skipped). */
const DIAGNOSTIC =
  /^(\s*)(?:((?:[A-Za-z]:)?[^\s:][^:]{0,1000}?\.pyi?):)?\d+:\d+ - (error|warning|information|info): (.*)$/
/** The header line that names the file of the diagnostics under it. */
const FILE_HEADER = /^\s{0,8}((?:[A-Za-z]:)?[^\s:][^:]{0,1000}?\.pyi?)\s*$/
const RULE = /\((report[A-Za-z]{1,80})\)\s*$/
/** Continuation lines read for one diagnostic at most. */
const MAX_CONTINUATION = 30
/** The JSON report's array of diagnostics opens (`"generalDiagnostics": [`). */
const JSON_DIAGNOSTICS = /^\s*"generalDiagnostics": \[\s*$/
/** A property of a diagnostic in the JSON report, its value a JSON string. */
const JSON_PROPERTY = /^\s*"(file|severity|message|rule)": ("(?:[^"\\]|\\.){0,20000}")\s*,?\s*$/
/** The end of the JSON report's array of diagnostics. */
const JSON_END = /^\s*\](?:,|\s*$)/

export const pyrightGrepPatterns = [
  '\\.pyi?:[0-9]+:[0-9]+ - error: ',
  '^\\s+[0-9]+:[0-9]+ - error: ',
  '"severity": "error"'
]

/** A diagnostic of the JSON report while its properties are read. */
interface JsonDiagnostic {
  file?: string
  severity?: string
  message?: string
  rule?: string
  lines: string[]
}

interface Pending {
  path: string
  message: string
  rule: string | undefined
  indent: number
  lines: string[]
}

export function createPyrightParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  const windows = new DiagnosticWindows(details)
  /** The file named by the last header line: the path of a diagnostic that names none. */
  let header: string | undefined
  let pending: Pending | undefined
  /** Inside the JSON report's array of diagnostics: the one being read. */
  let json: JsonDiagnostic | undefined
  const flushJson = (): void => {
    const diagnostic = json
    json = { lines: [] }
    if (diagnostic?.severity !== 'error' || diagnostic.file === undefined) return
    const message = (diagnostic.message ?? '').replace(/\s*\n\s*/g, ' ').trim()
    const path = normalisePath(diagnostic.file)
    const key =
      diagnostic.rule === undefined
        ? buildKey('pyright', maskMessage(message, 80), path)
        : buildKey('pyright', diagnostic.rule, path)
    windows.add(key, message, diagnostic.lines)
    findings.add(key, diagnostic.lines[0] ?? '')
  }
  /** Reads a line inside the JSON report's array; false once the array has ended. */
  const readJson = (line: string): boolean => {
    if (JSON_END.test(line)) {
      flushJson()
      json = undefined
      return false
    }
    const property = JSON_PROPERTY.exec(line)
    if (property === null) return true
    const name = property[1] as 'file' | 'severity' | 'message' | 'rule'
    if (name === 'file') flushJson()
    const diagnostic = (json ??= { lines: [] })
    try {
      const value: unknown = JSON.parse(property[2] ?? '""')
      if (typeof value === 'string') diagnostic[name] = value
    } catch {
      return true
    }
    if (diagnostic.lines.length < MAX_CONTINUATION) diagnostic.lines.push(line)
    return true
  }
  const flush = (): void => {
    if (pending === undefined) return
    const { path, message, rule, lines } = pending
    const key =
      rule === undefined
        ? buildKey('pyright', maskMessage(message.replace(RULE, '').trim(), 80), path)
        : buildKey('pyright', rule, path)
    windows.add(key, message, lines)
    findings.add(key, lines[0] ?? '')
    pending = undefined
  }
  return {
    tool: 'pyright',
    push(raw) {
      if (json !== undefined) return readJson(raw)
      if (raw.indexOf('"generalDiagnostics"') !== -1 && JSON_DIAGNOSTICS.test(raw)) {
        json = { lines: [] }
        return true
      }
      const line = stripErrorMarker(raw)
      if (pending !== undefined) {
        const deeper = line.trim() !== '' && indentOf(line) > pending.indent
        if (deeper && !DIAGNOSTIC.test(line) && pending.lines.length <= MAX_CONTINUATION) {
          pending.lines.push(raw)
          if (pending.rule === undefined) pending.rule = RULE.exec(line)?.[1]
          pending.message = `${pending.message} ${line.trim()}`
          return true
        }
        flush()
      }
      if (line.indexOf(' - ') === -1) {
        const file = FILE_HEADER.exec(line)
        if (file !== null) header = file[1]
        return false
      }
      const match = DIAGNOSTIC.exec(line)
      if (match === null) return false
      if (match[3] !== 'error') return false
      const path = match[2] ?? header
      if (path === undefined) return false
      const message = match[4] ?? ''
      pending = {
        path: normalisePath(path),
        message,
        rule: RULE.exec(message)?.[1],
        indent: (match[1] ?? '').length,
        lines: [raw]
      }
      return true
    },
    finish() {
      flush()
      if (json !== undefined) flushJson()
      return findings.list()
    }
  }
}
