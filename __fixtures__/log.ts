/** A logger that keeps its lines in memory, for tests. */
import type { Logger } from '../src/ports.js'

/** Collects lines in memory: `debug: `, `warning: `, `error: ` prefixes, groups as `::group::`. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  return {
    lines,
    debug: (m) => void lines.push(`debug: ${m}`),
    info: (m) => void lines.push(m),
    warning: (m) => void lines.push(`warning: ${m}`),
    error: (m) => void lines.push(`error: ${m}`),
    async group(title, body) {
      lines.push(`::group::${title}`)
      try {
        return await body()
      } finally {
        lines.push('::endgroup::')
      }
    }
  }
}
