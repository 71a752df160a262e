/** Helpers shared by the parsers. */
import { DETAIL_LIMITS, type FailureDetails } from '../details.js'
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

/** Distinct messages remembered per key, to tell a repeated diagnostic from a new one. */
const MAX_MESSAGES_PER_KEY = 100

/**
 * A compiler's or type checker's diagnostics in one window per key (several errors of one code
 * in one file share a key): each distinct message with its continuation lines (what is not
 * assignable to what), a repeat of a message already kept by its first line only, which says
 * where it is. Bounded as every window is (DETAIL_LIMITS).
 */
export class DiagnosticWindows {
  private readonly messages = new Map<string, Set<string>>()

  constructor(private readonly details: FailureDetails) {}

  /** Adds one diagnostic of `key`: its `message` (for telling repeats) and the lines it printed. */
  add(key: string, message: string, lines: readonly string[]): void {
    const seen = this.messages.get(key)
    if (seen === undefined) {
      if (this.messages.size >= DETAIL_LIMITS.failures) return
      this.messages.set(key, new Set([message]))
      this.details.open(key, ...lines)
    } else {
      this.details.resume(key)
      if (seen.has(message)) {
        if (lines[0] !== undefined) this.details.add(lines[0])
      } else {
        if (seen.size < MAX_MESSAGES_PER_KEY) seen.add(message)
        for (const line of lines) if (!this.details.add(line)) break
      }
    }
    this.details.close()
  }
}
