/**
 * An independent re-implementation of how the autoloop scheduler reads a state file
 * (docs/state.md: "The state file"). It transliterates the scheduler's two regular expressions, with Python's
 * semantics kept where they differ from JavaScript's:
 *
 * - the section is `## ⚙️ Machine State` up to the first line break, then everything up to
 *   the next `\n## ` or the end of the text (`re.DOTALL`);
 * - every `\|\s*(.+?)\s*\|\s*(.+?)\s*\|` match in the section is a row: `.` does not match
 *   `\n`, while `\s` matches Python's whitespace set (which differs from JavaScript's `\s`);
 * - keys are `strip()`ped, lower-cased and spaces become `_`; header and separator keys are
 *   skipped; `—`, `-` and the empty string are null; a later row wins over an earlier one;
 * - a program is skipped when `completed` or `paused` lower-cased is `true`, or when the last
 *   five recent statuses are all `rejected`.
 *
 * Deliberately shares no code with `src/statefile/**` and `src/app/program-files.ts`: tests check the writer against it, and
 * integration/scheduler-rule-vs-autoloop.int.test.ts checks it against autoloop's own code.
 */

/** The characters Python's `str.isspace()` (and so `\s` and `strip()`) treats as whitespace. */
const PY_WS =
  '\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000'
const PY_WS_CLASS = `[${PY_WS}]`

const SECTION_RE = /## ⚙️ Machine State[\s\S]*?\n([\s\S]*?)(?=\n## |$(?![\s\S]))/
const ROW_RE = new RegExp(
  `\\|${PY_WS_CLASS}*([^\\n]+?)${PY_WS_CLASS}*\\|${PY_WS_CLASS}*([^\\n]+?)${PY_WS_CLASS}*\\|`,
  'g'
)
const PY_STRIP_RE = new RegExp(`^${PY_WS_CLASS}+|${PY_WS_CLASS}+$`, 'g')
const SKIPPED_KEYS = new Set(['field', '---', ':---', ':---:', '---:'])
const NULL_VALUES = new Set(['\u2014', '-', ''])

export interface SchedulerReading {
  /** Raw values by normalised key, before the scheduler's type coercions. */
  fields: Record<string, string | null>
  /** Whether the scheduler would skip the program. */
  skipped: boolean
  why?: string
}

function pyStrip(value: string): string {
  return value.replace(PY_STRIP_RE, '')
}

export function readLikeScheduler(text: string): SchedulerReading {
  const fields: Record<string, string | null> = {}
  const section = SECTION_RE.exec(text)
  if (section) {
    for (const row of section[0].matchAll(ROW_RE)) {
      const rawKey = pyStrip(row[1] ?? '')
      const rawValue = pyStrip(row[2] ?? '')
      if (SKIPPED_KEYS.has(rawKey.toLowerCase())) continue
      const key = rawKey.toLowerCase().split(' ').join('_')
      fields[key] = NULL_VALUES.has(rawValue) ? null : rawValue
    }
  }
  const isTrue = (key: string): boolean => (fields[key] ?? 'None').toLowerCase() === 'true'
  if (isTrue('completed')) return { fields, skipped: true, why: 'completed: target metric reached' }
  // Python's `state.get("pause_reason", "unknown")`: None prints as `None`
  const reason = 'pause_reason' in fields ? (fields['pause_reason'] ?? 'None') : 'unknown'
  if (isTrue('paused')) return { fields, skipped: true, why: `paused: ${reason}` }
  const recent = (fields['recent_statuses'] ?? '')
    .split(',')
    .map((status) => pyStrip(status).toLowerCase())
    .filter((status) => status !== '')
    .slice(-5)
  if (recent.length >= 5 && recent.every((status) => status === 'rejected')) {
    return { fields, skipped: true, why: 'plateau: 5 consecutive rejections' }
  }
  return { fields, skipped: false }
}
