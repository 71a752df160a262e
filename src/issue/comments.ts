/**
 * SPEC §7: what the action says on the program issue. Pure rendering; `program-issue.ts`
 * finds and edits the comments. Every comment carries a hidden marker so a re-run edits it
 * instead of posting it twice. CI text is untrusted: fenced, neutralised, redacted.
 */
import type { MachineState } from '../state/schema.js'
import type { Attempt } from '../loop/ledger.js'
import { fence, inlineCode, tableCell } from '../text/untrusted.js'

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
    return (state.pauseReason ?? '').startsWith('consecutive errors') ? '⚠️ Error' : '⏸️ Paused'
  return '🟢 Active'
}

const value = (text: string | number | null | undefined, max = 200) =>
  text === null || text === undefined || text === '' ? '—' : tableCell(String(text), max)

export function renderStatusComment(view: StatusView): string {
  const { state } = view
  const rows: Array<[string, string]> = [
    ['Status', statusLine(state)],
    ['Best metric', value(state.bestMetric)],
    ['Iterations', value(state.iterationCount)],
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
}

function attemptBlock(attempt: Attempt, view: PauseView): string {
  const run = view.runUrlOf(attempt.runId)
  const checks = (attempt.failingChecks ?? [])
    .map((check) =>
      check.url && /^https?:\/\//.test(check.url)
        ? `[${tableCell(check.name, 80)}](${check.url})`
        : tableCell(check.name, 80)
    )
    .join(', ')
  const lines = [
    `**Attempt ${attempt.index}** — ${inlineCode(attempt.sha.slice(0, 12), 20)} — ${attempt.state}` +
      (run ? ` — [run](${run})` : '') +
      (checks ? ` — failing: ${checks}` : '')
  ]
  if (attempt.errorLines && attempt.errorLines.length > 0)
    lines.push(
      fence(attempt.errorLines.join('\n'), {
        maxLines: 8,
        maxChars: 1200,
        maskedValues: view.maskedValues
      })
    )
  return lines.join('\n\n')
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
    `**Last ${lastThree.length === 1 ? 'attempt' : `${lastThree.length} attempts`}:**`,
    '',
    ...lastThree.map((attempt) => attemptBlock(attempt, view)),
    '',
    '**How to resume**',
    '',
    `- Push a fix to \`${view.branch}\`: the scheduled \`reconcile\` resumes the program once every check on the new head is green.`,
    `- Or unpause by hand: run the \`reset\` command (\`workflow_dispatch\`${view.resetHint ? `, ${view.resetHint}` : ''}) with a reason.`
  ].join('\n')
}
