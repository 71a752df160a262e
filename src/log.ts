/** Logging is a port too, so pure-ish orchestration can be tested without @actions/core. */
export interface Logger {
  debug(message: string): void
  info(message: string): void
  warning(message: string): void
  error(message: string): void
  group<T>(title: string, body: () => Promise<T>): Promise<T>
}

/** Collects lines in memory; for tests. */
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
