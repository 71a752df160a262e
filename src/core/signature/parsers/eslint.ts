/**
 * ESLint, in the stylish form (a file line, then `  2:10  error  'x' is defined but never used
 * no-unused-vars`) and the unix form (`src/a.js:5:10: 'x' is defined … [Error/no-unused-vars]`),
 * and `next lint`'s (a `./app/page.tsx` line, then `5:7  Error: 'x' is … never used.  rule` at
 * column 0). A stylish problem copied from the web UI, where the runner's problem matcher
 * marked it, reads `Error:   2:10  error  …`; a console copied with a blank line after every
 * line has one between a file line and its problems. Warnings are not failures. Key:
 * `eslint:<rule>:<first quoted symbol>:<path>`; a problem without a rule (a parsing error) uses
 * its masked message instead. A relative file line was most often cut by hand (eslint prints it
 * absolute; early versions printed it as given) and may start at the checkout's own folder (see
 * normaliseCutPath).
 */
import {
  buildKey,
  firstQuotedSymbol,
  maskMessage,
  normaliseCutPath,
  normalisePath,
  stripErrorMarker
} from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const PROBLEM_START = /^(?:\s+\d+:\d+\s|\d+:\d+\s+(?:Error|Warning): )/
const STYLISH_PROBLEM =
  /^(?:\s+\d+:\d+\s+error\s+|\d+:\d+\s+Error: )(.*?)(?:\s{2,}(@?[\w/.-]{1,100}))?\s*$/
/** The web UI's copy of a line the runner marked `##[error]`. */
const WEB_UI_MARK = /^Error: (?=\s+\d+:\d+\s)/
const UNIX_PROBLEM =
  /^((?:[A-Za-z]:)?[^:\s][^:]{0,1000}):\d+:\d+: (.*) \[Error\/([\w@/.-]{1,100})\]$/
/** The extensions of the files ESLint lints, as a pattern (`(?:…)`). */
export const ESLINT_FILE_EXTENSIONS =
  '(?:[cm]?[jt]sx?|vue|svelte|astro|mdx?|json|ya?ml|html?|graphql)'
const FILE_LINE = new RegExp(`^(?:[A-Za-z]:)?[^\\s:][^:]*\\.${ESLINT_FILE_EXTENSIONS}$`)

export const eslintGrepPatterns = [
  '^\\s+[0-9]+:[0-9]+\\s+error\\s',
  '^[0-9]+:[0-9]+\\s+Error: ',
  '\\[Error/[^]]+\\]$',
  `^[^ :]+\\.${ESLINT_FILE_EXTENSIONS.replaceAll('(?:', '(')}\\s*$`
]

export function createEslintParser(): ToolParser {
  /** A problem's details: its file as printed (on the header line) and the problem line. */
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  let file: string | undefined
  /**
   * The file whose problems may still follow after one blank line: a file line, or the file of
   * the last problem (a log that puts a blank line after every line, as a Jenkins console
   * copied into a thread does). `gap` says the blank line was seen.
   */
  let awaited: string | undefined
  let gap = false
  return {
    tool: 'eslint',
    push(text, before) {
      const raw = unmark(text)
      const first = raw.charCodeAt(0)
      if (raw.trim() === '') {
        // Reached only while awaiting problems: one blank line may sit before them, never two.
        if (awaited === undefined || gap) {
          awaited = undefined
          return false
        }
        gap = true
        return true
      }
      const previous = before === undefined ? undefined : unmark(before)
      if (first !== 32 && first !== 9 && !PROBLEM_START.test(raw)) {
        const line = stripErrorMarker(raw).trimEnd()
        awaited = undefined
        if (line.endsWith(']') && line.indexOf('[Error/') !== -1) {
          const unix = UNIX_PROBLEM.exec(line)
          if (unix !== null) add(unix[1] ?? '', unix[2] ?? '', unix[3], raw)
        } else if (looksLikeSourcePath(line)) {
          awaited = line
          gap = false
          return true
        }
        return
      }
      if (!PROBLEM_START.test(raw)) {
        awaited = undefined
        return false
      }
      // The first problem of a file follows the file's header line: a path on its own, or the
      // blank line after the file line or the last problem in a log with a blank after each line.
      if (previous !== undefined && !PROBLEM_START.test(previous)) {
        const header = previous.trim()
        if (header !== '') file = looksLikeSourcePath(header) ? header : undefined
        else file = gap ? awaited : undefined
      }
      awaited = file
      gap = false
      if (file === undefined) return false
      const problem = STYLISH_PROBLEM.exec(raw)
      if (problem !== null) add(file, problem[1] ?? '', problem[2], raw, normaliseCutPath(file))
      return true
    },
    finish: () => findings.list()
  }

  function add(
    path: string,
    message: string,
    rule: string | undefined,
    line: string,
    normalisedPath = normalisePath(path)
  ): void {
    const key =
      rule === undefined
        ? buildKey('eslint', maskMessage(message), normalisedPath)
        : buildKey('eslint', rule, firstQuotedSymbol(message), normalisedPath)
    if (!findings.has(key)) details.open(key, path, line)
    details.close()
    findings.add(key, line)
  }
}

/** A line without the runner's `##[error]` or the web UI's `Error: ` before a stylish problem. */
function unmark(line: string): string {
  const bare = stripErrorMarker(line)
  return WEB_UI_MARK.test(bare) ? bare.slice(7) : bare
}

function looksLikeSourcePath(line: string): boolean {
  return line.length < 1000 && FILE_LINE.test(line)
}
