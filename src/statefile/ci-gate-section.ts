/**
 * The `## 🚦 CI Gate` section of a program's state file, pure. The action owns it whole: a
 * hidden pointer to the ledger (`ci-gate/<program>.json` in the same store) with the ledger
 * revision the section was projected from, then the fix brief an agent reads first
 * (docs/decisions.md: "The fix brief"). The section sits right after Machine State, so the scheduler's
 * cut of Machine State (at the next `\n## `) ends before it; its body never holds a `## `
 * line of its own.
 *
 * Files written by an earlier version kept the ledger itself in this section as a fenced JSON
 * block; `readLegacyLedgerBlock` reads it so the ledger can be migrated to its own file.
 */
import { StateFileError } from '../core/state-errors.js'
import { locateMachineState, readMachineState } from './machine-state.js'
import {
  detectEol,
  jsonErrorOffset,
  lineAt,
  lineNumberAt,
  linesOf,
  separatorBeforeAppended,
  splitSections,
  splitTrailer,
  type Line,
  type Section
} from '../core/text/lines.js'

export const CI_GATE_HEADING = '## 🚦 CI Gate'
const CI_GATE_NAME = 'CI Gate'

const POINTER = /^<!-- autoloop-ci-gate:ledger (\S+) revision (\d+) -->[ \t]*$/

const SECTION_FIX = `delete the whole "${CI_GATE_HEADING}" section: the action writes it again from its ledger`

/** The CI Gate section, or null. Two of them is an error that quotes the second heading. */
export function findCiGateSection(text: string): Section | null {
  const found = splitSections(text, 'ignore').sections.filter(
    (section) => section.name === CI_GATE_NAME
  )
  const second = found[1]
  if (second) {
    throw new StateFileError({
      ...lineAt(text, second.start),
      reason: `a second "${CI_GATE_HEADING}" section (the first is on line ${lineNumberAt(text, (found[0] as Section).start)})`,
      fix: 'delete one of the two sections'
    })
  }
  return found[0] ?? null
}

interface LedgerPointer {
  /** The ledger's path in the store, e.g. `ci-gate/perf.json`. */
  path: string
  /** The ledger revision the section (and the Machine State rows) were projected from. */
  revision: number
}

/** The pointer line of the CI Gate section; null when there is no section or no pointer. */
export function readLedgerPointer(text: string): LedgerPointer | null {
  const section = findCiGateSection(text)
  if (!section) return null
  for (const line of linesOf(text, section.start, section.end)) {
    const match = POINTER.exec(line.text)
    if (match) return { path: match[1] as string, revision: Number(match[2]) }
  }
  return null
}

export function ledgerPointerLine(pointer: LedgerPointer): string {
  return `<!-- autoloop-ci-gate:ledger ${pointer.path} revision ${pointer.revision} -->`
}

// ---------------------------------------------------------------------------------------
// Writing

/**
 * Writes the section: the heading, then `bodyLines` (the pointer line first). An existing
 * section is replaced whole (its trailing separator kept); a missing one is created right
 * after Machine State. The file must be valid first: nothing is written otherwise.
 */
export function writeCiGateSection(text: string, bodyLines: readonly string[]): string {
  readMachineState(text)
  if (bodyLines.some((line) => line.startsWith('## ') || /[\r\n]/.test(line)))
    throw new Error('internal error: a CI Gate line must be one line and not a `## ` heading')
  const eol = detectEol(text)
  const rendered = [CI_GATE_HEADING, '', ...bodyLines, ''].join(eol)
  const existing = findCiGateSection(text)
  if (existing) {
    return (
      text.slice(0, existing.start) +
      rendered +
      text.slice(existing.start + existing.content.length)
    )
  }
  const region = locateMachineState(text)
  if (region.end < text.length) {
    const machineState = splitTrailer(text.slice(region.start, region.end + 1))
    const trailer = machineState.trailer === '' ? eol : machineState.trailer
    return text.slice(0, region.end + 1) + rendered + trailer + text.slice(region.end + 1)
  }
  // Machine State is the last section: close it, then append.
  return text + separatorBeforeAppended(text) + rendered
}

/** Removes the section (heading to the next section) when there is one. */
export function removeCiGateSection(text: string): string {
  readMachineState(text)
  const section = findCiGateSection(text)
  return section ? text.slice(0, section.start) + text.slice(section.end) : text
}

// ---------------------------------------------------------------------------------------
// The ledger as an earlier version kept it: a fenced JSON block in this section

interface LegacyLedgerBlock {
  /** The parsed JSON, not yet validated. */
  json: unknown
  /** The block's JSON text, for error messages. */
  text: string
  /** 1-based line number of the first JSON line, for error messages. */
  line: number
}

/** The section's ```json block, or null when the section has none (or there is no section). */
export function readLegacyLedgerBlock(text: string): LegacyLedgerBlock | null {
  const section = findCiGateSection(text)
  if (!section) return null
  const lines = linesOf(text, section.start, section.end)
  const open = lines.findIndex((line) => /^```json\s*$/.test(line.text))
  if (open === -1) return null
  const close = lines.findIndex((line, i) => i > open && /^```\s*$/.test(line.text))
  if (close === -1) {
    throw new StateFileError({
      ...lineAt(text, (lines[open] as Line).start),
      reason: 'the ```json block of the CI Gate section is never closed',
      fix: SECTION_FIX
    })
  }
  const first = lines[open + 1] as Line
  const jsonText = text.slice(first.start, (lines[close] as Line).start)
  try {
    return {
      json: JSON.parse(jsonText) as unknown,
      text: jsonText,
      line: lineNumberAt(text, first.start)
    }
  } catch (error) {
    throw new StateFileError({
      ...lineAt(
        text,
        Math.min(jsonErrorOffset(jsonText, error) + first.start, (lines[close] as Line).start)
      ),
      reason: `the CI Gate ledger is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      fix: SECTION_FIX
    })
  }
}
