/**
 * What the action says on the program issue (docs/state.md: "The program issue"). Pure rendering;
 * `program-issue.ts` finds and edits the comments. Every comment carries a hidden marker so a
 * re-run edits it instead of posting it twice. CI text is untrusted: fenced, neutralised,
 * redacted; the action's own numbers and words are not, and are shown as they are.
 */
import { renderFailureDetails } from './failure-details.js'
import type { MachineState } from '../core/schema.js'
import type { Attempt, PausedSignature } from '../core/ledger.js'
import type { Blocked } from '../core/rules/classify.js'
import { pauseKindOf } from '../core/rules/pause-reasons.js'
import { linkTarget } from './failure-summary.js'
import { fence, inlineCode, oneLine, tableCell } from '../core/text/untrusted.js'

/** The autoloop status comment: the earliest comment holding it is the status comment. */
export const STATUS_SENTINEL = '<!-- AUTOLOOP:STATUS -->'

/** Hidden marker of a comment this action owns, e.g. `pause 2026-…/abc123`. */
export function commentMarker(kind: string, id: string): string {
  return `<!-- autoloop-ci-gate:${kind} ${id.replace(/-->/g, '')} -->`
}

export interface StatusView {
  program: string
  state: MachineState
  stateFile: { label: string; url: string | null }
  serverUrl: string
  repository: string
}

function statusLine(state: MachineState): string {
  if (state.completed) return '✅ Completed'
  if (state.paused)
    return pauseKindOf(state.pauseReason) === 'consecutive-errors' ? '⚠️ Error' : '⏸️ Paused'
  return '🟢 Active'
}

/** Text from the state file (which humans and the agent edit): one safe table cell. */
const value = (text: string | null | undefined, max = 200) =>
  text === null || text === undefined || text === '' ? '—' : tableCell(text, max)

/** A number the action read from Machine State: shown as it is, never escaped. */
const count = (number: number | null) => (number === null ? '—' : String(number))

export function renderStatusComment(view: StatusView): string {
  const { state } = view
  const rows: Array<[string, string]> = [
    ['Status', statusLine(state)],
    ['Best metric', count(state.bestMetric)],
    ['Iterations', count(state.iterationCount)],
    ['Last run', value(state.lastRun)],
    [
      'Branch',
      state.branch
        ? `[${tableCell(state.branch, 120)}](${view.serverUrl}/${view.repository}/tree/${encodeURI(state.branch)})`
        : '—'
    ],
    ['PR', state.pr ? `#${state.pr}` : '—'],
    [
      'State file',
      view.stateFile.url
        ? `[${tableCell(view.stateFile.label, 120)}](${view.stateFile.url})`
        : value(view.stateFile.label)
    ],
    ['Paused', state.paused ? `yes: ${value(state.pauseReason, 300)}` : 'no']
  ]
  return [
    STATUS_SENTINEL,
    `### 🤖 Autoloop: ${tableCell(view.program, 100)}`,
    '',
    '| | |',
    '|---|---|',
    ...rows.map(([label, text]) => `| ${label} | ${text} |`),
    '',
    '<sub>Kept up to date by autoloop-ci-gate.</sub>'
  ].join('\n')
}

export interface PauseView {
  program: string
  iterationId: string
  reason: string
  signature: { full: string; short: string } | null
  /** The last attempts, oldest first (the comment shows the last three). */
  attempts: readonly Attempt[]
  runUrlOf: (runId: number | null) => string | null
  maskedValues: readonly string[]
  branch: string
  /** The workflow file that runs `reset`, when known. */
  resetHint?: string
  /** When no fix can help: the cause and what a maintainer must do. */
  blocked?: Blocked
  /** When the signature stuck the loop before (a reset did not forget it). */
  remembered?: PausedSignature | null
}

/** Bytes of failure details a pause comment shows per attempt (the ledger keeps the latest's). */
const COMMENT_DETAIL_BYTES = 8_000

function attemptBlock(attempt: Attempt, view: PauseView): string {
  const run = view.runUrlOf(attempt.runId)
  const checks = (attempt.failingChecks ?? [])
    .map((check) => {
      // CI sets check URLs: linked only when they are a plain http(s) URL (no `)`, no line break).
      const target = check.url ? linkTarget(check.url, { maskedValues: view.maskedValues }) : null
      return target ? `[${tableCell(check.name, 80)}](${target})` : tableCell(check.name, 80)
    })
    .join(', ')
  const lines = [
    `**Attempt ${attempt.index}** — ${inlineCode(attempt.sha.slice(0, 12), 20)} — ${attempt.state}` +
      (run ? ` — [run](${run})` : '') +
      (checks ? ` — failing: ${checks}` : ''),
    // The action's own words (why the attempt ended so: no new commit, blocked, …).
    ...(attempt.noNewCommit || (attempt.note && attempt.state !== 'blocked')
      ? [`_${oneLine(attempt.note ?? 'no new commit: the fixer pushed nothing', 300)}_`]
      : []),
    ...whoseFailureLines(attempt, view.maskedValues)
  ]
  const details = renderFailureDetails(attempt.details ?? [], COMMENT_DETAIL_BYTES, {
    maskedValues: view.maskedValues
  })
  if (details.length > 0) lines.push(details.join('\n'))
  else if (attempt.errorLines && attempt.errorLines.length > 0)
    lines.push(
      fence(attempt.errorLines.join('\n'), {
        maxLines: 8,
        maxChars: 1200,
        maskedValues: view.maskedValues
      })
    )
  return lines.join('\n\n')
}

/** A link to a URL CI set, when it is a plain http(s) URL; else the text alone. */
function linked(text: string, url: string | null, maskedValues: readonly string[]): string {
  const target = url ? linkTarget(url, { maskedValues }) : null
  return target ? `[${text}](${target})` : text
}

/**
 * Whose failures the attempt's were, with the evidence (docs/decisions.md: "Whose failure it is"): keys
 * that fail on the base branch head too, flaky and infrastructure checks, the re-runs.
 */
function whoseFailureLines(attempt: Attempt, maskedValues: readonly string[]): string[] {
  const c = attempt.classification
  const options = { maskedValues }
  const lines: string[] = []
  if (c && c.preExisting.length > 0) {
    const base = c.baseSha ? ` ${inlineCode(c.baseSha.slice(0, 12), 20)}` : ''
    const evidence = (c.baseChecks ?? [])
      .slice(0, 5)
      .map((check) => linked(tableCell(check.check, 80), check.url, maskedValues))
    const where = evidence.length > 0 ? ` in ${evidence.join(', ')}` : ''
    const keys = c.preExisting.slice(0, 5).map((key) => inlineCode(key, 160, options))
    const more = c.preExisting.length > 5 ? ` +${c.preExisting.length - 5} more` : ''
    lines.push(
      `- 🧱 Pre-existing (fail on the base branch head${base}${where} too, not counted): ${keys.join(', ')}${more}`
    )
  }
  if (c?.baseNote) lines.push(`- ℹ️ Base branch: ${oneLine(c.baseNote, 300, options)}`)
  if (c && c.flaky.length > 0)
    lines.push(
      `- 🎲 Flaky (passed on re-run): ${c.flaky.map((f) => linked(tableCell(f.check, 80), f.url, maskedValues)).join(', ')}`
    )
  if (c && c.infrastructure.length > 0)
    lines.push(
      `- 🏗️ Infrastructure: ${c.infrastructure.map((f) => `${linked(tableCell(f.check, 80), f.url, maskedValues)} (${oneLine(f.cause, 120, options)})`).join(', ')}`
    )
  for (const rerun of attempt.reruns ?? [])
    lines.push(
      `- 🔁 ${linked('Re-run', rerun.url, maskedValues)} of ${rerun.checks.map((check) => tableCell(check, 80)).join(', ')} (${rerun.why}): ${rerun.outcome}`
    )
  return lines.length > 0 ? ['', ...lines] : []
}

export function renderPauseComment(view: PauseView): string {
  const lastThree = view.attempts.slice(-3)
  return [
    commentMarker('pause', view.iterationId),
    `### ⏸️ Autoloop program ${inlineCode(view.program, 100)} paused by the CI gate`,
    '',
    `**Reason:** ${inlineCode(view.reason, 300)}`,
    '',
    ...(view.signature
      ? [
          '**Failure signature** (the same signature on a later attempt means no progress):',
          '',
          fence(view.signature.full, {
            maxLines: 40,
            maxChars: 4000,
            maskedValues: view.maskedValues
          }),
          ''
        ]
      : []),
    ...(view.remembered ? [rememberedNote(view.remembered), ''] : []),
    ...(view.blocked ? [`**No fix can help:** ${view.blocked.advice}`, ''] : []),
    `**Last ${lastThree.length === 1 ? 'attempt' : `${lastThree.length} attempts`}:**`,
    '',
    ...lastThree.map((attempt) => attemptBlock(attempt, view)),
    '',
    '**How to resume**',
    '',
    view.blocked
      ? '- `reconcile` resumes the program once the head has a verdict (after the runs are approved, or CI runs).'
      : `- Push a fix to \`${view.branch}\`: the scheduled \`reconcile\` resumes the program once every check on the new head is green.`,
    `- Or unpause by hand: run the \`reset\` command (\`workflow_dispatch\`${view.resetHint ? `, ${view.resetHint}` : ''}) with a reason. A reset keeps the failures the loop paused on: the same failure after it pauses at once; add \`forget-failures: true\` once the cause is fixed.`
  ].join('\n')
}

function rememberedNote(remembered: PausedSignature): string {
  const reset = remembered.resetAt
    ? ` It was reset at ${remembered.resetAt}${remembered.resetBy ? ` by ${oneLine(remembered.resetBy, 60)}` : ''} without fixing the cause.`
    : ''
  return `**This failure stuck the loop before:** paused at ${remembered.pausedAt} (${inlineCode(remembered.reason, 200)}).${reset} The fixer should not resume the same approach but state what blocks it.`
}

export interface IterationCommentView {
  program: string
  marker: string
  /** The Iteration History entry, as recorded. */
  entry: string
  /** Keys accepted although they fail (they fail on the base branch head too). */
  preExisting?: readonly string[]
  flaky?: readonly { check: string }[]
}

export interface GreenWithCaveatsView {
  program: string
  marker: string
  sha: string
  /** Keys accepted although they fail (they fail on the base branch head too). */
  preExisting: readonly string[]
  baseSha: string | null
  flaky: readonly { check: string; url: string | null }[]
  maskedValues: readonly string[]
}

/**
 * A green verdict with caveats when no iteration was recorded with it (no iteration file):
 * failures accepted because the base branch head fails the same way, checks that passed only
 * on a re-run. The issue is told, never left to find out.
 */
export function renderGreenWithCaveatsComment(view: GreenWithCaveatsView): string {
  const options = { maskedValues: view.maskedValues }
  const lines = [
    view.marker,
    `**Autoloop ${inlineCode(view.program, 100)}**: CI on ${inlineCode(view.sha.slice(0, 12), 20)} passed the gate with caveats:`,
    ''
  ]
  if (view.preExisting.length > 0)
    lines.push(
      `- ⚠️ Accepted with failures that also fail on the base branch head${view.baseSha ? ` ${inlineCode(view.baseSha.slice(0, 12), 20)}` : ''} (\`pre-existing-failures: allow\`; not this iteration's doing): ${view.preExisting
        .slice(0, 10)
        .map((key) => inlineCode(key, 160, options))
        .join(
          ', '
        )}${view.preExisting.length > 10 ? ` +${view.preExisting.length - 10} more` : ''}.`
    )
  if (view.flaky.length > 0)
    lines.push(
      `- 🎲 Flaky (failed, then passed on re-run): ${view.flaky.map((f) => linked(tableCell(f.check, 80), f.url, view.maskedValues)).join(', ')}.`
    )
  return lines.join('\n')
}

/**
 * The per-iteration comment: its marker, then the history entry (the same on a re-run), less
 * the entry's own copy of the marker.
 */
export function renderIterationComment(view: IterationCommentView): string {
  const entry = view.entry.split('\n').filter((line) => line !== view.marker)
  const lines = [
    view.marker,
    `**Autoloop ${inlineCode(view.program, 100)}** recorded an iteration:`,
    '',
    ...entry
  ]
  if (view.preExisting && view.preExisting.length > 0)
    lines.push(
      '',
      `⚠️ Accepted with failures that also fail on the base branch head (not this iteration's doing): ${view.preExisting
        .slice(0, 10)
        .map((key) => inlineCode(key, 160))
        .join(
          ', '
        )}${view.preExisting.length > 10 ? ` +${view.preExisting.length - 10} more` : ''}.`
    )
  if (view.flaky && view.flaky.length > 0)
    lines.push(
      '',
      `Flaky on the way (passed on re-run): ${view.flaky.map((f) => oneLine(f.check, 80)).join(', ')}.`
    )
  return lines.join('\n')
}

export interface ResumeView {
  program: string
  marker: string
  sha: string
  /** The branch whose head lifted the pause (the base branch for a `ci-base-red` pause). */
  branch: string
  previousReason: string
  /** Why the pause is lifted, one sentence without its full stop. */
  why: string
  maskedValues: readonly string[]
}

/** The comment `reconcile` posts when it lifts a CI pause. */
export function renderResumeComment(view: ResumeView): string {
  const options = { maskedValues: view.maskedValues }
  return [
    view.marker,
    `### ▶️ Autoloop program ${inlineCode(view.program, 100, options)} resumed`,
    '',
    `${view.why}, so the pause is lifted:`,
    '',
    `- **It was paused for:** ${inlineCode(view.previousReason, 300, options)}`,
    `- **Head of ${inlineCode(view.branch, 200, options)}:** ${inlineCode(view.sha, 64)}`,
    '',
    'Paused and Pause Reason are cleared: the next scheduled iteration starts from this commit.'
  ].join('\n')
}
