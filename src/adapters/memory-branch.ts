/**
 * Reads the state branch with git (docs/commands.md: "reconcile"): one shallow fetch of one branch
 * into a throwaway bare repository, then every program's two files from that commit. Git
 * traffic spends none of the REST rate limit, so reconciling idle programs is free; the blob
 * SHAs it returns are the contents API's file SHAs, so a program that needs a write still
 * writes by compare-and-swap against exactly what was read.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { gitAuthEnv } from './credentials.js'
import { runGit } from './process.js'
import { ActionError } from '../core/errors.js'
import type { MemoryBranchReader, StoredState } from '../ports.js'

export interface GitMemoryBranchOptions {
  /** `https://github.com/owner/repo.git`, or the fake's. */
  remoteUrl: string
  serverUrl: string
  token: string
  /** Where the throwaway repository goes (RUNNER_TEMP). */
  tempDir: string
}

/** git's stdout as bytes; throws on a failure. */
async function gitBytes(
  args: string[],
  cwd: string,
  options: { input?: string; env?: Record<string, string> } = {}
): Promise<Buffer> {
  const result = await runGit(args, { cwd, ...options })
  if (result.code !== 0)
    throw new Error(`git ${args.join(' ')}: ${result.stderr.trim() || `exit code ${result.code}`}`)
  return result.stdout
}

/** git's stdout as text; throws on a failure. */
async function git(
  args: string[],
  cwd: string,
  options: { env?: Record<string, string> } = {}
): Promise<string> {
  return (await gitBytes(args, cwd, options)).toString('utf8')
}

/** Which files of the branch reconcile reads: the state files and the ledgers. */
export function isProgramFile(path: string): boolean {
  return /^[^/]+\.md$/.test(path) || /^ci-gate\/[^/]+\.json$/.test(path)
}

/** Parses `git cat-file --batch` output: per object a `<sha> blob <size>` line, its bytes, `\n`. */
function parseBatch(output: Buffer, shas: readonly string[]): Map<string, string> {
  const texts = new Map<string, string>()
  let at = 0
  for (const sha of shas) {
    const headerEnd = output.indexOf(0x0a, at)
    const header = output.subarray(at, headerEnd).toString('latin1').split(' ')
    const size = Number(header[2])
    if (headerEnd === -1 || header[0] !== sha || !Number.isFinite(size))
      throw new Error(`unexpected git cat-file output for ${sha}`)
    texts.set(sha, output.subarray(headerEnd + 1, headerEnd + 1 + size).toString('utf8'))
    at = headerEnd + 1 + size + 1
  }
  return texts
}

export function gitMemoryBranchReader(options: GitMemoryBranchOptions): MemoryBranchReader {
  return {
    async read(branch) {
      const dir = await mkdtemp(join(options.tempDir, 'autoloop-memory-'))
      try {
        await git(['init', '--bare', '-q'], dir)
        try {
          await git(
            [
              'fetch',
              '--depth=1',
              '--no-tags',
              '-q',
              options.remoteUrl,
              `+refs/heads/${branch}:refs/memory`
            ],
            dir,
            { env: gitAuthEnv(options.serverUrl, options.token, process.env) }
          )
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error)
          if (/couldn't find remote ref|not found/i.test(message)) return null
          throw new ActionError(`Cannot fetch ${branch} with git: ${message}`, {
            fix: 'give the job `contents: read` (or write) on the repository, and check GITHUB_SERVER_URL'
          })
        }
        const commit = (await git(['rev-parse', 'refs/memory'], dir)).trim()
        const listing = await git(['ls-tree', '-r', '-z', 'refs/memory'], dir)
        const entries = listing
          .split('\0')
          .filter(Boolean)
          .map((line) => {
            const tab = line.indexOf('\t')
            const [, type, sha] = line.slice(0, tab).split(' ')
            return { type, sha: sha as string, path: line.slice(tab + 1) }
          })
          .filter((entry) => entry.type === 'blob' && isProgramFile(entry.path))
        const shas = [...new Set(entries.map((entry) => entry.sha))]
        const texts =
          shas.length === 0
            ? new Map<string, string>()
            : parseBatch(
                await gitBytes(['cat-file', '--batch'], dir, { input: `${shas.join('\n')}\n` }),
                shas
              )
        const files = new Map<string, StoredState>()
        for (const entry of entries)
          files.set(entry.path, { text: texts.get(entry.sha) ?? '', version: entry.sha })
        return { commit, files }
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    }
  }
}
