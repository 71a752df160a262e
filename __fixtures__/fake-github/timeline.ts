/**
 * Pure evaluation of planned timelines at a time. Offsets in plans are seconds after `from`
 * (ms epoch): when the commit appeared, or a plan's own `startsAt`.
 */
import type { StatusEvent, StatusPlan, StatusState } from './types.js'

export interface Moment<S, C> {
  status: S
  conclusion: C | null
  startedAt: number
  /** Time of the current event. */
  changedAt: number
  completedAt: number | null
}

/** The state of a timeline at `now`, or undefined before its first event. */
export function timelineAt<S extends string, C extends string>(
  timeline: ReadonlyArray<{ at: number; status: S; conclusion?: C }>,
  from: number,
  now: number
): Moment<S, C> | undefined {
  const events = [...timeline].sort((a, b) => a.at - b.at)
  const first = events[0]
  if (!first) return undefined
  const startedAt = from + first.at * 1000
  if (now < startedAt) return undefined
  let current = first
  for (const event of events) if (from + event.at * 1000 <= now) current = event
  const changedAt = from + current.at * 1000
  const completed = current.status === 'completed'
  return {
    status: current.status,
    conclusion: completed ? (current.conclusion ?? ('success' as C)) : null,
    startedAt,
    changedAt,
    completedAt: completed ? changedAt : null
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
