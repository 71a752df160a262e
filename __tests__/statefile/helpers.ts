import { readFileSync } from 'node:fs'
import { expect } from '@jest/globals'
import { StateFileError } from '../../src/core/state-errors.js'
import {
  prependHistoryEntry,
  renderHistoryEntry,
  type HistoryEntry
} from '../../src/statefile/history.js'
import { readLikeScheduler, type SchedulerReading } from '../helpers/scheduler-rule.js'
import { sha } from '../core/ledger-helpers.js'

export const FIXTURE_PATH = new URL('../../__fixtures__/state/coverage.md', import.meta.url)

/** The realistic state file fixture (LF, table aligned the way prettier formats it). */
export function fixtureText(): string {
  return readFileSync(FIXTURE_PATH, 'utf8')
}

/** The same file with CRLF line endings. */
export function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n')
}

/** The fixture's tables without alignment padding, as the autoloop agent writes them. */
export function compactTables(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      if (/^\|( *:?-+:? *\|)+$/.test(line))
        return `|${'-------|'.repeat(line.split('|').length - 2)}`
      return line.startsWith('|') ? line.replace(/ {2,}/g, ' ') : line
    })
    .join('\n')
}

/** Lines with their line endings, so that joining them gives the text back. */
export function linesWithEol(text: string): string[] {
  return text.split(/(?<=\n)/)
}

/**
 * Reads `text` as the scheduler does and checks each expected field; every file a test writes
 * goes through this.
 */
export function expectSchedulerReads(
  text: string,
  expected: Record<string, string | null>
): SchedulerReading {
  const reading = readLikeScheduler(text)
  for (const [key, value] of Object.entries(expected)) {
    expect({ key, value: reading.fields[key] }).toEqual({ key, value })
  }
  return reading
}

/** Runs `act` and returns the error of `type` it throws (failing the test if it throws none). */
export function thrownBy<E extends Error>(
  type: abstract new (...args: never[]) => E,
  act: () => unknown
): E {
  try {
    act()
  } catch (error) {
    expect(error).toBeInstanceOf(type)
    return error as E
  }
  throw new Error(`expected a ${type.name}, nothing was thrown`)
}

/** Runs `act` and returns the StateFileError it throws (failing the test if it throws none). */
export function stateFileErrorOf(act: () => unknown): StateFileError {
  return thrownBy(StateFileError, act)
}

/** The same, for a promise. */
export async function rejectedStateFileError(act: Promise<unknown>): Promise<StateFileError> {
  try {
    await act
  } catch (error) {
    expect(error).toBeInstanceOf(StateFileError)
    return error as StateFileError
  }
  throw new Error('expected a StateFileError, nothing was thrown')
}

/** Machine State rows the gate writes (scheduler keys). */
export const GATE_OWNED_KEYS = [
  'branch',
  'pr',
  'issue',
  'paused',
  'pause_reason',
  'recent_statuses',
  'last_run'
] as const

/**
 * The text without what the gate owns: the `## 🚦 CI Gate` section (up to the next `## ` line,
 * as the scheduler cuts) and the Machine State rows keyed by `GATE_OWNED_KEYS` (the gate may
 * add a missing one). Written here without the writer's code, so tests can compare a file
 * before and after the gate's writes byte for byte.
 */
export function withoutOwnedParts(text: string): string {
  const kept: string[] = []
  let section: 'machine' | 'gate' | 'other' = 'other'
  for (const line of text.split(/(?<=\n)/)) {
    const bare = line.replace(/\r?\n$/, '').replace(/^\uFEFF/, '')
    if (bare.startsWith('## '))
      section =
        bare === '## 🚦 CI Gate'
          ? 'gate'
          : bare.startsWith('## ⚙️ Machine State')
            ? 'machine'
            : 'other'
    if (section === 'gate') continue
    const key = section === 'machine' ? /^[^|]*\|([^|]*)\|/.exec(bare)?.[1] : undefined
    const owned =
      key !== undefined &&
      (GATE_OWNED_KEYS as readonly string[]).includes(key.trim().toLowerCase().split(' ').join('_'))
    if (!owned) kept.push(line)
  }
  return kept.join('')
}

/**
 * `text` with `entries` Iteration History entries prepended, the i-th made by `entry(i)` over
 * defaults (accepted, metric 0.9, a commit, one fix attempt), run keys from `firstRunKey`.
 */
export function withHistory(
  text: string,
  entries: number,
  entry: (i: number) => Partial<HistoryEntry> & Pick<HistoryEntry, 'iteration' | 'at' | 'change'>,
  firstRunKey = 20_000
): string {
  let next = text
  for (let i = 0; i < entries; i += 1) {
    const runKey = String(firstRunKey + i)
    const lines = renderHistoryEntry({
      outcome: 'accepted',
      metric: 0.9,
      previousBest: null,
      reason: null,
      commit: sha(i),
      runUrl: null,
      fixAttempts: 1,
      ...entry(i),
      runKey
    })
    next = prependHistoryEntry(next, { runKey, lines })
  }
  return next
}
