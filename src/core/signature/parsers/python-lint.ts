/**
 * ruff and flake8. Both print `path.py:4:1: F401 'sys' imported but unused` (ruff adds `[*]`
 * when a fix exists); ruff's full format, the default in recent releases, puts the code first,
 * ``F401 [*] `os` imported but unused``, and the place on the next line, ` --> input.py:1:8`.
 * A log is ruff's when it shows any ruff-only mark (`[*]`, ` --> `, `Found N error`, a fix
 * hint); otherwise the one-line form is flake8's. Details: each distinct finding of a key with
 * its lines, a repeat (the same message at another place) by its first line, which says where.
 * Key: `<tool>:<code>:<first quoted name>:<path>`.
 */
import { buildKey, firstQuotedSymbol, normalisePath, stripErrorMarker } from '../normalise.js'
import type { Finding, ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { DiagnosticWindows, FindingSet } from './common.js'

/** A path has no blanks here, so a report quoted inside another line is not read as one. */
const CONCISE =
  /^((?:[A-Za-z]:)?[^:\s][^:\s]{0,1000}\.(?:pyi?|ipynb)):\d+:\d+: ([A-Z]{1,4}\d{1,4}) (?:\[\*\] )?(.*)$/
const FULL_HEADER = /^([A-Z]{1,4}\d{1,4}) (?:\[\*\] )?(.*)$/
const FULL_LOCATION = /^\s*--> ((?:[A-Za-z]:)?[^:]{1,1000}\.(?:pyi?|ipynb)):\d+:\d+\s*$/
const RUFF_MARK =
  /^Found \d+ errors?\b|fixable with the `--|^No fixes available|^All checks passed!/

export const pythonLintGrepPatterns = [
  '\\.(pyi?|ipynb):[0-9]+:[0-9]+: [A-Z]{1,4}[0-9]{1,4} ',
  '^[A-Z]{1,4}[0-9]{1,4} '
]

interface PythonLintState {
  concise: FindingSet
  full: FindingSet
  windows: DiagnosticWindows
  ruffMarks: boolean
  header: { code: string; message: string; line: string } | undefined
}

function createState(): PythonLintState {
  const details = new FailureDetails()
  return {
    concise: new FindingSet(details),
    full: new FindingSet(details),
    windows: new DiagnosticWindows(details),
    ruffMarks: false,
    header: undefined
  }
}

/** Reads one line; returns true while a full-format header waits for its ` --> ` line. */
function read(state: PythonLintState, tool: 'ruff' | 'flake8', raw: string): boolean {
  const first = raw.charCodeAt(0)
  if (state.header !== undefined) {
    const location = FULL_LOCATION.exec(raw)
    if (location !== null) {
      const { code, message, line } = state.header
      const key = buildKey(
        'ruff',
        code,
        firstQuotedSymbol(message),
        normalisePath(location[1] ?? '')
      )
      state.windows.add(key, message, [line, raw])
      state.full.add(key, line)
      state.ruffMarks = true
    }
    state.header = undefined
  }
  if (first >= 65 && first <= 90) {
    // A–Z: a full-format header, or a ruff summary line
    const header = FULL_HEADER.exec(raw)
    if (header !== null) {
      state.header = { code: header[1] ?? '', message: header[2] ?? '', line: raw }
      return true
    }
    if (RUFF_MARK.test(raw)) state.ruffMarks = true
  }
  if (raw.indexOf('.py') === -1) return false
  const match = CONCISE.exec(stripErrorMarker(raw))
  if (match === null) return false
  const message = match[3] ?? ''
  if (raw.indexOf('[*]') !== -1) state.ruffMarks = true
  const key = buildKey(tool, match[2], firstQuotedSymbol(message), normalisePath(match[1] ?? ''))
  state.windows.add(key, message, [raw])
  state.concise.add(key, raw)
  return false
}

export function createRuffParser(): ToolParser {
  const state = createState()
  return {
    tool: 'ruff',
    push: (line) => read(state, 'ruff', line),
    finish(): Finding[] {
      return state.ruffMarks ? [...state.full.list(), ...state.concise.list()] : state.full.list()
    }
  }
}

export function createFlake8Parser(): ToolParser {
  const state = createState()
  return {
    tool: 'flake8',
    push: (line) => read(state, 'flake8', line),
    finish: () => (state.ruffMarks ? [] : state.concise.list())
  }
}
