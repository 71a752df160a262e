/**
 * ShellCheck's default (tty) output: `In scripts/a.sh line 17:`, the script's line, then one
 * marker line per finding under it (`     ^-- SC2086 (info): Double quote to prevent …`;
 * releases before 0.7 print no level: `^-- SC2086: …`). ShellCheck fails on every finding it
 * prints (the level only decides what `--severity` hides), so each one is a failure; the
 * `For more information:` list after them repeats the codes and is not read. Key:
 * `shellcheck:<code>:<path>`.
 */
import { buildKey, normalisePath } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { DiagnosticWindows, FindingSet } from './common.js'

const HEADER = /^In (\S.{0,1000}?) line \d{1,7}:\s*$/
const MARKER = /^\s*\^-*\^?\s+(SC\d{4})(?: \((?:error|warning|info|style)\))?: (\S.{0,2000})$/

export const shellcheckGrepPatterns = ['^In .* line [0-9]+:', '\\^-*\\^? +SC[0-9]{4}']

export function createShellcheckParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  const windows = new DiagnosticWindows(details)
  /** Inside a finding's block: its header, then the script's line once read. */
  let block: { path: string; header: string; source?: string } | undefined
  return {
    tool: 'shellcheck',
    push(line) {
      if (line.startsWith('In ')) {
        const header = HEADER.exec(line)
        if (header !== null) {
          block = { path: normalisePath(header[1] ?? ''), header: line }
          return true
        }
      }
      if (block === undefined) return false
      if (block.source === undefined) {
        block.source = line
        return true
      }
      const marker = MARKER.exec(line)
      if (marker === null) {
        block = undefined
        return false
      }
      const code = marker[1] ?? ''
      const key = buildKey('shellcheck', code, block.path)
      windows.add(key, `${code} ${marker[2] ?? ''}`, [block.header, block.source, line])
      findings.add(key, line)
      return true
    },
    finish: () => findings.list()
  }
}
