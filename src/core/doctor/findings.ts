/**
 * The doctor's findings (docs/commands.md: "doctor"): each check's id and title, in the
 * README's order, and how a finding is made. Pure.
 */
import type { Finding, Level } from './model.js'

/** Every check's id and title, in the order the report lists them. */
export const TITLES = {
  workflow: 'autoloop workflow',
  'gh-aw-version': 'gh-aw version',
  'ci-gate': 'ci_gate job',
  'ci-reconcile': 'ci_reconcile job',
  'action-pinned': 'action pinned to a SHA',
  permissions: 'permissions',
  'fixer-run': 'fixer run can start',
  'memory-glob': 'memory file-glob',
  'ci-trigger-token': 'CI-trigger token',
  'push-fallback': 'fallback-as-pull-request off',
  handover: 'hand-over to the gate',
  'ci-workflow': 'CI on the program branch',
  'settle-workflow': 'settle on events',
  'state-branch': 'state branch'
} as const
export type CheckId = keyof typeof TITLES

export function finding(id: CheckId, level: Level, message: string, fix: string | null = null): Finding {
  return { id, title: TITLES[id], level, message, fix: level === 'ok' ? null : fix }
}

