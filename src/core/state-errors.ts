/** Errors of the state file and its stores. Each message names the cause and the fix. */

interface StateFileProblem {
  /** What is wrong, e.g. `Paused must be true or false`. */
  reason: string
  /** How a maintainer fixes it, e.g. `write true or false in the Value column`. */
  fix: string
  /** 1-based line number of the offending line, when there is one. */
  line?: number
  /** The offending line as written (cut to 200 characters). */
  lineText?: string
}

const QUOTE_LIMIT = 200

function quote(lineText: string): string {
  const cut = lineText.length > QUOTE_LIMIT ? `${lineText.slice(0, QUOTE_LIMIT)}…` : lineText
  return JSON.stringify(cut)
}

/**
 * The state file cannot be read safely. It is never overwritten while this is thrown:
 * a maintainer fixes the quoted line (or runs `reset` for the ledger section).
 */
export class StateFileError extends Error {
  readonly reason: string
  readonly fix: string
  readonly line: number | undefined
  readonly lineText: string | undefined
  readonly source: string | undefined

  constructor(problem: StateFileProblem, source?: string) {
    const where =
      problem.line === undefined
        ? ''
        : ` line ${problem.line}${problem.lineText === undefined ? '' : ` ${quote(problem.lineText)}`}`
    const file = source === undefined ? 'state file' : `state file ${source}`
    super(`${file}${where}: ${problem.reason}. Fix: ${problem.fix}`)
    this.name = 'StateFileError'
    this.reason = problem.reason
    this.fix = problem.fix
    this.line = problem.line
    this.lineText = problem.lineText
    this.source = source
  }

  /** The same problem, with the file's name or path in the message. */
  inFile(source: string): StateFileError {
    return new StateFileError(
      { reason: this.reason, fix: this.fix, line: this.line, lineText: this.lineText },
      source
    )
  }
}

/** The stored file changed since it was read: re-read, re-apply, retry. */
export class StateConflictError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StateConflictError'
  }
}

/**
 * Thrown by a `ContentsApi` when the blob SHA given to `putFile` is no longer the file's
 * (GitHub answers 409 or 422), or when a file expected to be new already exists.
 */
export class ContentsConflictError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'ContentsConflictError'
  }
}
