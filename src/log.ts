/** Logging is a port too, so pure-ish orchestration can be tested without @actions/core. */
import { forLog } from './text/untrusted.js'

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

/**
 * A logger for code that quotes CI text (check names, failure keys, error lines): every
 * message goes through `forLog`, so no line of it can issue a workflow command and no secret
 * or masked value is printed, whichever call site forgot to clean its part.
 */
export function untrustedTextLogger(log: Logger, maskedValues: readonly string[]): Logger {
  const clean = (message: string) => forLog(message, { maskedValues })
  return {
    debug: (message) => log.debug(clean(message)),
    info: (message) => log.info(clean(message)),
    warning: (message) => log.warning(clean(message)),
    error: (message) => log.error(clean(message)),
    group: (title, body) => log.group(clean(title), body)
  }
}
