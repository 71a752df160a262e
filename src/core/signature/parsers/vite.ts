/**
 * `vite build`. An import that cannot be resolved is reported as `[vite]: Rollup failed to
 * resolve import "pkg" from "src/a.ts".` (Rolldown since vite 7), as a warning and again as the
 * error. Any other failure follows `error during build:` (after vite 7's `Build failed with 1
 * error:`), as `[plugin] message` or `Error: message`.
 * Key: `vite:cannot resolve:<import>`, else `vite:<plugin>:<masked message>`. Details: the
 * error's lines (message, code frame) up to its stack, which is vite's own.
 */
import { buildKey, maskMessage, normalisePathsIn } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const UNRESOLVED = /(?:Rollup|Rolldown) failed to resolve import "([^"]{1,500})"/
const DURING_BUILD = /^error during build:\s*$/
const SKIPPED = /^(?:Build failed with \d+ errors?:)?\s*$/
/** A blank line, the first frame of the error's stack, or the end of the error object vite prints. */
const STACK = /^\s+at |^\}?\s*$/
const PLUGIN_ERROR = /^(?:[A-Z]\w{0,40}: )?\[([\w:@/.-]{1,100})\] (.{1,2000})$/

export const viteGrepPatterns = [
  '(Rollup|Rolldown) failed to resolve import',
  '^error during build:'
]

export function createViteParser(): ToolParser {
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  let afterBuildError = false
  return {
    tool: 'vite',
    push(line) {
      if (details.collecting) {
        if (!STACK.test(line) && details.add(line)) return true
        details.close()
      }
      if (
        !afterBuildError &&
        line.indexOf(' to resolve import') === -1 &&
        line.indexOf('during build') === -1
      ) {
        return
      }
      const unresolved = UNRESOLVED.exec(line)
      if (unresolved !== null) {
        const key = buildKey('vite', 'cannot resolve', unresolved[1])
        findings.add(key, line)
        details.open(key, line)
        afterBuildError = false
        return true
      }
      if (DURING_BUILD.test(line)) {
        afterBuildError = true
        return true
      }
      if (!afterBuildError) return
      if (SKIPPED.test(line)) return true
      afterBuildError = false
      const plugin = PLUGIN_ERROR.exec(line.trim())
      const message = plugin !== null ? (plugin[2] ?? '') : line.trim()
      const key = buildKey('vite', plugin?.[1], maskMessage(normalisePathsIn(message), 80))
      findings.add(key, line)
      details.open(key, line)
      return true
    },
    finish: () => findings.list()
  }
}
