/**
 * The Machine State table of a program's state file (docs/state.md: "The state file"): its rows, how each value
 * cell is read into a typed view (validated with zod) and how a patch value is written
 * back as a cell the autoloop scheduler reads exactly as meant.
 */
import { z } from 'zod'

/** How many Recent Statuses are kept (oldest first, newest last). */
const RECENT_STATUSES_KEPT = 10

/** What an empty value is written as; the scheduler reads `—`, `-` and empty as null. */
export const EMPTY_CELL = '—'

/** The longest free-text value written into a cell; longer text is cut with `…`. */
const MAX_CELL_CHARS = 500

export const PROGRAM_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/

const ISO_UTC_PATTERN =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}| ?UTC)?)?$/
const NUMBER_PATTERN = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/
const COUNT_PATTERN = /^\d{1,15}$/
const REF_PATTERN = /^#?(\d{1,15})$/

const lastRunCell = z
  .string()
  .regex(ISO_UTC_PATTERN, 'must be an ISO 8601 UTC time such as 2026-01-15T12:00:00Z')
  .refine((value) => !Number.isNaN(Date.parse(value.replace(/ ?UTC$/, 'Z').replace(' ', 'T'))), {
    message: 'is not a real date and time'
  })
const countCell = z
  .string()
  .regex(COUNT_PATTERN, 'must be a whole number such as 0 or 12')
  .transform(Number)
const metricCell = z
  .string()
  .regex(NUMBER_PATTERN, 'must be a number such as 0.87 (no units, no text)')
  .transform(Number)
const directionCell = z
  .string()
  .transform((value) => value.toLowerCase())
  .pipe(z.enum(['higher', 'lower'], { message: 'must be higher or lower' }))
const refCell = z
  .string()
  .regex(REF_PATTERN, 'must be a number written as #12')
  .transform((value) => Number(value.replace('#', '')))
const booleanCell = z
  .string()
  .transform((value) => value.toLowerCase())
  .pipe(z.enum(['true', 'false'], { message: 'must be true or false' }))
  .transform((value) => value === 'true')
const textCell = z.string()
const branchCell = z.string().transform((value) => value.replace(/^`([^`]*)`$/, '$1'))
const statusesCell = z.string().transform((value) =>
  value
    .split(',')
    .map((status) => status.trim().toLowerCase())
    .filter((status) => status !== '')
)

/**
 * The Machine State rows in template order. `key` is the scheduler's name for the row
 * (label lower-cased, spaces to `_`); `cell` reads a non-empty value cell.
 */
export const MACHINE_STATE_FIELDS = {
  lastRun: { label: 'Last Run', cell: lastRunCell },
  iterationCount: { label: 'Iteration Count', cell: countCell },
  bestMetric: { label: 'Best Metric', cell: metricCell },
  targetMetric: { label: 'Target Metric', cell: metricCell },
  metricDirection: { label: 'Metric Direction', cell: directionCell },
  branch: { label: 'Branch', cell: branchCell },
  pr: { label: 'PR', cell: refCell },
  issue: { label: 'Issue', cell: refCell },
  paused: { label: 'Paused', cell: booleanCell },
  pauseReason: { label: 'Pause Reason', cell: textCell },
  completed: { label: 'Completed', cell: booleanCell },
  completedReason: { label: 'Completed Reason', cell: textCell },
  consecutiveErrors: { label: 'Consecutive Errors', cell: countCell },
  recentStatuses: { label: 'Recent Statuses', cell: statusesCell }
} as const

export type MachineStateField = keyof typeof MACHINE_STATE_FIELDS

export const MACHINE_STATE_FIELD_NAMES = Object.keys(MACHINE_STATE_FIELDS) as MachineStateField[]

/** The scheduler's key for a row label: lower-cased, spaces turned to `_`. */
export function schedulerKey(label: string): string {
  return label.toLowerCase().split(' ').join('_')
}

const FIELD_BY_KEY = new Map<string, MachineStateField>(
  MACHINE_STATE_FIELD_NAMES.map((name) => [schedulerKey(MACHINE_STATE_FIELDS[name].label), name])
)

/** The known field a scheduler key names, if any. */
export function fieldOfKey(key: string): MachineStateField | undefined {
  return FIELD_BY_KEY.get(key)
}

/** The typed view of the Machine State table. Missing rows and empty cells read as null. */
export const MachineStateSchema = z.object({
  lastRun: z.string().nullable(),
  iterationCount: z.number().int().nonnegative().nullable(),
  bestMetric: z.number().nullable(),
  targetMetric: z.number().nullable(),
  metricDirection: z.enum(['higher', 'lower']).nullable(),
  branch: z.string().nullable(),
  pr: z.number().int().nonnegative().nullable(),
  issue: z.number().int().nonnegative().nullable(),
  /** As the scheduler reads it: only `true` (any case) pauses; missing or empty is false. */
  paused: z.boolean(),
  pauseReason: z.string().nullable(),
  completed: z.boolean(),
  completedReason: z.string().nullable(),
  consecutiveErrors: z.number().int().nonnegative().nullable(),
  /** Oldest first, newest last, lower-cased. */
  recentStatuses: z.array(z.string()),
  /** Rows this action does not know, by scheduler key, kept untouched in the file. */
  extra: z.record(z.string(), z.string().nullable())
})

export type MachineState = z.infer<typeof MachineStateSchema>

/**
 * The rows a command changes. A field that is absent (or `undefined`) is left as it is;
 * `null` writes `—`. Rows missing from the table are added at its end. The ledger keeps the
 * patches it wrote (JSON), so the schema is zod's.
 */
/** Epoch milliseconds a Date can hold. */
const epochMs = z
  .number()
  .refine((ms) => Number.isFinite(new Date(ms).getTime()), { message: 'is not a time' })
/** A number, or its decimal text (what `renderCell` writes; anything else is refused here). */
const metricValue = z.union([
  z.number(),
  z.string().refine((text) => NUMBER_PATTERN.test(text.trim()), {
    message: 'must be a number such as 0.87 (no units, no text)'
  })
])

export const MachineStatePatchSchema = z
  .object({
    /** An ISO time or epoch milliseconds; written as `2026-01-15T12:00:00Z`. */
    lastRun: z
      .union([z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time' }), epochMs])
      .nullable(),
    iterationCount: z.number().int().nonnegative().nullable(),
    /** A number, or its decimal text when the exact digits matter (`0.8730`). */
    bestMetric: metricValue.nullable(),
    targetMetric: metricValue.nullable(),
    metricDirection: z.enum(['higher', 'lower']).nullable(),
    branch: z.string().nullable(),
    pr: z.number().int().nonnegative().nullable(),
    issue: z.number().int().nonnegative().nullable(),
    paused: z.boolean().nullable(),
    pauseReason: z.string().nullable(),
    completed: z.boolean().nullable(),
    completedReason: z.string().nullable(),
    consecutiveErrors: z.number().int().nonnegative().nullable(),
    /** The whole list, oldest first; only the last 10 are written. */
    recentStatuses: z.array(z.string()).nullable()
  })
  .partial()
  .strict()

export type MachineStatePatch = z.infer<typeof MachineStatePatchSchema>

/** Turns epoch milliseconds into the ISO UTC form used in the table (no milliseconds). */
function isoUtc(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

// Line breaks as Python's splitlines() sees them, and other control characters.
// eslint-disable-next-line no-control-regex
const LINE_BREAKS_AND_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/g

/**
 * Makes free text safe for one table cell: no `|` (replaced by `¦`), no line breaks or
 * control characters (replaced by spaces), whitespace collapsed, cut to `MAX_CELL_CHARS`.
 */
export function sanitizeCellText(text: string): string {
  const oneLine = text
    .replace(/\|/g, '¦')
    .replace(LINE_BREAKS_AND_CONTROLS, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return oneLine.length > MAX_CELL_CHARS ? `${oneLine.slice(0, MAX_CELL_CHARS - 1)}…` : oneLine
}

/** Appends a status, keeping the last `RECENT_STATUSES_KEPT` (newest last). */
export function appendRecentStatus(statuses: readonly string[], status: string): string[] {
  return [...statuses, status].slice(-RECENT_STATUSES_KEPT)
}

function orEmpty(text: string): string {
  return text === '' ? EMPTY_CELL : text
}

function renderCount(field: MachineStateField, value: number): string {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(
      `${MACHINE_STATE_FIELDS[field].label} must be a whole number ≥ 0, got ${value}`
    )
  }
  return String(value)
}

function renderMetric(field: MachineStateField, value: number | string): string {
  const text = typeof value === 'number' ? String(value) : value.trim()
  if (!NUMBER_PATTERN.test(text)) {
    throw new RangeError(
      `${MACHINE_STATE_FIELDS[field].label} must be a finite number, got ${value}`
    )
  }
  return text
}

function renderStatuses(statuses: readonly string[]): string {
  const words = statuses
    .map((status) =>
      sanitizeCellText(status)
        .toLowerCase()
        .replace(/[,\s]+/g, '-')
    )
    .filter((status) => status !== '')
    .slice(-RECENT_STATUSES_KEPT)
  return orEmpty(words.join(', '))
}

/**
 * The value cell text for a patch value: never contains `|` or a line break, `—` when empty.
 * Throws a RangeError for a value the row cannot hold (a caller's bug, not a file problem).
 */
export function renderCell<F extends MachineStateField>(
  field: F,
  value: NonNullable<MachineStatePatch[F]> | null
): string {
  if (value === null) return EMPTY_CELL
  const v = value as NonNullable<MachineStatePatch[MachineStateField]>
  switch (field) {
    case 'lastRun': {
      const ms = typeof v === 'number' ? v : Date.parse(String(v))
      if (!Number.isFinite(ms)) throw new RangeError(`Last Run must be a time, got ${String(v)}`)
      return isoUtc(ms)
    }
    case 'iterationCount':
    case 'consecutiveErrors':
    case 'pr':
    case 'issue': {
      const text = renderCount(field, v as number)
      return field === 'pr' || field === 'issue' ? `#${text}` : text
    }
    case 'bestMetric':
    case 'targetMetric':
      return renderMetric(field, v as number | string)
    case 'metricDirection':
      return directionCell.parse(String(v))
    case 'paused':
    case 'completed':
      return v ? 'true' : 'false'
    case 'branch': {
      const branch = sanitizeCellText(String(v)).replace(/`/g, '')
      return branch === '' ? EMPTY_CELL : `\`${branch}\``
    }
    case 'recentStatuses':
      return renderStatuses(v as readonly string[])
    default:
      return orEmpty(sanitizeCellText(String(v)))
  }
}

/** Whether `name` is a valid program name (one path segment: letters, digits, `.`, `_`, `-`). */
export function isProgramName(name: string): boolean {
  return PROGRAM_NAME_PATTERN.test(name)
}

/** The programs whose state files are among `fileNames` (`<program>.md` at the top), sorted. */
export function programsOf(fileNames: readonly string[]): string[] {
  return fileNames
    .filter((name) => name.endsWith('.md'))
    .map((name) => name.slice(0, -3))
    .filter(isProgramName)
    .sort()
}

/** The state file of a program. */
export function stateFilePath(program: string): string {
  assertProgramName(program)
  return `${program}.md`
}

/** Throws a RangeError naming the pattern when `program` is not a program name. */
export function assertProgramName(program: string): void {
  if (!isProgramName(program))
    throw new RangeError(
      `invalid program name ${JSON.stringify(program)}: it must match ${PROGRAM_NAME_PATTERN}`
    )
}
