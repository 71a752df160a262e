/**
 * `<program>.md` as a projection of the ledger, pure (README: "The ledger"). The Machine
 * State rows the action owns and the `## 🚦 CI Gate` section are derived from the ledger:
 *
 * - Every write of Machine State rows (and of an Iteration History entry) is logged in the
 *   ledger under the revision that made it. The CI Gate section names the revision it was
 *   projected from. When the file names an older revision (or none), the writes after it are
 *   applied again: that is how a write reverted by another run's memory push comes back,
 *   while rows the agent or a human changed since the last projection are left alone.
 * - The CI Gate section is rewritten whole from the ledger (the fix brief), within the file's
 *   size budget; the oldest Iteration History entries are collapsed when the file is over it.
 */
import { ledgerPath, type Ledger, type StateWrite } from '../loop/ledger.js'
import { renderFixBrief } from '../loop/fix-brief.js'
import {
  ledgerPointerLine,
  readLedgerPointer,
  removeCiGateSection,
  writeCiGateSection
} from './ci-gate-section.js'
import { compactHistory, isRecorded, prependHistoryEntry } from './history.js'
import { readMachineState, updateMachineState } from './machine-state.js'

export interface ProjectionOptions {
  program: string
  /** The file's size budget in UTF-8 bytes (`state-max-bytes`). */
  maxBytes: number
}

/** The ledger writes the file has not seen: those after the revision its CI Gate section names. */
export function pendingWrites(text: string, ledger: Ledger): StateWrite[] {
  const pointer = readLedgerPointer(text)
  return ledger.writes.filter((write) => pointer === null || write.revision > pointer.revision)
}

/** Whether the file shows the ledger's latest revision. */
export function isProjected(text: string, ledger: Ledger): boolean {
  return readLedgerPointer(text)?.revision === ledger.revision
}

/**
 * The brief always gets this much room, with its first error lines: when the file is near its
 * budget, the oldest Iteration History entries are collapsed to make it, since what the next
 * run must fix matters more than the detail of old iterations.
 */
const MIN_BRIEF_BYTES = 3072

/**
 * The file with the ledger projected onto it (see the module comment). Pure and idempotent:
 * projecting a projected file changes nothing. Throws a StateFileError for a malformed file.
 */
export function projectStateFile(text: string, ledger: Ledger, options: ProjectionOptions): string {
  // A program the action never gated or recorded has nothing to project: its file is left alone.
  if (ledger.iteration === null && ledger.writes.length === 0) return text
  let next = text
  for (const write of pendingWrites(text, ledger)) {
    next = updateMachineState(next, write.machineState)
    const entry = write.historyEntry
    if (entry && !isRecorded(next, entry.runKey))
      next = prependHistoryEntry(next, { lines: entry.lines, runKey: entry.runKey })
  }
  const machine = readMachineState(next)
  const pointer = ledgerPointerLine({
    path: ledgerPath(options.program),
    revision: ledger.revision
  })
  const withoutSection = removeCiGateSection(next)
  const room = options.maxBytes - Buffer.byteLength(withoutSection, 'utf8') - 200
  const brief = renderFixBrief(ledger, {
    program: options.program,
    branch: machine.branch ?? `autoloop/${options.program}`,
    pauseReason: machine.paused ? (machine.pauseReason ?? '') : null,
    maxBytes: Math.max(MIN_BRIEF_BYTES, room)
  })
  next = writeCiGateSection(next, [
    pointer,
    `🤖 *Written by autoloop-ci-gate from its ledger \`${ledgerPath(options.program)}\` in the same store (revision ${ledger.revision}); it is rewritten on every gate, so edit the ledger through the action, not here.*`,
    '',
    ...brief
  ])
  return compactHistory(next, options.maxBytes, machine.metricDirection ?? 'higher').text
}
