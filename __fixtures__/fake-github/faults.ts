/**
 * Injected faults: which request a fault hits (method, path regex, OpenAPI route, after N
 * matching requests, count) and what the answer then is.
 */
import { errorReply, type Reply } from './shapes.js'
import type { FaultKind, FaultSpec } from './types.js'

const DEFAULT_ROUTE: Partial<Record<FaultKind, string>> = {
  'contents-conflict': 'PUT /repos/{owner}/{repo}/contents/{path}',
  'stale-head': 'POST /graphql',
  'expired-log': 'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs'
}

export interface FaultTarget {
  method: string
  /** API path without prefix and query. */
  path: string
  route: string | null
}

const progress = new WeakMap<FaultSpec, { matched: number; fired: number }>()

function matches(fault: FaultSpec, target: FaultTarget): boolean {
  const route = fault.route ?? (fault.method || fault.path ? undefined : DEFAULT_ROUTE[fault.kind])
  if (fault.method && fault.method.toUpperCase() !== target.method.toUpperCase()) return false
  if (fault.path && !new RegExp(fault.path).test(target.path)) return false
  if (route && route !== target.route) return false
  return true
}

/**
 * The first active fault that hits this request, counting it; exhausted faults are removed
 * from `faults`.
 */
export function takeFault(faults: FaultSpec[], target: FaultTarget): FaultSpec | undefined {
  for (const fault of faults) {
    if (!matches(fault, target)) continue
    const p = progress.get(fault) ?? { matched: 0, fired: 0 }
    progress.set(fault, p)
    p.matched++
    if (p.matched <= (fault.afterRequests ?? 0)) continue
    p.fired++
    const count = fault.count ?? 1
    if (count !== 'always' && p.fired >= count) faults.splice(faults.indexOf(fault), 1)
    return fault
  }
  return undefined
}

export type FaultAnswer =
  | { type: 'drop' }
  | { type: 'delay'; ms: number }
  | { type: 'raw'; status: number; text: string }
  | { type: 'reply'; reply: Reply }
  /** Use up the primary limit until `resetAt` (virtual ms); the request then meets the limit. */
  | { type: 'exhaust'; resetAt: number }

export function faultAnswer(fault: FaultSpec, target: FaultTarget, now: number): FaultAnswer {
  const retryAfter = String(fault.retryAfterSeconds ?? 1)
  switch (fault.kind) {
    case 'drop-connection':
      return { type: 'drop' }
    case 'slow':
      return { type: 'delay', ms: Math.min(5000, Math.max(0, fault.delayMs ?? 50)) }
    case 'malformed-json':
      return { type: 'raw', status: 200, text: '{"message": "truncated' }
    case 'status': {
      const status = fault.status ?? 502
      return {
        type: 'reply',
        reply: errorReply(status, fault.message ?? (status >= 500 ? 'Server Error' : 'Error'))
      }
    }
    case 'secondary-rate-limit': {
      const reply = errorReply(
        403,
        fault.message ??
          'You have exceeded a secondary rate limit. Wait before sending more requests.'
      )
      return { type: 'reply', reply: { ...reply, headers: { 'retry-after': retryAfter } } }
    }
    case 'too-many-requests': {
      const reply = errorReply(429, fault.message ?? 'Too many requests')
      return { type: 'reply', reply: { ...reply, headers: { 'retry-after': retryAfter } } }
    }
    case 'primary-rate-limit':
      return { type: 'exhaust', resetAt: now + (fault.resetInSeconds ?? 60) * 1000 }
    case 'contents-conflict': {
      const path = decodeURIComponent(target.path.replace(/^\/repos\/[^/]+\/[^/]+\/contents\//, ''))
      return {
        type: 'reply',
        reply: errorReply(409, fault.message ?? `${path} does not match the expected sha`)
      }
    }
    case 'stale-head':
      return {
        type: 'reply',
        reply: {
          status: 200,
          body: {
            data: { createCommitOnBranch: null },
            errors: [
              {
                type: 'STALE_DATA',
                path: ['createCommitOnBranch'],
                message:
                  fault.message ??
                  'Expected branch to point to the commit it was read at but it did not. Pull and try again.'
              }
            ]
          }
        }
      }
    case 'expired-log': {
      const status = fault.status ?? 410
      return {
        type: 'reply',
        reply: errorReply(status, fault.message ?? (status === 410 ? 'Gone' : 'Not Found'))
      }
    }
  }
}
