/**
 * Failures outside the project's own build and test output (docs/decisions.md: "Whose failure it is"):
 * the runner was lost or shut down, the job was cancelled by the system, the network failed
 * while dependencies were installed, the machine ran out of disk or memory. Pure: it reads
 * the lines gathering already kept for a failing check. A re-run can fix these; an edit to the
 * project cannot, so they never spend a fix attempt.
 */

interface InfrastructurePattern {
  cause: string
  pattern: RegExp
}

const PATTERNS: readonly InfrastructurePattern[] = [
  {
    cause: 'the runner was shut down',
    pattern:
      /The runner has received a shutdown signal|runner .*(?:was|has been) (?:shut ?down|terminated)/i
  },
  {
    cause: 'the runner lost communication with GitHub',
    pattern: /lost communication with the server|The hosted runner: .* lost communication/i
  },
  { cause: 'the machine ran out of disk space', pattern: /No space left on device|ENOSPC/ },
  {
    cause: 'the machine ran out of memory',
    pattern:
      /\bOOMKilled\b|Cannot allocate memory|exit code 137\b.*(?:killed|memory)|runner .*out of memory/i
  },
  {
    cause: 'the network failed while installing dependencies',
    pattern:
      /npm (?:ERR!|error) (?:code )?(?:ECONNRESET|ETIMEDOUT|EAI_AGAIN|ECONNREFUSED|ENOTFOUND)|npm (?:ERR!|error) network|Could not resolve host|Temporary failure in name resolution|ReadTimeoutError|ConnectionResetError|Failed to establish a new connection|TLS handshake timeout|dial tcp [^ ]+: i\/o timeout|failed to download from|Could not transfer artifact|Connection timed out|503 Service Unavailable|502 Bad Gateway/i
  },
  {
    cause: 'the job was cancelled by the system',
    pattern: /The operation was canceled|The job was canceled because|was cancelled by the system/i
  }
]

/**
 * Why a failing check looks like an infrastructure failure, or null when nothing says so.
 * `lines` are the check's first error lines (and keys); a check that was cancelled and showed
 * no failure of its own counts as cancelled by the system.
 */
export function infrastructureCause(
  conclusion: string,
  lines: readonly string[],
  projectFailures: number
): string | null {
  for (const { cause, pattern } of PATTERNS) {
    if (lines.some((line) => pattern.test(line))) return cause
  }
  if (conclusion === 'cancelled' && projectFailures === 0)
    return 'the job was cancelled before it finished, with no failure of the project in its log'
  return null
}
