/**
 * Jest. A failing file opens with `FAIL path (8.5 s)` (multi-project runs put a display name
 * before the path); each failing test is a `● describe › test` title under it, repeated in
 * the "Summary of all failing tests". Key: `jest:<path>><describe > test>`. A file that
 * could not run (`● Test suite failed to run`) adds what stopped it: `jest:<path>>(suite):<TS code>`
 * for ts-jest type errors (tsc's parser adds the full tsc key), else the masked first error line.
 */
import {
  buildKey,
  maskMessage,
  normalisePath,
  normalisePathsIn,
  stripTrailingDuration
} from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FindingSet } from './common.js'

const SUITE_FAILED = 'Test suite failed to run'
const TS_CODE = /\berror\s+(TS\d+)\b/

export const jestGrepPatterns = ['^\\s*FAIL\\s', '^\\s*● ']

export function createJestParser(): ToolParser {
  const findings = new FindingSet()
  let suite: string | undefined
  /** Set after `● Test suite failed to run`: the next non-empty line says why. */
  let suiteFailureLine: string | undefined
  return {
    tool: 'jest',
    push(line) {
      if (suiteFailureLine !== undefined) {
        const text = line.trim()
        if (text === '' || suite === undefined) return true
        const ts = TS_CODE.exec(text)
        const reason = ts !== null ? ts[1] : maskMessage(normalisePathsIn(text), 60)
        findings.add(buildKey('jest', `${suite}>(suite)`, reason), suiteFailureLine)
        suiteFailureLine = undefined
        return false
      }
      const first = line.charCodeAt(0)
      if (first !== 32 && first !== 70 && first !== 80) return // ' ', 'F', 'P'
      const text = line.trimStart()
      if (text.startsWith('FAIL ')) {
        suite = suitePath(text.slice(5))
        return
      }
      if (text.startsWith('PASS ')) {
        suite = undefined
        return
      }
      if (suite === undefined || !text.startsWith('● ')) return
      const title = text.slice(2).trim()
      if (title === SUITE_FAILED) {
        suiteFailureLine = line
        return true
      }
      const testPath = title.split(' › ').map((part) => part.trim())
      findings.add(buildKey('jest', `${suite}>${testPath.join(' > ')}`), line)
    },
    finish: () => findings.list()
  }
}

/** The path in `src/a.test.ts (8.518 s)` or `web-api  src/a.test.ts`; undefined when it is vitest's form. */
function suitePath(rest: string): string | undefined {
  const text = stripTrailingDuration(rest.trim())
  if (text === '' || text.includes(' > ') || text.endsWith(' ]')) return undefined
  const tokens = text.split(/\s+/)
  return normalisePath(tokens[tokens.length - 1] ?? '')
}
