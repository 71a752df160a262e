/**
 * Errors of the action itself (bad input, auth, an API that keeps failing, a state store
 * that cannot be read). Expected outcomes such as a red verdict or a pause are values,
 * never exceptions. Every ActionError names the cause and the fix.
 */
export class ActionError extends Error {
  readonly fix: string | undefined

  constructor(message: string, options: { fix?: string; cause?: unknown } = {}) {
    super(options.fix ? `${message}\nFix: ${options.fix}` : message, { cause: options.cause })
    this.name = 'ActionError'
    this.fix = options.fix
  }
}

/** The one way to turn anything thrown into a message. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message
  if (typeof error === 'string') return error
  try {
    return JSON.stringify(error)
  } catch {
    return String(error)
  }
}

/** HTTP status of an Octokit RequestError (or anything shaped like one). */
export function httpStatus(error: unknown): number | undefined {
  if (typeof error === 'object' && error !== null && 'status' in error) {
    const status = (error as { status: unknown }).status
    return typeof status === 'number' ? status : undefined
  }
  return undefined
}
