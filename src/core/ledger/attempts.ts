/** Finding a ledger's attempts, and changing one of them. */
import type { Attempt, Iteration, Ledger } from './model.js'

export function latestAttempt(ledger: Ledger): Attempt | undefined {
  return ledger.attempts[ledger.attempts.length - 1]
}

/** Attempts left `in-flight` (by this run or by one that died). */
export function inFlightAttempts(ledger: Ledger): Attempt[] {
  return ledger.attempts.filter((attempt) => attempt.state === 'in-flight')
}

/** Whether the ledger's iteration is still going (not ended, and there is one). */
export function isIterationOpen(
  ledger: Ledger | null
): ledger is Ledger & { iteration: Iteration } {
  return ledger?.iteration != null && ledger.iteration.finishedAt === null
}

export function replaceAttempt(ledger: Ledger, index: number, attempt: Attempt): Ledger {
  return { ...ledger, attempts: ledger.attempts.map((a) => (a.index === index ? attempt : a)) }
}

export function attemptAt(ledger: Ledger, index: number): Attempt {
  const attempt = ledger.attempts.find((a) => a.index === index)
  if (!attempt) throw new RangeError(`the ledger has no attempt ${index}`)
  return attempt
}

/** Changes one attempt (by index) with `change`; the rest of the ledger is kept. */
export function updateAttempt(
  ledger: Ledger,
  index: number,
  change: (attempt: Attempt) => Attempt
): Ledger {
  return replaceAttempt(ledger, index, change(attemptAt(ledger, index)))
}
