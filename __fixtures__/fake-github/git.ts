/**
 * Reads a local bare repository so that a real `git push` to it is visible through the API.
 * Synchronous on purpose: it runs once per request, before any state is read.
 */
import { execFileSync } from 'node:child_process'

function git(gitDir: string, args: string[]): string {
  return execFileSync('git', [`--git-dir=${gitDir}`, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe']
  })
}

/** Branch name → head SHA. */
export function readBranchHeads(gitDir: string): Record<string, string> {
  const out = git(gitDir, ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/'])
  const heads: Record<string, string> = {}
  for (const line of out.split('\n')) {
    const m = /^([0-9a-f]{40}) refs\/heads\/(.+)$/.exec(line.trim())
    if (m?.[1] && m[2]) heads[m[2]] = m[1]
  }
  return heads
}

export type GitEntry =
  | { type: 'file'; sha: string; content: string }
  | {
      type: 'dir'
      entries: Array<{ type: 'file' | 'dir'; name: string; sha: string; size: number }>
    }

/** A file or directory at `path` in commit `sha`, or undefined when absent. */
export function readGitPath(gitDir: string, sha: string, path: string): GitEntry | undefined {
  const spec = `${sha}:${path}`
  let type: string
  try {
    type = git(gitDir, ['cat-file', '-t', spec]).trim()
  } catch {
    return undefined
  }
  if (type === 'blob') {
    return {
      type: 'file',
      sha: git(gitDir, ['rev-parse', spec]).trim(),
      content: git(gitDir, ['cat-file', 'blob', spec])
    }
  }
  if (type !== 'tree') return undefined
  const entries: Extract<GitEntry, { type: 'dir' }>['entries'] = []
  for (const line of git(gitDir, ['ls-tree', '-l', spec]).split('\n')) {
    const m = /^\d+ (blob|tree) ([0-9a-f]{40})\s+(-|\d+)\t(.+)$/.exec(line)
    if (!m?.[1] || !m[2] || !m[4]) continue
    entries.push({
      type: m[1] === 'blob' ? 'file' : 'dir',
      name: m[4],
      sha: m[2],
      size: m[3] === '-' ? 0 : Number(m[3])
    })
  }
  return { type: 'dir', entries }
}

export function gitCommitMessage(gitDir: string, sha: string): string | undefined {
  try {
    return git(gitDir, ['log', '-1', '--format=%B', sha]).trim()
  } catch {
    return undefined
  }
}
