/**
 * golangci-lint's default output: `path/file.go:12:5: message (linter)` (older releases and some
 * linters leave out the column), then the source line and a caret. The linter's name in
 * parentheses at the end is what tells it from the Go compiler's and go vet's own lines.
 * Key: `golangci-lint:<linter>:<rule code or first quoted name>:<path>` (`SA1019` for
 * staticcheck, `` `w.Write` `` for errcheck), or the masked message when it has neither.
 */
import { buildKey, firstQuotedSymbol, maskMessage, normalisePath } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FindingSet } from './common.js'

/** An issue line; group 3 is the linter. */
export const GOLANGCI_ISSUE =
  /^\s{0,8}((?:[A-Za-z]:)?[^\s:]{1,500}\.go):\d+(?::\d+)?: (.{1,2000}?) \(([a-z][a-z0-9_-]{1,40})\)\s*$/
const RULE_CODE = /^([A-Z]{1,6}\d{1,5}):/

export const golangciLintGrepPatterns = ['\\.go:[0-9]+(:[0-9]+)?: .* \\([a-z][a-z0-9_-]+\\)\\s*$']

export function createGolangciLintParser(): ToolParser {
  const findings = new FindingSet()
  return {
    tool: 'golangci-lint',
    push(line) {
      if (line.indexOf('.go:') === -1) return
      const issue = GOLANGCI_ISSUE.exec(line)
      if (issue === null) return
      const message = issue[2] ?? ''
      const what =
        RULE_CODE.exec(message)?.[1] ?? firstQuotedSymbol(message) ?? maskMessage(message, 60)
      findings.add(buildKey('golangci-lint', issue[3], what, normalisePath(issue[1] ?? '')), line)
    },
    finish: () => findings.list()
  }
}
