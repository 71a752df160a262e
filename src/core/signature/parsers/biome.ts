/**
 * Biome (`biome check`, `biome lint`, `biome format`, `biome ci`). Each diagnostic opens with
 * `src/a.ts:2:22 lint/suspicious/noExplicitAny  FIXABLE  ━━━━` (`src/a.ts format ━━━━` for
 * formatting, `assist/source/organizeImports` for import order), and the next line says its
 * severity: `×` an error, `!` a warning, `i` information; only errors fail a run.
 * Key: `biome:<category>:<path>`. Details: an error's header, message, code frame and notes,
 * up to the next header or the run's `Checked N files` line.
 */
import { buildKey, normalisePath } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const HEADER =
  /^((?:[A-Za-z]:)?[^\s:]{1,1000}?)(?::\d+:\d+)? ([a-z][\w-]{0,60}(?:\/[\w-]{1,100}){0,3})(?:\s+FIXABLE)?\s+━{3,}\s*$/
const SEVERITY = /^\s+([×✖!i⚠ℹ]) /
/** The run's closing lines, after the last diagnostic. */
const RUN_END = /^(?:Checked|Found) \d+ /

export const biomeGrepPatterns = ['^[^ :]+(:[0-9]+:[0-9]+)? [a-z][a-zA-Z/-]*( +FIXABLE)? +━━━']

export function createBiomeParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  /** A diagnostic's header waiting for its severity line. */
  let pending: { key: string; line: string } | undefined
  return {
    tool: 'biome',
    push(line) {
      if (pending !== undefined) {
        if (line.trim() === '') return true
        const severity = SEVERITY.exec(line)
        if (severity !== null && (severity[1] === '×' || severity[1] === '✖')) {
          findings.add(pending.key, pending.line)
          details.open(pending.key, pending.line, line)
          pending = undefined
          return true
        }
        pending = undefined
      }
      if (line.indexOf('━━━') === -1) {
        if (!details.collecting) return false
        if (!RUN_END.test(line) && details.add(line)) return true
        details.close()
        return false
      }
      details.close()
      const header = HEADER.exec(line)
      if (header === null) return false
      pending = { key: buildKey('biome', header[2], normalisePath(header[1] ?? '')), line }
      return true
    },
    finish: () => findings.list()
  }
}
