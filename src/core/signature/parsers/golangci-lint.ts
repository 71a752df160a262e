/**
 * golangci-lint's default output: `path/file.go:12:5: message (linter)` (older releases and some
 * linters leave out the column), then the source line and a caret. The linter's name in
 * parentheses at the end is what tells it from the Go compiler's and go vet's own lines.
 * Key: `golangci-lint:<linter>:<rule code or first quoted name>:<path>` (`SA1019` for
 * staticcheck, `` `w.Write` `` for errcheck), or the masked message when it has neither.
 * Details: the issue line, then its source line and caret.
 */
import { buildKey, firstQuotedSymbol, maskMessage, normalisePath } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

/** An issue line; group 3 is the linter. */
export const GOLANGCI_ISSUE =
  /^\s{0,8}((?:[A-Za-z]:)?[^\s:]{1,500}\.go):\d+(?::\d+)?: (.{1,2000}?) \(([a-z][a-z0-9_-]{1,40})\)\s*$/
const RULE_CODE = /^([A-Z]{1,6}\d{1,5}):/
/** Lines golangci-lint prints under an issue: the source line and the caret. */
const FRAME_LINES = 2
const CARET = /^\s*\^\s*$/

export const golangciLintGrepPatterns = ['\\.go:[0-9]+(:[0-9]+)?: .* \\([a-z][a-z0-9_-]+\\)\\s*$']

export function createGolangciLintParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  /** Lines of the last issue's frame still to come. */
  let frame = 0
  return {
    tool: 'golangci-lint',
    push(line) {
      const issue = line.indexOf('.go:') === -1 ? null : GOLANGCI_ISSUE.exec(line)
      if (issue === null) {
        if (frame === 0) return false
        frame -= 1
        // The source line, then the caret under the column (none when there is no column).
        if (frame === 1 ? line.trim() !== '' : CARET.test(line)) details.add(line)
        else frame = 0
        return frame > 0
      }
      const message = issue[2] ?? ''
      const what =
        RULE_CODE.exec(message)?.[1] ?? firstQuotedSymbol(message) ?? maskMessage(message, 60)
      const key = buildKey('golangci-lint', issue[3], what, normalisePath(issue[1] ?? ''))
      findings.add(key, line)
      details.open(key, line)
      frame = FRAME_LINES
      return true
    },
    finish: () => findings.list()
  }
}
