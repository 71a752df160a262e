/**
 * The runner's own error lines: `##[error]msg` in a job log (from `::error::` commands, problem
 * matchers and failed actions), and `::error file=…::msg` commands in raw output. The step
 * trailer `Process completed with exit code N.` is never a key here: the extractor uses it
 * only when nothing else was found. These findings are wrappers (secondary): a tool parser's
 * findings in the same log win. Key: `gha:<masked message>`.
 */
import { buildKey, maskMessage } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FindingSet } from './common.js'

/** The step trailer; a copy from the web UI shows `##[error]` as `Error: `. */
export const EXIT_CODE_TRAILER =
  /^(?:##\[error\]|Error: )Process completed with exit code (\d+)\.?\s*$/
const COMMAND = /^::error(?:\s[^:]{0,2000})?::(.*)$/

export const runnerGrepPatterns = ['^##\\[error\\]', '^::error( [^:]*)?::']

export function createRunnerParser(): ToolParser {
  const findings = new FindingSet()
  return {
    tool: 'gha',
    push(line) {
      if (line.charCodeAt(0) === 35) {
        // #
        if (!line.startsWith('##[error]') || EXIT_CODE_TRAILER.test(line)) return
        add(line.slice(9), line)
        return
      }
      if (line.charCodeAt(0) === 58 && line.startsWith('::error')) {
        const command = COMMAND.exec(line)
        if (command !== null) add(decodeCommandText(command[1] ?? ''), line)
      }
    },
    finish: () => findings.list()
  }

  function add(message: string, line: string): void {
    const firstLine = message.split('\n', 1)[0] ?? ''
    const masked = maskMessage(firstLine)
    if (masked !== '') findings.add(buildKey('gha', masked), line, true)
  }
}

/** Workflow commands escape `%`, CR and LF as `%25`, `%0D`, `%0A`. */
function decodeCommandText(text: string): string {
  return text.replaceAll('%0D', '').replaceAll('%0A', '\n').replaceAll('%25', '%')
}
