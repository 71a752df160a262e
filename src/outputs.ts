/**
 * Pure: what a command's result looks like as action outputs and as the job summary.
 */
import { markdownTable } from 'markdown-table'
import type { CheckView } from './checks/reduce.js'
import type { GateVerdict } from './commands/gate.js'
import {
  normaliseText,
  oneLine,
  redactSecrets,
  removeMarkers,
  tableCell
} from './text/untrusted.js'

/** Every output of SPEC §2, so downstream `if:` expressions never see an unset value. */
export const OUTPUT_NAMES = [
  'status',
  'verdict',
  'sha',
  'pr-number',
  'attempt',
  'attempts-remaining',
  'signature',
  'pause-reason',
  'failure-summary',
  'failure-summary-path',
  'checks',
  'resumed',
  'abandoned',
  'errors'
] as const
export type OutputName = (typeof OUTPUT_NAMES)[number]
export type Outputs = Partial<Record<OutputName, string>>

export interface CheckOutput {
  name: string
  kind: CheckView['kind']
  status: string
  conclusion: string | null
  url: string | null
}

/** CI-chosen text in an output: secrets redacted, status sentinel and markers removed (SPEC §7). */
const outputText = (text: string): string => removeMarkers(redactSecrets(normaliseText(text)))

/** The `checks` output: every counted check with its conclusion and link. */
export function checksOutput(checks: readonly CheckView[]): CheckOutput[] {
  return checks
    .filter((check) => check.excluded === undefined)
    .map((check) => ({
      name: outputText(check.name),
      kind: check.kind,
      status: check.status,
      conclusion: check.conclusion,
      url: check.url
    }))
}

const STATE_ICON: Record<CheckView['state'], string> = {
  passed: '✅',
  failed: '❌',
  running: '⏳',
  unknown: '❔'
}

const EXCLUSION: Record<NonNullable<CheckView['excluded']>, string> = {
  'own-run': 'this workflow run (never waited on)',
  ignored: 'matches `ignore-checks`',
  superseded: 'an earlier run of a re-run check'
}

function link(url: string | null, text: string): string {
  return url && /^https?:\/\//.test(url)
    ? `[${text}](${url.replace(/[()\s]/g, encodeURIComponent)})`
    : text
}

export function checksTable(checks: readonly CheckView[]): string {
  const counted = checks.filter((check) => check.excluded === undefined)
  const excluded = checks.filter((check) => check.excluded !== undefined)
  const parts: string[] = []
  if (counted.length === 0)
    parts.push('_No check runs or commit statuses were reported for this commit._')
  else
    parts.push(
      markdownTable([
        ['', 'Check', 'Kind', 'Conclusion', 'Link'],
        ...counted.map((check) => [
          STATE_ICON[check.state],
          tableCell(check.name, 120),
          check.kind === 'status' ? 'status' : 'check run',
          tableCell(check.conclusion ?? check.status, 40),
          link(check.url, 'details')
        ])
      ])
    )
  if (excluded.length > 0) {
    parts.push(
      '<details><summary>Not counted</summary>\n\n' +
        markdownTable([
          ['Check', 'Conclusion', 'Why not counted'],
          ...excluded.map((check) => [
            link(check.url, tableCell(check.name, 120)),
            tableCell(check.conclusion ?? check.status, 40),
            EXCLUSION[check.excluded ?? 'ignored']
          ])
        ]) +
        '\n\n</details>'
    )
  }
  return parts.join('\n\n')
}

const VERDICT_TITLE: Record<GateVerdict['verdict'], string> = {
  green: '🟢 green: every check passed',
  red: '🔴 red',
  'no-checks': '⚪ no checks: nothing verified this commit',
  'ci-timeout': '⏱️ ci-timeout: checks still running at the wall-clock cap'
}

export function gateSummaryMarkdown(
  program: string,
  gate: GateVerdict,
  extra: {
    status: string
    pauseReason?: string | undefined
    failureMarkdown?: string | undefined
    /** The attempts this step gated, when fix-command ran more than one. */
    steps?: ReadonlyArray<{
      attempt: number
      sha: string
      verdict: string
      signature: string | null
    }>
  }
): string {
  const lines = [
    `## autoloop-ci-gate: ${program}`,
    '',
    `**${VERDICT_TITLE[gate.verdict]}** — status \`${extra.status}\` for \`${gate.sha}\`` +
      (gate.pull ? ` (PR ${link(gate.pull.url, `#${gate.pull.number}`)})` : ''),
    ''
  ]
  if (gate.reasons.length > 0) {
    for (const reason of gate.reasons) lines.push(`- ${oneLine(reason, 600)}`)
    lines.push('')
  }
  if (gate.explanation) lines.push(gate.explanation, '')
  if (extra.pauseReason) lines.push(`**Paused:** ${tableCell(extra.pauseReason, 200)}`, '')
  if (extra.steps && extra.steps.length > 1) {
    lines.push(
      '**Attempts in this step** (fix-command):',
      '',
      markdownTable([
        ['Attempt', 'Commit', 'Verdict', 'Signature'],
        ...extra.steps.map((step) => [
          String(step.attempt),
          `\`${step.sha.slice(0, 12)}\``,
          step.verdict,
          step.signature ? tableCell(step.signature, 160) : '—'
        ])
      ]),
      ''
    )
  }
  lines.push(
    `Waited ${Math.round((gate.finishedAt - gate.startedAt) / 1000)} s over ${gate.polls} poll${gate.polls === 1 ? '' : 's'}.`,
    '',
    checksTable(gate.checks)
  )
  if (extra.failureMarkdown) lines.push('', extra.failureMarkdown)
  return lines.join('\n') + '\n'
}
