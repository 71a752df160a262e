/** Helpers shared by the parsers. */
import type { Finding } from '../types.js'

/** Most findings one parser keeps for one log, so per-log state stays bounded. */
export const MAX_FINDINGS_PER_PARSER = 1000

/** Findings de-duplicated by key (the first line seen is kept), at most MAX_FINDINGS_PER_PARSER. */
export class FindingSet {
  private readonly byKey = new Map<string, Finding>()

  add(key: string, line: string, secondary = false): void {
    if (this.byKey.has(key) || this.byKey.size >= MAX_FINDINGS_PER_PARSER) return
    this.byKey.set(key, secondary ? { key, line, secondary } : { key, line })
  }

  has(key: string): boolean {
    return this.byKey.has(key)
  }

  get size(): number {
    return this.byKey.size
  }

  list(): Finding[] {
    return [...this.byKey.values()]
  }
}

/** Number of leading spaces (tabs count as one). */
export function indentOf(line: string): number {
  let i = 0
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++
  return i
}
