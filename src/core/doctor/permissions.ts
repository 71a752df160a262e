/**
 * What each command needs of GITHUB_TOKEN in a job's `permissions:` (docs/gh-aw.md:
 * "Permissions in gh-aw"; README: "Security"). Pure. The doctor checks workflows against it, and the example
 * workflows are tested against it.
 */
export type Access = 'read' | 'write'

export const COMMAND_PERMISSIONS: Record<
  'gate' | 'settle' | 'reconcile' | 'record' | 'reset' | 'doctor',
  Record<string, Access>
> = {
  gate: {
    contents: 'write',
    checks: 'read',
    statuses: 'read',
    actions: 'write',
    issues: 'write',
    'pull-requests': 'read'
  },
  /** settle applies what the gate would: the same writes, dispatch and re-runs. */
  settle: {
    contents: 'write',
    checks: 'read',
    statuses: 'read',
    actions: 'write',
    issues: 'write',
    'pull-requests': 'read'
  },
  reconcile: {
    contents: 'write',
    checks: 'read',
    statuses: 'read',
    actions: 'read',
    issues: 'write',
    'pull-requests': 'read'
  },
  record: { contents: 'write', issues: 'write' },
  reset: { contents: 'write', issues: 'write' },
  doctor: { contents: 'read' }
}

export const ACCESS_RANK: Record<string, number> = { none: 0, read: 1, write: 2 }

/** The access a job's `permissions:` value grants to one scope (`write-all`, `read-all`, a map). */
export function grantedAccess(permissions: unknown, scope: string): string {
  if (permissions === 'write-all') return 'write'
  if (permissions === 'read-all') return 'read'
  if (typeof permissions === 'object' && permissions !== null && !Array.isArray(permissions)) {
    const value = (permissions as Record<string, unknown>)[scope]
    return typeof value === 'string' ? value : 'none'
  }
  return 'none'
}
