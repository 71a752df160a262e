/** Helpers shared by the parsers. */
import type { FailureDetails } from '../details.js'
import type { Finding } from '../types.js'

/** Most findings one parser keeps for one log, so per-log state stays bounded. */
const MAX_FINDINGS_PER_PARSER = 1000

/**
 * Lines a numbered failure list (mocha's, rspec's, JUnit 4's and PHPUnit's) is read for one
 * failure before it is given up as cut or malformed.
 */
export const MAX_LINES_PER_FAILURE = 2000

/**
 * Findings de-duplicated by key (the first line seen is kept), at most MAX_FINDINGS_PER_PARSER.
 * With `details`, each finding gets the lines of its window when the list is read: the window
 * named by the `detailsId` given to `add`, else by the key.
 */
export class FindingSet {
  private readonly byKey = new Map<string, Finding>()
  private readonly detailIds = new Map<string, string>()

  constructor(private readonly details?: FailureDetails) {}

  add(key: string, line: string, secondary = false, detailsId?: string): void {
    if (this.byKey.has(key) || this.byKey.size >= MAX_FINDINGS_PER_PARSER) return
    this.byKey.set(key, secondary ? { key, line, secondary } : { key, line })
    if (detailsId !== undefined) this.detailIds.set(key, detailsId)
  }

  has(key: string): boolean {
    return this.byKey.has(key)
  }

  get size(): number {
    return this.byKey.size
  }

  list(): Finding[] {
    const details = this.details
    if (details === undefined) return [...this.byKey.values()]
    return [...this.byKey.values()].map((finding) => {
      const lines = details.of(this.detailIds.get(finding.key) ?? finding.key)
      return lines === undefined ? finding : { ...finding, details: lines }
    })
  }
}

/** Number of leading spaces (tabs count as one). */
export function indentOf(line: string): number {
  let i = 0
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++
  return i
}
