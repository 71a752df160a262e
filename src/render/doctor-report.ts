/**
 * What the doctor says (docs/commands.md: "doctor"): one line per check, a markdown table for the job
 * summary, one JSON object. Pure.
 */
import { markdownTable } from 'markdown-table'
import { tableCell } from '../core/text/untrusted.js'
import { runChecks, type DoctorOptions } from '../core/doctor/checks.js'
import { statusOf, type DoctorReport, type Finding, type RepoFacts } from '../core/doctor/model.js'
import type { ParsedSetup } from '../core/doctor/setup.js'

export function diagnose(
  setup: ParsedSetup,
  facts: RepoFacts,
  options: DoctorOptions
): DoctorReport {
  const checks = runChecks(setup, facts, options)
  return { status: statusOf(checks), source: setup.source, found: setup.workflow !== null, checks }
}

const ICON: Record<Finding['level'], string> = { ok: '✅', warn: '⚠️', fail: '❌' }

/** `ok   ci-gate  …` / `fail memory-glob  … Fix: …`, one line per check. */
export function reportLines(report: DoctorReport): string[] {
  const width = Math.max(...report.checks.map((f) => f.id.length))
  return report.checks.map((f) => {
    const text = (f.fix ? `${f.message}. Fix: ${f.fix}` : f.message).replace(/\s+/g, ' ')
    return `${f.level.padEnd(4)} ${f.id.padEnd(width)}  ${text}`
  })
}

/** The findings as a table; only the non-ok ones with `onlyProblems`. */
export function reportTable(report: DoctorReport, onlyProblems = false): string {
  const rows = report.checks.filter((f) => !onlyProblems || f.level !== 'ok')
  return markdownTable([
    ['', 'Check', 'Found', 'Fix'],
    ...rows.map((f) => [
      ICON[f.level],
      f.title,
      tableCell(f.message, 600),
      f.fix ? tableCell(f.fix, 600) : ''
    ])
  ])
}

export function reportMarkdown(report: DoctorReport): string {
  const counts = (['fail', 'warn', 'ok'] as const)
    .map((level) => `${report.checks.filter((f) => f.level === level).length} ${level}`)
    .join(', ')
  return [
    `## autoloop-ci-gate: doctor`,
    '',
    `**${report.status}** — ${counts} (read ${tableCell(report.source, 300)}).`,
    '',
    reportTable(report),
    ''
  ].join('\n')
}

/** The `--json` object and the `doctor` output. */
export function reportJson(report: DoctorReport): string {
  return JSON.stringify({
    status: report.status,
    source: report.source,
    checks: report.checks.map(({ id, title, level, message, fix }) => ({
      id,
      title,
      level,
      message,
      fix
    }))
  })
}
