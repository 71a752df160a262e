/**
 * Playwright Test (list, line and dot reporters share the report). Each failed test gets a
 * numbered block, `  1) [chromium] › tests/a.spec.ts:3:5 › suite › title ────` (the project
 * in brackets when there is one; a retry adds `Retry #1 ───` inside the block), and the report
 * ends with lists under `  2 failed` and `  1 flaky` (a flaky test failed, then passed on a
 * retry: not a failure). The line reporter overwrites its progress on one line, so a header may
 * follow other text on its line.
 * Key: `playwright:<file>><suite > title>`; the project and line are left out, as is the kind
 * (the closing lists, which a cut log may hold alone, say nothing of the error). Details: the
 * lines of the test's numbered block (error, expected and received, code frame, stack).
 */
import { buildKey, normalisePath } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const TITLE = String.raw`(?:\[[^\]]{1,200}\] › )?([^\s›]{1,500}?):\d+:\d+ › (.{1,2000}?)(?: \(retry #\d+\))?\s*(?:[─=]{3,}.*)?$`
const HEADER = new RegExp(String.raw`(?:^|\s)\d+\) ${TITLE}`)
const LISTED = new RegExp(String.raw`^\s{2,}${TITLE}`)
const COUNT = /^\s*\d+ (failed|flaky|passed|skipped|did not run|interrupted)\b/

export const playwrightGrepPatterns = [
  '[0-9]+\\) (\\[[^]]+\\] › )?[^ ]+:[0-9]+:[0-9]+ › ',
  '^\\s*[0-9]+ (failed|flaky)'
]

export function createPlaywrightParser(): ToolParser {
  const details = new FailureDetails()
  const failed = new FindingSet(details)
  const flaky = new Set<string>()
  /** The closing list being read: `failed` or `flaky`. */
  let list: string | undefined
  return {
    tool: 'playwright',
    push(line) {
      if (list === undefined && line.indexOf(') ') === -1 && line.indexOf(' f') === -1) {
        return details.add(line)
      }
      const count = COUNT.exec(line)
      if (count !== null) {
        details.close()
        list = count[1] === 'failed' || count[1] === 'flaky' ? count[1] : undefined
        return list !== undefined
      }
      if (list !== undefined) {
        const listed = LISTED.exec(line)
        if (listed === null) {
          list = undefined
          return false
        }
        const key = keyOf(listed)
        if (list === 'flaky') flaky.add(key)
        else failed.add(key, line)
        return true
      }
      const header = line.indexOf(') ') === -1 ? null : HEADER.exec(line)
      if (header === null) return details.add(line)
      const key = keyOf(header)
      failed.add(key, line)
      details.open(key)
      return true
    },
    finish: () => failed.list().filter((finding) => !flaky.has(finding.key))
  }
}

function keyOf(match: RegExpExecArray): string {
  const titles = (match[2] ?? '').split(' › ').map((part) => part.trim())
  return buildKey('playwright', `${normalisePath(match[1] ?? '')}>${titles.join(' > ')}`)
}
