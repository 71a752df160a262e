/**
 * Failure details as markdown (docs/failure-details.md: "Failure details"), under one byte budget, for the fix
 * brief, the failure summary and the pause comment alike: the first failures get their details
 * in full before later ones get any; a failure that does not fit whole is cut at a line
 * boundary; the failures left without details are counted (their keys are in the signature).
 * Everything in them is untrusted CI text: fenced and sanitised (`core/text/untrusted.ts`).
 *
 * Pure.
 */
import { fence, inlineCode, type UntrustedTextOptions } from '../core/text/untrusted.js'

/** One failure's details: its check, its key, the lines its tool printed (see signature/details.ts). */
export interface FailureDetail {
  check: string
  key: string
  lines: string[]
}

/** Fewer bytes than this left: no failure's details start (a heading and two lines need about this). */
const MIN_ENTRY_BYTES = 120
const KEY_CHARS = 200
const CHECK_CHARS = 80

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8')

/**
 * A fenced block whose lines cannot be read as a `## ` heading by the autoloop scheduler's
 * cut of the state file (see core/text/lines.ts): a line starting with `#` gets a blank before it.
 */
function fenced(lines: readonly string[], maxLines: number, text: UntrustedTextOptions): string {
  return fence(lines.join('\n'), { ...text, maxLines, maxChars: 1_000_000 })
    .split('\n')
    .map((line) => (line.startsWith('#') ? ` ${line}` : line))
    .join('\n')
}

function heading(
  detail: FailureDetail,
  text: UntrustedTextOptions,
  others: readonly string[] = []
): string {
  const head = `${inlineCode(detail.key, KEY_CHARS, text)} (${inlineCode(detail.check, CHECK_CHARS, text)})`
  if (others.length === 0) return head
  const named = others.slice(0, GROUP_KEYS_NAMED).map((key) => inlineCode(key, KEY_CHARS, text))
  const more = others.length - named.length
  return `${head} and ${others.length} more with the same error: ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`
}

/** Keys of a group of failures with the same error named in its heading; the rest are counted. */
const GROUP_KEYS_NAMED = 3
/** A diagnostic's location where its line begins: `src/a.ts(3,13)`, `src/a.py:12:5`, `a.go:7`. */
const LINE_LOCATION = /^(\s*)[^\s(:]{1,500}(?:\(\d+,\d+\)|:\d+(?::\d+)?)/

/** One block of the details: a failure, and the failures of the same check with the same error. */
interface DetailGroup {
  detail: FailureDetail
  /** The other failures' keys. */
  others: string[]
}

/**
 * Failures of one check whose details say the same thing but where, and whose keys differ in
 * their last part only (a compiler's error in several files: the same tool, code and symbol,
 * the same message and continuation lines, another path): one block, the first
 * failure's lines whole and each other's location lines (its diagnostic lines as printed), so
 * the count and the files are there once the message has been read. Details whose first line
 * has no location are never grouped.
 */
function sameErrorGroups(details: readonly FailureDetail[]): DetailGroup[] {
  const groups: (DetailGroup & { lines: string[] })[] = []
  const bySignature = new Map<string, DetailGroup & { lines: string[] }>()
  for (const detail of details) {
    const first = detail.lines[0] ?? ''
    const masked = first.replace(LINE_LOCATION, '$1')
    if (masked === first) {
      groups.push({ detail, others: [], lines: detail.lines })
      continue
    }
    const signature = `${detail.check}\u0000${detail.key.slice(0, detail.key.lastIndexOf(':'))}\u0000${[...new Set(detail.lines.map((line) => line.replace(LINE_LOCATION, '$1')))].join('\n')}`
    const group = bySignature.get(signature)
    if (group === undefined) {
      const created = { detail, others: [], lines: [...detail.lines] }
      bySignature.set(signature, created)
      groups.push(created)
      continue
    }
    group.others.push(detail.key)
    for (const line of detail.lines)
      if (line.replace(LINE_LOCATION, '$1') === masked) group.lines.push(line)
  }
  return groups.map(({ detail, others, lines }) =>
    others.length === 0 ? { detail, others } : { detail: { ...detail, lines }, others }
  )
}

/**
 * The details as markdown lines, at most `maxBytes` UTF-8 bytes joined with line breaks; none
 * when there are none or not even the first failure's heading and a line fit.
 */
export function renderFailureDetails(
  details: readonly FailureDetail[],
  maxBytes: number,
  text: UntrustedTextOptions = {},
  /** How many failures there are in all (some may have no details kept): the rest are counted. */
  failures = details.length,
  /**
   * How many failures each check had (its keys, details or not), said once per check before its
   * first failure's details. Left out: one check had them all (`failures`), or, for several
   * checks, each check's details are counted and said as such.
   */
  perCheck: ReadonlyMap<string, number> | undefined = undefined
): string[] {
  const shown = details.filter((detail) => detail.lines.length > 0)
  if (shown.length === 0) return []
  const checks = new Set(details.map((detail) => detail.check))
  const counts =
    perCheck ?? (checks.size === 1 ? new Map([[details[0]?.check ?? '', failures]]) : undefined)
  const countedDetails = counts === undefined ? countPerCheck(details) : undefined
  const title = '**Failure details** (as the tools printed them; untrusted CI output)'
  const groups = sameErrorGroups(shown)
  const blocks: string[] = []
  let used = utf8(title)
  let left = 0
  let covered = 0
  for (const [index, group] of groups.entries()) {
    const detail = group.detail
    const room = maxBytes - used - 2 - reserve(Math.max(shown.length, failures) - covered - 1)
    if (room < MIN_ENTRY_BYTES) {
      left = shown.length - covered
      break
    }
    const first = index === 0 || groups[index - 1]?.detail.check !== detail.check
    const head = first
      ? `${checkLine(detail.check, counts?.get(detail.check) ?? countedDetails?.get(detail.check), counts === undefined, text)}\n\n${heading(detail, text, group.others)}`
      : heading(detail, text, group.others)
    let block = `${head}\n\n${fenced(detail.lines, detail.lines.length, text)}`
    // Cut at a line boundary: fewer lines until it fits.
    for (let lines = detail.lines.length - 1; utf8(block) > room && lines >= 1; lines -= 1)
      block = `${head}\n\n${fenced(detail.lines, lines, text)}`
    if (utf8(block) > room) {
      left = shown.length - covered
      break
    }
    blocks.push(block)
    used += utf8(block) + 2
    covered += 1 + group.others.length
  }
  if (blocks.length === 0) return []
  left = Math.max(left, failures - covered)
  const lines = [title, '', ...blocks.join('\n\n').split('\n')]
  if (left > 0)
    lines.push(
      '',
      `_${left} more failure${left === 1 ? '' : 's'} without details here (no room); every key is in the signature._`
    )
  return lines
}

/** A check's failures, counted from its details. */
function countPerCheck(details: readonly FailureDetail[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const detail of details) counts.set(detail.check, (counts.get(detail.check) ?? 0) + 1)
  return counts
}

/**
 * `Check `test`: 21 failures` — said before the check's first failure; `… with details` when
 * only the check's details could be counted.
 */
function checkLine(
  check: string,
  count: number | undefined,
  detailsOnly: boolean,
  text: UntrustedTextOptions
): string {
  const n = count ?? 0
  return `Check ${inlineCode(check, CHECK_CHARS, text)}: ${n} failure${n === 1 ? '' : 's'}${detailsOnly ? ' with details' : ''}`
}

/** Room kept for the closing note when failures are left. */
function reserve(later: number): number {
  return later > 0 ? 110 : 0
}
