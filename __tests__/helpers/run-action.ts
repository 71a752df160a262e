/**
 * Runs the bundled action the way the runner does: `node dist/index.js` with `INPUT_*`
 * variables, the GITHUB_* environment, and the output and step-summary files. For the smoke
 * tests of the bundle; every other integration test runs the action in-process.
 */
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseOutputFile } from './output-file.js'
import { tempDir } from './temp-dir.js'

export { parseOutputFile }

export const DIST_ENTRY = resolve(import.meta.dirname, '../../dist/index.js')

export interface ActionRun {
  exitCode: number
  stdout: string
  stderr: string
  outputs: Record<string, string>
  summary: string
  /** Lines the runner would show as annotations (`::error::`, `::warning::`). */
  errors: string[]
  warnings: string[]
}

export interface RunActionOptions {
  inputs: Record<string, string>
  env?: Record<string, string | undefined>
  cwd?: string
  timeoutMs?: number
}

export function inputEnv(inputs: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(inputs).map(([name, value]) => [
      `INPUT_${name.replace(/ /g, '_').toUpperCase()}`,
      value
    ])
  )
}

export async function runAction(options: RunActionOptions): Promise<ActionRun> {
  if (!existsSync(DIST_ENTRY)) throw new Error(`${DIST_ENTRY} is missing: run npm run build`)
  const dir = tempDir('autoloop-action-')
  const outputFile = join(dir, 'output')
  const summaryFile = join(dir, 'summary')
  writeFileSync(outputFile, '')
  writeFileSync(summaryFile, '')
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    GITHUB_ACTIONS: 'true',
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_REPOSITORY: 'octo/app',
    GITHUB_SERVER_URL: 'https://github.example',
    GITHUB_RUN_ID: '9000',
    GITHUB_RUN_ATTEMPT: '1',
    RUNNER_TEMP: dir,
    ...inputEnv({ 'github-token': 'test-token', ...options.inputs })
  }
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  const child = spawn(process.execPath, [DIST_ENTRY], {
    cwd: options.cwd ?? dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const timeoutMs = options.timeoutMs ?? 30_000
  const exitCode = await new Promise<number>((resolveExit, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the action did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`))
    }, timeoutMs)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolveExit(code ?? 1)
    })
  })
  const lines = stdout.split('\n')
  return {
    exitCode,
    stdout,
    stderr,
    outputs: parseOutputFile(readFileSync(outputFile, 'utf8')),
    summary: readFileSync(summaryFile, 'utf8'),
    errors: lines
      .filter((l) => l.startsWith('::error'))
      .map((l) => l.replace(/^::error[^:]*::/, '')),
    warnings: lines
      .filter((l) => l.startsWith('::warning'))
      .map((l) => l.replace(/^::warning[^:]*::/, ''))
  }
}
