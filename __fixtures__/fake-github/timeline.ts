/**
 * Pure evaluation of planned timelines at a virtual time. Offsets in plans are seconds after
 * the commit appeared (`seenAt`, ms epoch).
 */
import type {
  CheckConclusion,
  CheckRunPlan,
  CheckStatus,
  StatusEvent,
  StatusPlan,
  StatusState
} from './types.js'

export interface CheckRunMoment {
  status: CheckStatus
  conclusion: CheckConclusion | null
  startedAt: number
  completedAt: number | null
}

/** The state of a planned check run at `now`, or undefined before its first event. */
export function checkRunAt(
  plan: CheckRunPlan,
  seenAt: number,
  now: number
): CheckRunMoment | undefined {
  const events = [...plan.timeline].sort((a, b) => a.at - b.at)
  const first = events[0]
  if (!first) return undefined
  const startedAt = seenAt + first.at * 1000
  if (now < startedAt) return undefined
  let current = first
  for (const event of events) if (seenAt + event.at * 1000 <= now) current = event
  const completed = current.status === 'completed'
  return {
    status: current.status,
    conclusion: completed ? (current.conclusion ?? 'success') : null,
    startedAt,
    completedAt: completed ? seenAt + current.at * 1000 : null
  }
}

export interface StatusMoment {
  /** Index of the event in the plan's timeline (stable identity for ids). */
  index: number
  event: StatusEvent
  createdAt: number
}

/** Every status event of a plan that has happened by `now`, oldest first. */
export function statusEventsAt(plan: StatusPlan, seenAt: number, now: number): StatusMoment[] {
  return plan.timeline
    .map((event, index) => ({ index, event, createdAt: seenAt + event.at * 1000 }))
    .filter((m) => m.createdAt <= now)
    .sort((a, b) => a.createdAt - b.createdAt || a.index - b.index)
}

/** GitHub's combined state: failure beats pending beats success; no statuses is pending. */
export function combinedState(states: StatusState[]): 'pending' | 'success' | 'failure' {
  if (states.some((s) => s === 'failure' || s === 'error')) return 'failure'
  if (states.length === 0 || states.includes('pending')) return 'pending'
  return 'success'
}
