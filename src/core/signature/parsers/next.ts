/**
 * `next build`'s type check (and its lint step's TypeScript errors): after `Failed to compile.`
 * (`Failed to type check.` since Next.js 16) comes the place alone on a line, `./app/page.tsx:3:5`,
 * then `Type error: <message>` and a code frame. Next.js prints no TS code.
 * Key: `next:<masked message>:<path>`. Details: the place, the message and the code frame.
 */
import { buildKey, maskMessage, normalisePath } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const PLACE = /^\s*((?:[A-Za-z]:)?[^\s:]{1,500}\.[cm]?[jt]sx?):\d+:\d+\s*$/
const TYPE_ERROR = /^\s*Type error: (.{1,2000})$/
/** A line of the code frame under the message: `> 2 |   const total…`, `    |   ^`. */
const FRAME_LINE = /^\s*(?:>\s*)?\d*\s*\|/

export const nextGrepPatterns = ['^\\s*Type error: ']

export function createNextParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  return {
    tool: 'next',
    push(line, previous) {
      if (details.collecting) {
        if ((line.trim() === '' || FRAME_LINE.test(line)) && details.add(line)) return true
        details.close()
      }
      if (line.indexOf('Type error: ') === -1) return
      const error = TYPE_ERROR.exec(line)
      if (error === null || previous === undefined) return
      const place = PLACE.exec(previous)
      if (place === null) return
      const key = buildKey('next', maskMessage(error[1] ?? ''), normalisePath(place[1] ?? ''))
      findings.add(key, line)
      details.open(key, previous, line)
      return true
    },
    finish: () => findings.list()
  }
}
