/**
 * Pure: what a command's result looks like as action outputs and as the job summary
 * (docs/inputs-outputs.md: "Outputs").
 */
import { markdownTable } from 'markdown-table'
import { isCounted, type CheckView } from '../core/checks/reduce.js'
import type { GateObservation, GateVerdict } from '../core/checks/observation.js'
import type { Settlement } from '../core/rules/decide.js'
import type { Blocked } from '../core/rules/classify.js'
import type { Attempt, Classification } from '../core/ledger.js'
import type { RecordOutcome } from '../statefile/record-outcome.js'
import type { Signature } from '../core/signature/signature.js'
import { linkTarget } from '../render/failure-summary.js'
import {
  inlineCode,
  normaliseText,
  oneLine,
  redactSecrets,
  removeMarkers,
  tableCell
} from '../core/text/untrusted.js'

/** Every output, always set, so downstream `if:` expressions never see an unset value. */
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
  'dispatched',
  'pre-existing',
  'resumed',
  'abandoned',
  'paused',
  'errors',
  'doctor'
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

/** CI-chosen text in an output: secrets redacted, status sentinel and markers removed. */
const outputText = (text: string): string => removeMarkers(redactSecrets(normaliseText(text)))

/** The `checks` output: every counted check with its conclusion and link. */
export function checksOutput(checks: readonly CheckView[]): CheckOutput[] {
  return checks.filter(isCounted).map((check) => ({
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

/** CI sets check URLs: linked only when they are a plain http(s) URL (`linkTarget`). */
function link(url: string | null, text: string): string {
  const target = url ? linkTarget(url) : null
  return target ? `[${text}](${target})` : text
}

export function checksTable(checks: readonly CheckView[]): string {
  const counted = checks.filter(isCounted)
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

const VERDICT_TITLE: Record<GateVerdict, string> = {
  green: '🟢 green: every check passed',
  'green-except-pre-existing': '🟡 green except pre-existing failures: accepted, loudly',
  red: '🔴 red',
  'no-checks': '⚪ no checks: nothing verified this commit',
  blocked: '🚧 blocked: no fix can help',
  'ci-timeout': '⏱️ ci-timeout: checks still running at the wall-clock cap'
}

/**
 * An attempt begun with `wait: false` and not settled yet: the gate exits, and `settle` settles
 * it once CI has finished (README: "Settling on events"). Nothing is decided about it yet.
 */
export interface Waiting {
  kind: 'waiting'
  index: number
  /** The fix attempts left before this attempt is judged. */
  attemptsRemaining: number
  /** The iteration's wall clock: still running then is `ci-timeout`. */
  deadline: number
  /** What is still running, when a look found it so (`settle`). */
  waitingFor: readonly string[]
}

/** What a gate or `settle` reports: a settlement `decide` made, or an attempt still waiting. */
export type Reported = Settlement | Waiting

/** One attempt a step gated (more than one with `fix-command`). */
export interface GateStep {
  attempt: number
  sha: string
  verdict: string
  signature: string | null
}

/** The failure summary written for the fixer: its markdown, and its JSON file. */
export interface WrittenSummary {
  markdown: string
  jsonPath: string
}

type SettlementOf<K extends Settlement['kind']> = Extract<Settlement, { kind: K }>

/**
 * What one gate (or `settle`) did; the outputs and the job summary are rendered from it. It is
 * the settlement `decide` made (the verdict, the pause, the signature, the fix attempts left),
 * or an attempt still waiting, and beside it only what applying that settlement observed and
 * wrote: each kind carries what it has, nothing that it cannot.
 */
export type GateReport = {
  message: string
  /** Every attempt this step gated, in order. */
  steps: readonly GateStep[]
} & (
  | {
      settlement: SettlementOf<'skipped'>
      /** The attempt the gate found, when it found one. */
      attempt: Attempt | null
      /** The pause the program's state file shows, when it is paused. */
      pauseReason: string | null
      /** The iteration recorded without a new commit, if it was. */
      recorded: RecordOutcome | null
    }
  | { settlement: Waiting; attempt: Attempt }
  | {
      settlement: SettlementOf<'green' | 'green-except-pre-existing'>
      observation: GateObservation
      /** The settled attempt as the ledger holds it after this gate. */
      attempt: Attempt
      classification: Classification | null
      /** The iteration recorded, when the agent handed over its metric. */
      recorded: RecordOutcome | null
    }
  | {
      settlement: SettlementOf<'paused'>
      /** The checks of the attempt's commit, when the pause came from them. */
      observation: GateObservation | null
      attempt: Attempt
      /** The pause reason the state file shows after this gate (this one's, or an earlier one). */
      pauseReason: string
      classification: Classification | null
      failureSummary: WrittenSummary | null
    }
  | {
      settlement: SettlementOf<'red'>
      observation: GateObservation
      attempt: Attempt
      classification: Classification
      failureSummary: WrittenSummary
      /** Whether this step started the fixer run. */
      dispatched: boolean
    }
)

/** A gate that settled nothing: the program was stopped, or there was nothing to gate. */
export function skippedReport(
  reason: string,
  extra: { attempt?: Attempt; pauseReason?: string | null; recorded?: RecordOutcome | null } = {}
): GateReport {
  return {
    settlement: { kind: 'skipped', reason },
    message: reason,
    steps: [],
    attempt: extra.attempt ?? null,
    pauseReason: extra.pauseReason ?? null,
    recorded: extra.recorded ?? null
  }
}

/** What the report observed, recorded, wrote, by kind (null where the kind has none). */
const observationOf = (report: GateReport): GateObservation | null =>
  'observation' in report ? report.observation : null
const classificationOf = (report: GateReport): Classification | null =>
  'classification' in report ? report.classification : null
const summaryOf = (report: GateReport): WrittenSummary | null =>
  'failureSummary' in report ? report.failureSummary : null
const recordedOf = (report: GateReport): RecordOutcome | null =>
  'recorded' in report ? report.recorded : null
const dispatchedIn = (report: GateReport): boolean => 'dispatched' in report && report.dispatched

const STATUS: Record<Reported['kind'], 'success' | 'failure' | 'paused' | 'skipped' | 'waiting'> = {
  skipped: 'skipped',
  waiting: 'waiting',
  green: 'success',
  'green-except-pre-existing': 'success',
  paused: 'paused',
  red: 'failure'
}

/** The `status` output of a settlement. */
export function statusOf(settlement: Reported): (typeof STATUS)[Reported['kind']] {
  return STATUS[settlement.kind]
}

/** The `verdict` output of a settlement (null: nothing was gated). */
export function verdictOf(settlement: Reported): GateVerdict | null {
  switch (settlement.kind) {
    case 'skipped':
    case 'waiting':
      return null
    case 'paused':
      return settlement.pause.verdict
    default:
      return settlement.kind
  }
}

/** The failure signature a settlement names, if any. */
export function signatureOfSettlement(settlement: Reported): Signature | null {
  if (settlement.kind === 'paused') return settlement.pause.signature
  return settlement.kind === 'red' ? settlement.signature : null
}

function attemptsRemainingOf(settlement: Reported): number | null {
  switch (settlement.kind) {
    case 'skipped':
      return null
    case 'paused':
      return settlement.pause.attemptsRemaining
    default:
      return settlement.attemptsRemaining
  }
}

function preExistingOf(report: GateReport): string[] {
  const { settlement } = report
  if (settlement.kind === 'green-except-pre-existing') return settlement.preExisting
  if (settlement.kind === 'green') return []
  return classificationOf(report)?.preExisting ?? []
}

function blockedOf(settlement: Reported): Blocked | null {
  return settlement.kind === 'paused' ? settlement.pause.blocked : null
}

function pauseReasonOf(report: GateReport): string | null {
  return 'pauseReason' in report ? report.pauseReason : null
}

export function gateOutputs(report: GateReport): Outputs {
  const { settlement } = report
  const observation = observationOf(report)
  const summary = summaryOf(report)
  const remaining = attemptsRemainingOf(settlement)
  return {
    status: statusOf(settlement),
    verdict: verdictOf(settlement) ?? '',
    sha: observation?.sha ?? report.attempt?.sha ?? '',
    'pr-number': observation?.pull ? String(observation.pull.number) : '',
    attempt: report.attempt ? String(report.attempt.index) : '',
    'attempts-remaining': remaining === null ? '' : String(remaining),
    signature: signatureOfSettlement(settlement)?.full ?? '',
    'pause-reason': pauseReasonOf(report) ?? '',
    'failure-summary': summary?.markdown ?? '',
    'failure-summary-path': summary?.jsonPath ?? '',
    checks: observation ? JSON.stringify(checksOutput(observation.checks)) : '[]',
    dispatched: dispatchedIn(report) ? 'true' : 'false',
    'pre-existing': JSON.stringify(preExistingOf(report).map(outputText))
  }
}

function classificationLines(report: GateReport): string[] {
  const lines: string[] = []
  const c = classificationOf(report)
  const blocked = blockedOf(report.settlement)
  if (blocked) lines.push(`**Blocked:** ${blocked.advice}`, '')
  if (c && c.preExisting.length > 0)
    lines.push(
      `**Pre-existing** (fail on the base branch head${c.baseSha ? ` ${inlineCode(c.baseSha.slice(0, 12), 20)}` : ''}${c.baseChecks && c.baseChecks.length > 0 ? ` in ${c.baseChecks.map((f) => link(f.url, tableCell(f.check, 80))).join(', ')}` : ''} too, not counted): ${c.preExisting
        .slice(0, 20)
        .map((key) => inlineCode(key, 160))
        .join(', ')}`,
      ''
    )
  if (c?.baseNote) lines.push(`**Base branch:** ${oneLine(c.baseNote, 300)}`, '')
  if (c && c.flaky.length > 0)
    lines.push(
      `**Flaky** (failed, passed on re-run): ${c.flaky.map((f) => link(f.url, tableCell(f.check, 80))).join(', ')}`,
      ''
    )
  if (c && c.infrastructure.length > 0)
    lines.push(
      `**Infrastructure:** ${c.infrastructure.map((f) => `${link(f.url, tableCell(f.check, 80))} (${oneLine(f.cause, 120)})`).join(', ')}`,
      ''
    )
  return lines
}

export function gateSummaryMarkdown(program: string, report: GateReport): string {
  const lines = [`## autoloop-ci-gate: ${program}`, '']
  const gate = observationOf(report)
  const verdict = verdictOf(report.settlement)
  const pauseReason = pauseReasonOf(report)
  const blocked = blockedOf(report.settlement)
  if (!gate || !verdict) {
    lines.push(report.message, '')
    const { settlement } = report
    if (settlement.kind === 'waiting') {
      lines.push(
        `**Waiting** (attempt ${settlement.index}, ${settlement.attemptsRemaining} fix attempt(s) left) for CI to finish, until ${new Date(settlement.deadline).toISOString()} (then \`ci-timeout\`).`,
        ''
      )
      if (settlement.waitingFor.length > 0)
        lines.push(
          `Still running: ${settlement.waitingFor
            .slice(0, 20)
            .map((name) => inlineCode(name, 120))
            .join(
              ', '
            )}${settlement.waitingFor.length > 20 ? ` +${settlement.waitingFor.length - 20} more` : ''}`,
          ''
        )
    }
    if (pauseReason) lines.push(`**Paused:** ${tableCell(pauseReason, 200)}`, '')
    if (blocked) lines.push(`**Blocked:** ${blocked.advice}`, '')
    return lines.join('\n')
  }
  lines.push(
    `**${VERDICT_TITLE[verdict]}** — status \`${statusOf(report.settlement)}\` for \`${gate.sha}\`` +
      (gate.pull ? ` (PR ${link(gate.pull.url, `#${gate.pull.number}`)})` : ''),
    ''
  )
  if (gate.reasons.length > 0) {
    for (const reason of gate.reasons) lines.push(`- ${oneLine(reason, 600)}`)
    lines.push('')
  }
  lines.push(...classificationLines(report))
  if (pauseReason) lines.push(`**Paused:** ${tableCell(pauseReason, 200)}`, '')
  if (dispatchedIn(report)) lines.push('**Fixer run started** (`dispatch-workflow`).', '')
  const recorded = recordedOf(report)
  if (recorded?.recorded)
    lines.push(
      `**Recorded** iteration ${recorded.iteration}: status \`${recorded.status}\`${recorded.metric === null ? '' : `, metric ${recorded.metric}`}.`,
      ''
    )
  if (report.steps.length > 1) {
    lines.push(
      '**Attempts in this step** (fix-command):',
      '',
      markdownTable([
        ['Attempt', 'Commit', 'Verdict', 'Signature'],
        ...report.steps.map((step) => [
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
  const summary = summaryOf(report)
  if (summary) lines.push('', summary.markdown)
  return lines.join('\n') + '\n'
}
