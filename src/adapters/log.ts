import type { Logger } from '../ports.js'
import { forLog } from '../core/text/untrusted.js'

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
