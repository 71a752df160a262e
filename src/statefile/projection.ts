/**
 * `<program>.md` as a projection of the ledger, pure (README: "The ledger"). The Machine
 * State rows the action owns and the `## 🚦 CI Gate` section are derived from the ledger:
 *
 * - Every write of Machine State rows (and of an Iteration History entry) is logged in the
 *   ledger under the revision that made it. The CI Gate section names the revision it was
 *   projected from. When the file names an older revision (or none), the writes after it are
 *   applied again: that is how a write reverted by another run's memory push comes back. A
 *   re-applied write sets every row in its patch, overwriting what the agent or a human
 *   wrote there since; rows no pending write names are left alone.
 * - The CI Gate section is rewritten whole from the ledger (the fix brief), within the file's
 *   size budget; the oldest Iteration History entries are collapsed when the file is over it.
 */
import { ledgerPath, type Ledger, type StateWrite } from '../core/ledger.js'
import { renderFixBrief } from '../render/fix-brief.js'
import { ledgerPointerLine, readLedgerPointer, writeCiGateSection } from './ci-gate-section.js'
import { compactHistory, isRecorded, prependHistoryEntry } from './history.js'
import { readMachineState, updateMachineState } from './machine-state.js'
import { detectEol } from '../core/text/lines.js'

interface ProjectionOptions {
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
 * The brief gets at least this much room, with its first error lines, when collapsing the
 * oldest Iteration History entries can make it: what the next run must fix matters more than
 * the detail of old iterations. It never gets more than the file's budget leaves.
 */
const MIN_BRIEF_BYTES = 3072

/** Renderings tried before the shortest brief (each one given the room the last one left). */
const MAX_BRIEF_RENDERINGS = 8

/**
 * The file with the ledger projected onto it (see the module comment). Pure and idempotent:
 * projecting a projected file changes nothing. Throws a StateFileError for a malformed file.
 * The result is within `maxBytes` whenever the file with the shortest brief (and its history
 * collapsed) is.
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
  const direction = machine.metricDirection ?? 'higher'
  const head = [
    ledgerPointerLine({ path: ledgerPath(options.program), revision: ledger.revision }),
    `🤖 *Written by autoloop-ci-gate from its ledger \`${ledgerPath(options.program)}\` in the same store (revision ${ledger.revision}); it is rewritten on every gate, so edit the ledger through the action, not here.*`,
    ''
  ]
  const withBrief = (budget: number) => {
    const brief = renderFixBrief(ledger, {
      program: options.program,
      branch: machine.branch ?? `autoloop/${options.program}`,
      pauseReason: machine.paused ? (machine.pauseReason ?? '') : null,
      maxBytes: Math.max(0, budget)
    })
    return compactHistory(
      writeCiGateSection(next, [...head, ...brief]),
      options.maxBytes,
      direction
    )
  }
  // The section's real overhead (heading, pointer, note, line breaks): the file with no brief
  // lines, less one line break for the line the brief's first line adds.
  const skeleton = writeCiGateSection(next, head)
  const eolBytes = Buffer.byteLength(detectEol(next), 'utf8')
  const room = options.maxBytes - Buffer.byteLength(skeleton, 'utf8') - eolBytes
  // What collapsing every history entry it can would leave.
  const most = options.maxBytes - compactHistory(skeleton, 0, direction).bytes - eolBytes
  let budget = Math.max(room, Math.min(MIN_BRIEF_BYTES, most))
  let result = withBrief(budget)
  // The brief's line breaks may be wider than it counted (CRLF), and history collapses by
  // whole entries: render it again within the room actually left, then at its shortest.
  for (let i = 0; i < MAX_BRIEF_RENDERINGS && !result.fits && budget > 0; i += 1) {
    budget -= result.bytes - options.maxBytes
    result = withBrief(budget)
  }
  if (!result.fits && budget > 0) result = withBrief(0)
  return result.text
}
