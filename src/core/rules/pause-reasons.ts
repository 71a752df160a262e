/**
 * Every pause reason the action writes into Machine State's Pause Reason row, in one place
 * (README: "Pause reasons"). A reason is one line: the kind, then what stopped the loop.
 * `reconcile` reads them back to decide which pauses it may lift.
 */
import { sanitizeCellText } from '../schema.js'

export const PAUSE_KINDS = [
  'stuck',
  'exhausted',
  'timeout',
  'blocked',
  'base-red',
  'consecutive-errors'
] as const

export type PauseKind = (typeof PAUSE_KINDS)[number]

const PREFIX: Record<PauseKind, string> = {
  stuck: 'stuck in CI fix loop',
  exhausted: 'ci-fix-exhausted',
  timeout: 'ci-timeout',
  blocked: 'ci-blocked',
  'base-red': 'ci-base-red',
  'consecutive-errors': 'consecutive errors'
}

/** The reason text: `<kind>: <detail>`, or the bare kind for those without detail. */
export function pauseReason(kind: PauseKind, detail?: string): string {
  const text = detail ? `${PREFIX[kind]}: ${detail}` : PREFIX[kind]
  return sanitizeCellText(text)
}

/**
 * The kind of a pause reason, read from its text; null for a reason this action did not
 * write. The ledger stores the kind with each pause it writes (`pauseKindIn`): the text is
 * read only for a pause the ledger does not hold (a maintainer's, autoloop's own) and, once,
 * for a ledger written before the kind was stored.
 */
export function pauseKindOf(reason: string | null): PauseKind | null {
  const text = (reason ?? '').trim()
  for (const [kind, prefix] of Object.entries(PREFIX) as [PauseKind, string][]) {
    if (text === prefix || text.startsWith(`${prefix}:`)) return kind
  }
  return null
}

/**
 * Pauses the CI gate wrote, which `reconcile` may lift: when the head of the branch is green
 * (or, for `blocked`, once it has any verdict). A `consecutive errors` pause and a pause a
 * human wrote are lifted only by `reset`.
 */
export function isCiPause(kind: PauseKind | null): boolean {
  return kind !== null && kind !== 'consecutive-errors'
}

/** The Recent Statuses word a fix-loop pause appends (stuck, exhausted, timeout). */
export const CI_PAUSE_STATUS = 'ci-fix-exhausted'

/** Whether a pause of this kind ends the iteration's fix loop (and appends `CI_PAUSE_STATUS`). */
export function endsFixLoop(kind: PauseKind): boolean {
  return kind === 'stuck' || kind === 'exhausted' || kind === 'timeout'
}
