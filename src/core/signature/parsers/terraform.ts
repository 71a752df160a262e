/**
 * Terraform and OpenTofu diagnostics: `Error: <summary>`, then its place `  on main.tf line 4,
 * in module "x":`, the source line and the detail; since 0.15 each diagnostic sits in a box
 * (`╷`, every line led by `│ `, `╵`), before that it ends at two blank lines. Only an error with
 * a place in a configuration file is read (an `Error:` line of another tool has none); warnings
 * never. Key: `terraform:<summary>:<file>`.
 */
import { buildKey, normalisePath } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { DiagnosticWindows, FindingSet } from './common.js'

/** The box's left edge, which leads every line of a diagnostic since 0.15. */
const BOX = /^[│|] ?/
const SUMMARY = /^\s{0,4}Error: (\S.{0,300}?)\s*$/
const PLACE = /^\s{0,8}on (\S.{0,1000}?\.(?:tf|tf\.json|tfvars|hcl)) line \d+/
const OTHER_DIAGNOSTIC = /^\s{0,4}(?:Error|Warning): /
/** Lines of one diagnostic read at most. */
const MAX_LINES = 25

export const terraformGrepPatterns = ['Error: ', ' on .*\\.(tf|tfvars|hcl) line [0-9]+']

export function createTerraformParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  const windows = new DiagnosticWindows(details)
  let pending:
    { summary: string; path: string | undefined; lines: string[]; blanks: number } | undefined
  const flush = (): void => {
    if (pending === undefined) return
    const { summary, path, lines } = pending
    pending = undefined
    if (path === undefined) return
    const key = buildKey('terraform', summary, path)
    // Repeats are told apart by their text without the line numbers.
    windows.add(key, lines.join('\n').replace(/\d+/g, 'N'), lines)
    findings.add(key, lines[0] ?? '')
  }
  return {
    tool: 'terraform',
    push(raw) {
      const boxed = BOX.test(raw)
      const line = boxed ? raw.replace(BOX, '') : raw
      if (pending !== undefined) {
        const end =
          raw.startsWith('╵') ||
          raw.startsWith('╷') ||
          OTHER_DIAGNOSTIC.test(line) ||
          pending.lines.length >= MAX_LINES ||
          (!boxed && line.trim() === '' && pending.blanks >= 1 && pending.path !== undefined)
        if (!end) {
          if (line.trim() === '') pending.blanks += 1
          else pending.blanks = 0
          const place = pending.path === undefined ? PLACE.exec(line) : null
          if (place !== null) pending.path = normalisePath(place[1] ?? '')
          pending.lines.push(line)
          return true
        }
        flush()
      }
      if (line.indexOf('Error: ') === -1) return false
      const summary = SUMMARY.exec(line)
      if (summary === null) return false
      pending = { summary: summary[1] ?? '', path: undefined, lines: [line], blanks: 0 }
      return true
    },
    finish() {
      flush()
      return findings.list()
    }
  }
}
