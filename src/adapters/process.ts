/**
 * The one way the adapters run git (README: "Development"): no terminal prompt, the C locale,
 * output collected as bytes, the exit code returned rather than thrown. The fix command runs
 * through `fix-command.ts` instead: it needs a shell, its own process group and a timeout.
 */
import { spawn } from 'node:child_process'

export interface GitResult {
  /** The exit code; 1 when git could not be started (the cause is in `stderr`). */
  code: number
  stdout: Buffer
  stderr: string
}

export interface GitRunOptions {
  cwd: string
  /** Added to the job's environment (credentials travel here, never in argv). */
  env?: Record<string, string>
  /** Written to git's stdin, which is closed either way. */
  input?: string
}

export function runGit(args: readonly string[], options: GitRunOptions): Promise<GitResult> {
  return new Promise((resolve) => {
    const child = spawn('git', args, {
      cwd: options.cwd,
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', ...options.env }
    })
    const stdout: Buffer[] = []
    let stderr = ''
    let started = true
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdin.on('error', () => undefined)
    child.on('error', (error) => {
      started = false
      resolve({ code: 1, stdout: Buffer.alloc(0), stderr: error.message })
    })
    child.on('close', (code) => {
      if (started) resolve({ code: code ?? 1, stdout: Buffer.concat(stdout), stderr })
    })
    child.stdin.end(options.input)
  })
}
