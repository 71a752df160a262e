/**
 * The failure summary (README: "Failure signatures", its last paragraph): the JSON the fixer reads (written to the file named by the
 * `failure-summary-path` output and passed to a fix command as `AUTOLOOP_FAILURE_JSON`) and its
 * markdown rendering for comments, the job summary and the `failure-summary` output.
 *
 * Pure. Everything that came from CI (check names, URLs, keys, error lines, notes) is untrusted:
 * the markdown shows it only through `core/text/untrusted.ts`, and `failureSummaryJson` redacts it.
 */
import { z } from 'zod'
import { missingRequiredChecks } from '../core/signature/signature.js'
import { FAILURE_SOURCES, type FailureSource } from '../core/checks/findings.js'
import { renderFailureDetails, type FailureDetail } from './failure-details.js'
import {
  fence,
  inlineCode,
  normaliseText,
  oneLine,
  redactSecrets,
  removeMarkers,
  type UntrustedTextOptions
} from '../core/text/untrusted.js'

/** Version 2 added `classification`: whose failure it is. */
export const FAILURE_SUMMARY_VERSION = 2 as const

const shaSchema = z
  .string()
  .regex(
    /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/,
    'expected a full commit SHA (40 or 64 lowercase hex digits)'
  )
const attemptSchema = z.number().int().nonnegative()

const SummarySignatureSchema = z.object({
  /** The failure keys, sorted and de-duplicated. */
  keys: z.array(z.string()),
  /** The full signature, as in the ledger and the `signature` output. */
  full: z.string(),
  /** The one-line form (at most 160 characters), as in `pause-reason`. */
  short: z.string()
})

const FailureSourceSchema = z.enum(FAILURE_SOURCES)

const FailingCheckSchema = z.object({
  name: z.string(),
  /** Check-run conclusion or commit-status state, e.g. `failure`, `timed_out`, `error`. */
  conclusion: z.string(),
  /** Link to the check; empty when there is none. Shown as a link only when it is http(s). */
  url: z.string(),
  /** Where the keys and lines came from (annotations, output, log); `none` when nothing was found. */
  source: FailureSourceSchema,
  keys: z.array(z.string()),
  firstErrorLines: z.array(z.string()),
  /** Per failure, what its tool printed about it, kept exactly (docs/failure-details.md: "Failure details"). */
  details: z.array(z.object({ key: z.string(), lines: z.array(z.string()) })).optional(),
  /** The job log was longer than the reader's cap; keys may be incomplete. */
  logTruncated: z.boolean().optional(),
  note: z.string().optional()
})

const KeyChangesSchema = z.object({
  fixed: z.array(z.string()),
  new: z.array(z.string()),
  persisting: z.array(z.string())
})

const PreviousAttemptSchema = z.object({
  sha: shaSchema,
  attempt: attemptSchema,
  /** The previous attempt's full signature, as stored in the ledger. */
  signature: z.string()
})

const LinkedCheckSchema = z.object({ check: z.string(), url: z.string() })

/** Whose failure it is (docs/decisions.md: "Whose failure it is"). */
export const ClassificationSchema = z.object({
  /** Keys that also fail on the base branch head: left out of `signature`, not to be fixed here. */
  preExisting: z.array(z.string()),
  baseBranch: z.string().nullable(),
  baseSha: z.string().nullable(),
  /** Why nothing could be compared with the base head, when that is so. */
  baseNote: z.string().nullable(),
  /** The base head's checks that fail with the pre-existing keys (the evidence). */
  baseChecks: z.array(LinkedCheckSchema).optional(),
  /** Checks that failed, were re-run, and passed. */
  flaky: z.array(LinkedCheckSchema),
  /** Checks that failed outside the project's build and tests. */
  infrastructure: z.array(LinkedCheckSchema.extend({ cause: z.string() })),
  reruns: z.array(
    z.object({
      checks: z.array(z.string()),
      why: z.enum(['infrastructure', 'flaky-test']),
      outcome: z.enum(['passed', 'failed', 'pending', 'refused']),
      url: z.string()
    })
  ),
  /** No fix can help: the cause and what a maintainer must do. */
  blocked: z.object({ cause: z.string(), advice: z.string() }).nullable()
})

export const FailureSummarySchema = z.object({
  version: z.literal(FAILURE_SUMMARY_VERSION),
  program: z.string().optional(),
  sha: shaSchema,
  /** 0 for the first gate of an iteration, k for the k-th fix. */
  attempt: attemptSchema,
  generatedAt: z.iso.datetime(),
  signature: SummarySignatureSchema,
  checks: z.array(FailingCheckSchema),
  /** Keys fixed, new and persisting since the previous attempt of this iteration. */
  changes: KeyChangesSchema.optional(),
  previous: PreviousAttemptSchema.optional(),
  classification: ClassificationSchema.optional()
})

export type FailureSummary = z.infer<typeof FailureSummarySchema>
export type FailingCheck = z.infer<typeof FailingCheckSchema>
type KeyChanges = z.infer<typeof KeyChangesSchema>
export type SummaryClassification = z.infer<typeof ClassificationSchema>

/** Thrown when a failure summary does not match the schema; the message lists every problem. */
export class FailureSummaryError extends Error {
  override name = 'FailureSummaryError'
}

/**
 * Reads a failure summary (e.g. `JSON.parse` of the `AUTOLOOP_FAILURE_JSON` file). Throws
 * `FailureSummaryError` naming the version or each invalid field.
 */
export function parseFailureSummary(value: unknown): FailureSummary {
  const version =
    typeof value === 'object' && value !== null
      ? (value as { version?: unknown }).version
      : undefined
  if (version !== FAILURE_SUMMARY_VERSION) {
    throw new FailureSummaryError(
      `Unsupported failure summary version ${JSON.stringify(version)}: this build reads version ` +
        `${FAILURE_SUMMARY_VERSION}. Regenerate the summary with the same version of autoloop-ci-gate.`
    )
  }
  const result = FailureSummarySchema.safeParse(value)
  if (!result.success) {
    throw new FailureSummaryError(`Invalid failure summary:\n${z.prettifyError(result.error)}`)
  }
  return result.data
}

/**
 * A copy with secrets and masked values redacted from every string that came from CI,
 * invisible and control characters dropped, and HTML comments and marker text removed (so
 * nothing pasted from it can forge the status sentinel); SHAs, numbers and the timestamp are
 * kept.
 */
function redactFailureSummary(
  summary: FailureSummary,
  maskedValues: readonly string[] = []
): FailureSummary {
  const masked = maskedValues.map(normaliseText)
  const clean = (text: string): string => removeMarkers(redactSecrets(normaliseText(text), masked))
  const cleanAll = (texts: readonly string[]): string[] => texts.map(clean)
  return {
    ...summary,
    ...(summary.program === undefined ? {} : { program: clean(summary.program) }),
    signature: {
      keys: cleanAll(summary.signature.keys),
      full: clean(summary.signature.full),
      short: clean(summary.signature.short)
    },
    checks: summary.checks.map((check) => ({
      ...check,
      name: clean(check.name),
      conclusion: clean(check.conclusion),
      url: clean(check.url),
      keys: cleanAll(check.keys),
      firstErrorLines: cleanAll(check.firstErrorLines),
      ...(check.details === undefined
        ? {}
        : {
            details: check.details.map((detail) => ({
              key: clean(detail.key),
              lines: cleanAll(detail.lines)
            }))
          }),
      ...(check.note === undefined ? {} : { note: clean(check.note) })
    })),
    ...(summary.changes === undefined
      ? {}
      : {
          changes: {
            fixed: cleanAll(summary.changes.fixed),
            new: cleanAll(summary.changes.new),
            persisting: cleanAll(summary.changes.persisting)
          }
        }),
    ...(summary.previous === undefined
      ? {}
      : { previous: { ...summary.previous, signature: clean(summary.previous.signature) } }),
    ...(summary.classification === undefined
      ? {}
      : { classification: cleanClassification(summary.classification, clean) })
  }
}

function cleanClassification(
  c: SummaryClassification,
  clean: (text: string) => string
): SummaryClassification {
  const linked = (item: { check: string; url: string }) => ({
    check: clean(item.check),
    url: clean(item.url)
  })
  return {
    preExisting: c.preExisting.map(clean),
    baseBranch: c.baseBranch === null ? null : clean(c.baseBranch),
    baseSha: c.baseSha,
    baseNote: c.baseNote === null ? null : clean(c.baseNote),
    ...(c.baseChecks ? { baseChecks: c.baseChecks.map(linked) } : {}),
    flaky: c.flaky.map(linked),
    infrastructure: c.infrastructure.map((item) => ({ ...linked(item), cause: clean(item.cause) })),
    reruns: c.reruns.map((r) => ({ ...r, checks: r.checks.map(clean), url: clean(r.url) })),
    blocked: c.blocked
  }
}

/**
 * The file content for `failure-summary-path`: validated against the schema (throws
 * `FailureSummaryError`), redacted, as pretty JSON with a final newline.
 */
export function failureSummaryJson(
  summary: FailureSummary,
  options: UntrustedTextOptions = {}
): string {
  const valid = parseFailureSummary(summary)
  const redacted = redactFailureSummary(valid, options.maskedValues ?? [])
  return `${JSON.stringify(redacted, null, 2)}\n`
}

/**
 * What changed between the previous attempt's keys and the current ones, each list sorted by
 * UTF-16 code units and de-duplicated. With no previous attempt every current key is new.
 */
export function diffKeys(
  previous: readonly string[] | null,
  current: readonly string[]
): KeyChanges {
  const before = new Set(previous ?? [])
  const now = new Set(current)
  return {
    fixed: sorted([...before].filter((key) => !now.has(key))),
    new: sorted([...now].filter((key) => !before.has(key))),
    persisting: sorted([...now].filter((key) => before.has(key)))
  }
}

function sorted(keys: string[]): string[] {
  return keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

// ---------------------------------------------------------------------------------------------
// Markdown

const DEFAULT_SUMMARY_MAX_CHARS = 20_000
/** Below this the header alone might not fit. */
const MIN_SUMMARY_MAX_CHARS = 1_000
const DEFAULT_LINES_PER_CHECK = 20
const DEFAULT_CHARS_PER_CHECK = 2_000

export interface RenderFailureSummaryOptions extends UntrustedTextOptions {
  /** The whole rendering stays within this many characters (default 20 000). */
  maxChars?: number | undefined
  /** First error lines shown per check (default 20). */
  maxLinesPerCheck?: number | undefined
  /** Characters of first error lines shown per check (default 2 000). */
  maxCharsPerCheck?: number | undefined
}

const KEY_MAX_CHARS = 200
const KEY_LIST_MAX_CHARS = 1_500
const NAME_MAX_CHARS = 150
const URL_MAX_CHARS = 2_000
/** Room kept for the note that says the summary was cut. */
const CUT_NOTE_RESERVE = 300
const BLOCK_SEPARATOR = '\n\n'

const SOURCE_LABEL: Record<FailureSource, string> = {
  annotations: 'check-run annotations',
  output: 'check-run output',
  log: 'job log',
  status: 'commit status',
  none: 'no details found'
}

/**
 * The summary as markdown: the signature; what was fixed, what is new and what persists since
 * the previous attempt; per failing check its name (linked when the URL is http(s)),
 * conclusion, keys and first error lines in a fence (or, when the check has them, the failure
 * details after every check, under the same budget). At most `maxChars` characters: when it
 * does not fit, later checks are shown without details, then left out, and a note says so.
 */
export function renderFailureSummaryMarkdown(
  summary: FailureSummary,
  options: RenderFailureSummaryOptions = {}
): string {
  const maxChars = options.maxChars ?? DEFAULT_SUMMARY_MAX_CHARS
  if (!Number.isInteger(maxChars) || maxChars < MIN_SUMMARY_MAX_CHARS) {
    throw new RangeError(
      `maxChars must be a whole number of at least ${MIN_SUMMARY_MAX_CHARS}, got ${maxChars}`
    )
  }
  const text: UntrustedTextOptions = { maskedValues: options.maskedValues }
  const fenceOptions = {
    ...text,
    maxLines: options.maxLinesPerCheck ?? DEFAULT_LINES_PER_CHECK,
    maxChars: options.maxCharsPerCheck ?? DEFAULT_CHARS_PER_CHECK
  }

  const header = renderHeader(summary, text)
  const whose = renderClassification(summary, text)
  const changes = renderChanges(summary, text)
  const checks = summary.checks.map((check, index) => ({
    full: renderCheck(check, index, fenceOptions),
    compact: renderCheckHeading(check, index, text)
  }))

  const everything = [
    header,
    ...(whose ? [whose.full] : []),
    ...(changes ? [changes.full] : []),
    ...checks.map((c) => c.full)
  ]
  if (summary.checks.length === 0) everything.push(noChecksLine(summary))
  const whole = everything.join(BLOCK_SEPARATOR)
  if (whole.length <= maxChars) {
    // The failure details, under what is left of the one budget (bytes bound characters too).
    const details = renderFailureDetails(
      detailsOf(summary),
      maxChars - whole.length - BLOCK_SEPARATOR.length,
      text,
      keyCount(summary),
      keysPerCheck(summary)
    )
    return details.length === 0 ? whole : `${whole}${BLOCK_SEPARATOR}${details.join('\n')}`
  }

  // Too long: fill greedily, keeping room for the note.
  const limit = maxChars - CUT_NOTE_RESERVE
  const blocks = [header]
  let used = header.length
  const fits = (block: string): boolean => used + BLOCK_SEPARATOR.length + block.length <= limit
  const add = (block: string): void => {
    blocks.push(block)
    used += BLOCK_SEPARATOR.length + block.length
  }
  if (whose) {
    if (fits(whose.full)) add(whose.full)
    else if (fits(whose.compact)) add(whose.compact)
  }
  if (changes) {
    if (fits(changes.full)) add(changes.full)
    else if (fits(changes.compact)) add(changes.compact)
  }
  let withoutDetails = 0
  let left = 0
  let compact = false
  for (const [index, check] of checks.entries()) {
    if (!compact && fits(check.full)) {
      add(check.full)
      continue
    }
    compact = true
    if (fits(check.compact)) {
      add(check.compact)
      withoutDetails += 1
    } else {
      left = checks.length - index
      break
    }
  }
  // The failure details in what is left (the first failures first), then the note.
  const details = renderFailureDetails(
    detailsOf(summary),
    limit - used - BLOCK_SEPARATOR.length,
    text,
    keyCount(summary),
    keysPerCheck(summary)
  )
  if (details.length > 0) add(details.join('\n'))
  blocks.push(cutNote(maxChars, withoutDetails, left))
  return blocks.join(BLOCK_SEPARATOR)
}

/** How many failures (keys) each check had. */
function keysPerCheck(summary: FailureSummary): Map<string, number> {
  return new Map(summary.checks.map((check) => [check.name, check.keys.length]))
}

function keyCount(summary: FailureSummary): number {
  return summary.checks.reduce((n, check) => n + check.keys.length, 0)
}

/** Every check's failure details, in check order. */
function detailsOf(summary: FailureSummary): FailureDetail[] {
  return summary.checks.flatMap((check) =>
    (check.details ?? []).map((detail) => ({ check: check.name, ...detail }))
  )
}

/**
 * When no check failed: a required check that never reported is named (docs/decisions.md:
 * "How checks become a verdict"), else nothing was found.
 */
function noChecksLine(summary: FailureSummary): string {
  const missing = missingRequiredChecks(summary.signature.keys)
  if (missing.length === 0) return '_No failing check details were found._'
  return missing
    .map((name) => `- required check never reported: ${inlineCode(name, 150)}`)
    .join('\n')
}

function renderHeader(summary: FailureSummary, text: UntrustedTextOptions): string {
  const count = summary.checks.length
  const missing = missingRequiredChecks(summary.signature.keys)
  const what = [
    ...(count > 0 || missing.length === 0
      ? [`${count} failing check${count === 1 ? '' : 's'}`]
      : []),
    ...missing.map((name) => `required check never reported: ${oneLine(name, 100, text)}`)
  ].join(', ')
  const lines = [
    `### ❌ CI failed: ${what} on ${inlineCode(summary.sha, 64, text)} (attempt ${summary.attempt})`,
    ''
  ]
  const facts = [`generated ${inlineCode(summary.generatedAt, 40, text)}`]
  if (summary.program !== undefined)
    facts.unshift(`program ${inlineCode(summary.program, 100, text)}`)
  lines.push(capitalise(facts.join(' · ')), '')
  const keyCount = summary.signature.keys.length
  lines.push(
    `**Signature** (${keyCount} key${keyCount === 1 ? '' : 's'}): ${inlineCode(summary.signature.short, KEY_MAX_CHARS, text)}`
  )
  return lines.join('\n')
}

function renderClassification(
  summary: FailureSummary,
  text: UntrustedTextOptions
): { full: string; compact: string } | null {
  const c = summary.classification
  if (!c) return null
  const lines: string[] = []
  if (c.blocked) lines.push(`- 🚧 **Blocked**, no fix can help: ${c.blocked.advice}`)
  const linked = (item: { check: string; url: string }) => {
    const name = oneLine(item.check, NAME_MAX_CHARS, text)
    const target = linkTarget(item.url, text)
    return target === null ? name : `[${name}](${target})`
  }
  if (c.preExisting.length > 0) {
    const where = [
      c.baseBranch ? inlineCode(c.baseBranch, 100, text) : 'the base branch',
      c.baseSha ? `at ${inlineCode(c.baseSha.slice(0, 12), 20, text)}` : '',
      c.baseChecks && c.baseChecks.length > 0 ? `in ${c.baseChecks.map(linked).join(', ')}` : ''
    ]
      .filter(Boolean)
      .join(' ')
    lines.push(
      `- 🧱 **Pre-existing** (fail on ${where} too; not in the signature, not this iteration's to fix): ${renderKeyList(c.preExisting, text)}`
    )
  }
  if (c.baseNote) lines.push(`- ℹ️ Base branch: ${oneLine(c.baseNote, 300, text)}`)
  if (c.flaky.length > 0)
    lines.push(`- 🎲 **Flaky** (failed, then passed on re-run): ${c.flaky.map(linked).join(', ')}`)
  if (c.infrastructure.length > 0)
    lines.push(
      `- 🏗️ **Infrastructure** (outside the project's build and tests): ${c.infrastructure.map((item) => `${linked(item)} (${oneLine(item.cause, 200, text)})`).join(', ')}`
    )
  for (const rerun of c.reruns)
    lines.push(
      `- 🔁 Re-run of ${rerun.checks.map((check) => oneLine(check, 80, text)).join(', ')} (${rerun.why}): ${rerun.outcome}${linkTarget(rerun.url, text) ? ` ([run](${linkTarget(rerun.url, text)}))` : ''}`
    )
  if (lines.length === 0) return null
  // When the lists do not fit (a matrix whose every job lost its runner): how many of each.
  const counts = [
    ...(c.blocked ? ['blocked: no fix can help'] : []),
    ...(c.preExisting.length > 0 ? [`${c.preExisting.length} pre-existing`] : []),
    ...(c.flaky.length > 0 ? [`${c.flaky.length} flaky`] : []),
    ...(c.infrastructure.length > 0 ? [`${c.infrastructure.length} infrastructure`] : []),
    ...(c.reruns.length > 0 ? [`${c.reruns.length} re-run${c.reruns.length === 1 ? '' : 's'}`] : [])
  ]
  return {
    full: ['**Whose failure it is**', '', ...lines].join('\n'),
    compact: `**Whose failure it is:** ${counts.join(', ') || 'see the base branch note'} (details in the JSON failure summary).`
  }
}

function renderChanges(
  summary: FailureSummary,
  text: UntrustedTextOptions
): { full: string; compact: string } | null {
  const { changes, previous } = summary
  if (changes === undefined && previous === undefined) return null
  const since =
    previous === undefined
      ? '**Since the previous attempt**'
      : `**Since attempt ${previous.attempt}** (${inlineCode(previous.sha, 64, text)}, signature ${inlineCode(previous.signature, KEY_MAX_CHARS, text)})`
  if (changes === undefined) return { full: since, compact: since }
  const counts = `${changes.fixed.length} fixed, ${changes.new.length} new, ${changes.persisting.length} persisting`
  const full = [
    `${since}: ${counts}`,
    '',
    `- ✅ Fixed: ${renderKeyList(changes.fixed, text)}`,
    `- 🆕 New: ${renderKeyList(changes.new, text)}`,
    `- 🔁 Persisting: ${renderKeyList(changes.persisting, text)}`
  ].join('\n')
  return { full, compact: `${since}: ${counts}` }
}

function renderCheckHeading(
  check: FailingCheck,
  index: number,
  text: UntrustedTextOptions
): string {
  const name = oneLine(check.name, NAME_MAX_CHARS, text) || '(unnamed check)'
  const target = linkTarget(check.url, text)
  const title = target === null ? name : `[${name}](${target})`
  return `#### ${index + 1}. ${title} — ${inlineCode(check.conclusion, 40, text)}`
}

function renderCheck(
  check: FailingCheck,
  index: number,
  fenceOptions: UntrustedTextOptions & { maxLines: number; maxChars: number }
): string {
  const text: UntrustedTextOptions = { maskedValues: fenceOptions.maskedValues }
  const source =
    SOURCE_LABEL[check.source] +
    (check.logTruncated ? ' (log cut short: keys may be incomplete)' : '')
  const keyCount = check.keys.length
  const parts = [
    renderCheckHeading(check, index, text),
    '',
    `From: ${source} · ${keyCount} key${keyCount === 1 ? '' : 's'}: ${renderKeyList(check.keys, text)}`
  ]
  if (check.url !== '' && linkTarget(check.url, text) === null) {
    parts.push('', '_Link not shown: not a plain http(s) URL._')
  }
  if (check.note !== undefined && check.note.trim() !== '') {
    parts.push('', `_Note:_ ${oneLine(check.note, 500, text)}`)
  }
  // A check with failure details shows them below, under the summary's one budget.
  if (check.firstErrorLines.length > 0 && (check.details ?? []).length === 0) {
    parts.push('', 'First error lines:', '', fence(check.firstErrorLines.join('\n'), fenceOptions))
  }
  return parts.join('\n')
}

/** Inline code spans for each key, comma-separated, at most about 1 500 characters, then `+N more`. */
function renderKeyList(keys: readonly string[], text: UntrustedTextOptions): string {
  if (keys.length === 0) return '_none_'
  let list = ''
  let shown = 0
  for (const key of keys) {
    const item = (shown === 0 ? '' : ', ') + inlineCode(key, KEY_MAX_CHARS, text)
    if (shown > 0 && list.length + item.length > KEY_LIST_MAX_CHARS) break
    list += item
    shown += 1
  }
  return shown < keys.length ? `${list} +${keys.length - shown} more` : list
}

/**
 * A markdown link destination for an untrusted URL, or null when it must not be linked: not
 * http(s), not parseable, too long, or holding credentials or anything that looks like a secret.
 */
export function linkTarget(url: string, options: UntrustedTextOptions = {}): string | null {
  if (url.length === 0 || url.length > URL_MAX_CHARS || url !== url.trim()) return null
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return null
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null
  if (parsed.username !== '' || parsed.password !== '') return null
  const href = parsed.href
  if (redactSecrets(href, options.maskedValues ?? []) !== href) return null
  // `href` has no spaces, quotes or angle brackets; parentheses would end the destination,
  // and a `|` would end a table cell (the URL parser drops line breaks, not pipes).
  return href.replaceAll('(', '%28').replaceAll(')', '%29').replaceAll('|', '%7C')
}

function cutNote(maxChars: number, withoutDetails: number, left: number): string {
  const parts: string[] = []
  if (withoutDetails > 0)
    parts.push(`${withoutDetails} check${withoutDetails === 1 ? '' : 's'} shown without details`)
  if (left > 0) parts.push(`${left} check${left === 1 ? '' : 's'} not shown`)
  const what = parts.length > 0 ? `: ${parts.join(', ')}` : ''
  return `_Summary cut to fit ${maxChars} characters${what}. The JSON failure summary (\`failure-summary-path\`) has every check._`
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
