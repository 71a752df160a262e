/**
 * Reading the ledger file `ci-gate/<program>.json` (README: "The ledger"), pure: the caller
 * reads the file. A file that is not JSON, was written by a newer version, or does not fit the
 * schema is a `StateFileError` that quotes the line it could not read (a JSON path is located
 * in the text, best effort), so nothing is written over it. Version 1, the fenced block an
 * earlier version kept in the state file's CI Gate section, is migrated; a ledger written
 * before pause writes stored their kind gets it derived once.
 *
 * The model, its schema and its file's text (`serializeLedger`, which the size bound
 * measures) are `core/ledger.ts`.
 */
import { StateFileError } from '../core/state-errors.js'
import { cut } from '../core/text/untrusted.js'
import { jsonErrorOffset, lineAt } from '../core/text/lines.js'
import { pauseKindOf } from '../core/rules/pause-reasons.js'
import {
  LEDGER_LIMITS,
  LEDGER_VERSION,
  LedgerSchema,
  hashKey,
  type Ledger,
  type StateWrite
} from '../core/ledger.js'

const LEDGER_FIX =
  'restore the file from the branch history, or delete it (the CI fix loop of the current iteration starts over; run the reset command to say so on the program issue)'

/** The offset of element `index` (an object or array) of the first array at or after `from`; -1 when not found. */
function elementOffset(text: string, from: number, index: number): number {
  let depth = 0
  let seen = -1
  const open = text.indexOf('[', from)
  if (open === -1) return -1
  for (let i = open + 1; i < text.length; i += 1) {
    const char = text[i]
    if (char === '"') {
      // A string: a backslash escapes the character after it (`\\` too), so it ends at the
      // first quote that no backslash escapes.
      i += 1
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
      if (i >= text.length) return -1
      continue
    }
    if (char === '{' || char === '[') {
      if (depth === 0 && ++seen === index) return i
      depth += 1
    } else if (char === '}' || char === ']') {
      if (depth === 0) return -1
      depth -= 1
    }
  }
  return -1
}

/** The offset in `text` where the value at `path` starts, best effort (for error messages). */
function offsetOfPath(text: string, path: readonly PropertyKey[]): number {
  let at = 0
  for (const segment of path) {
    const found =
      typeof segment === 'number'
        ? elementOffset(text, at, segment)
        : text.indexOf(`"${String(segment)}"`, at)
    if (found === -1) return at
    at = found
  }
  return at
}

/**
 * Reads a ledger file. A file that is not JSON, was written by a newer version, or does not
 * fit the schema is an error that quotes the line it could not read; nothing is written then.
 */
export function parseLedgerFile(text: string, source: string): Ledger {
  let json: unknown
  try {
    json = JSON.parse(text) as unknown
  } catch (error) {
    throw new StateFileError(
      {
        ...lineAt(text, jsonErrorOffset(text, error)),
        reason: `the ledger is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
        fix: LEDGER_FIX
      },
      source
    )
  }
  return parseLedgerJson(json, text, source)
}

/** Validates parsed ledger JSON: the current version, or version 1 migrated. */
export function parseLedgerJson(
  json: unknown,
  text: string,
  source: string,
  options: { program?: string; firstLine?: number } = {}
): Ledger {
  const version = (json as { version?: unknown } | null)?.version
  const where = (offset: number) => {
    const at = lineAt(text, offset)
    return { ...at, line: at.line + (options.firstLine ?? 1) - 1 }
  }
  if (typeof version === 'number' && version > LEDGER_VERSION) {
    throw new StateFileError(
      {
        ...where(offsetOfPath(text, ['version'])),
        reason: `the ledger has version ${version}, written by a newer autoloop-ci-gate than this one (version ${LEDGER_VERSION})`,
        fix: 'use the newer version of the action in every workflow that runs it'
      },
      source
    )
  }
  const migrated = version === 1 ? migrateV1(json, options.program) : json
  const parsed = LedgerSchema.safeParse(migrated)
  if (parsed.success) return withPauseKinds(parsed.data)
  const issue = parsed.error.issues[0]
  const path = issue?.path ?? []
  throw new StateFileError(
    {
      ...where(offsetOfPath(text, path)),
      reason: `the ledger is invalid at ${path.join('.') || '(root)'}: ${issue?.message ?? 'unknown'}`,
      fix: LEDGER_FIX
    },
    source
  )
}

/**
 * Version 1 kept the current iteration only, in the state file's CI Gate section. It becomes
 * version 2 with the default budget and wall clock (the next gate sets its own).
 */
function migrateV1(json: unknown, program: string | undefined): unknown {
  if (typeof json !== 'object' || json === null) return json
  const v1 = json as Record<string, unknown> & {
    iteration?: Record<string, unknown>
    attempts?: unknown[]
  }
  const updatedAt =
    (v1.iteration?.finishedAt as string | null | undefined) ??
    (v1.iteration?.startedAt as string | undefined)
  return {
    version: LEDGER_VERSION,
    program: program ?? '',
    revision: 0,
    updatedAt,
    iteration: v1.iteration ? { ...v1.iteration, maxFixAttempts: 5, timeoutMinutes: 60 } : null,
    earlierSignatureHashes: v1.earlierSignatureHashes ?? [],
    attempts: v1.attempts ?? [],
    pausedSignatures: pausedSignaturesOfV1(v1.iteration, v1.attempts),
    baseFailures: null,
    writes: []
  }
}

/**
 * Version 1 kept no paused signatures: an iteration that ended paused remembers its latest
 * attempt's signature (as `rememberPausedSignature` would have), so that a `reset` after the
 * upgrade does not forget what the loop was stuck on.
 */
function pausedSignaturesOfV1(
  iteration: Record<string, unknown> | undefined,
  attempts: unknown[] | undefined
): unknown[] {
  if (iteration?.outcome !== 'paused' || !Array.isArray(attempts)) return []
  const signature = [...attempts]
    .reverse()
    .map(
      (attempt) =>
        (attempt as { signature?: { hash?: unknown; short?: unknown } } | null)?.signature
    )
    .find((found) => typeof found?.hash === 'string' && found.hash !== '')
  if (!signature || typeof iteration.finishedAt !== 'string') return []
  const short = typeof signature.short === 'string' ? signature.short : ''
  return [
    {
      hash: hashKey(signature.hash as string),
      short: cut(short, LEDGER_LIMITS.maxShortChars),
      reason: cut(
        `paused by an earlier version of autoloop-ci-gate on: ${short}`,
        LEDGER_LIMITS.maxNoteChars
      ),
      pausedAt: iteration.finishedAt,
      iterationId: typeof iteration.id === 'string' ? iteration.id : '',
      resetAt: null,
      resetBy: null
    }
  ]
}

/**
 * A ledger written before pause writes stored their kind: the kind derived once from each
 * pause reason this action wrote (the next write stores it).
 */
function withPauseKinds(ledger: Ledger): Ledger {
  if (!ledger.writes.some((w) => needsKind(w))) return ledger
  return {
    ...ledger,
    writes: ledger.writes.map((write) => {
      const kind = needsKind(write) ? pauseKindOf(write.machineState.pauseReason ?? null) : null
      return kind ? { ...write, pauseKind: kind } : write
    })
  }
}

function needsKind(write: StateWrite): boolean {
  return (
    write.pauseKind === undefined &&
    write.machineState.paused === true &&
    typeof write.machineState.pauseReason === 'string'
  )
}
