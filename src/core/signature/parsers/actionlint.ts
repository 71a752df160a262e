/**
 * actionlint: `.github/workflows/ci.yml:20:9: <message> [<rule>]`, then a code frame (`   |`,
 * `20 |   run: |`, `   |   ^~~~`). Its shellcheck and pyflakes rules report what those tools
 * found in a `run:` script (`shellcheck reported issue in this script: SC2086:info:1:51: …`);
 * actionlint fails on every finding, whatever level shellcheck gave it. Key:
 * `actionlint:<rule>:<path>`, with the shellcheck code after the rule: `actionlint:shellcheck:SC2086:<path>`.
 */
import { buildKey, normalisePath, stripErrorMarker } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { DiagnosticWindows, FindingSet } from './common.js'

const FINDING =
  /^((?:[A-Za-z]:)?[^\s:][^:]{0,1000}?\.ya?ml):\d+:\d+: (.{1,2000}?) \[([a-z][a-z0-9-]{0,60})\]\s*$/
const SHELLCHECK_CODE = /\b(SC\d{4})\b/
/** A line of the code frame under a finding. */
const FRAME = /^\s*\d*\s*\|/
const MAX_FRAME_LINES = 6

export const actionlintGrepPatterns = ['\\.ya?ml:[0-9]+:[0-9]+: .* \\[[a-z][a-z0-9-]*\\]$']

export function createActionlintParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  const windows = new DiagnosticWindows(details)
  let pending: { key: string; message: string; lines: string[] } | undefined
  const flush = (): void => {
    if (pending === undefined) return
    windows.add(pending.key, pending.message, pending.lines)
    findings.add(pending.key, pending.lines[0] ?? '')
    pending = undefined
  }
  return {
    tool: 'actionlint',
    push(raw) {
      if (pending !== undefined) {
        if (FRAME.test(raw) && pending.lines.length <= MAX_FRAME_LINES) {
          pending.lines.push(raw)
          return true
        }
        flush()
      }
      const line = stripErrorMarker(raw)
      if (line.indexOf('.y') === -1) return false
      const match = FINDING.exec(line)
      if (match === null) return false
      const rule = match[3] ?? ''
      const message = match[2] ?? ''
      const code = rule === 'shellcheck' ? SHELLCHECK_CODE.exec(message)?.[1] : undefined
      pending = {
        key: buildKey('actionlint', rule, code, normalisePath(match[1] ?? '')),
        message: message.replace(/\d+/g, 'N'),
        lines: [raw]
      }
      return true
    },
    finish() {
      flush()
      return findings.list()
    }
  }
}
