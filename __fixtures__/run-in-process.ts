/**
 * Runs the action in-process through the same `run(deps)` the bundle runs, against the fake
 * GitHub API: the real adapters (Octokit with its plugins, git, the state stores) built by
 * `realConnect`, with the fake's clock injected. API requests go through `fake.fetch` (in
 * memory, no socket; validated and charged like over HTTP) unless `overHttp` is set; git
 * (push, fetch) always talks to the fake's HTTP server. For tests (through `__tests__/helpers/in-process.ts`), benchmarks
 * and the chaos suite.
 */
import { memoryLogger } from './log.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startFakeGitHub, type FakeGitHub, type Scenario } from './fake-github/index.js'
import { realConnect } from '../src/deps.js'
import { run, type Adapters } from '../src/main.js'
import type { Clock } from '../src/ports.js'

export interface InProcessOptions {
  inputs: Record<string, string>
  /** Runner variables over the defaults (GITHUB_RUN_ID 9000, attempt 1, the fake's URLs). */
  env?: Record<string, string | undefined>
  /** The workspace (GITHUB_WORKSPACE); `tempDir` by default. */
  cwd?: string
  /** Whether a folder exists (gh-aw's repo-memory folder); none does by default. */
  exists?: (path: string) => boolean
  /** Changes the real adapters before the command gets them (a benchmark's other mode). */
  adapt?: (adapters: Adapters) => Adapters
  /** The action's clock; `fake.clock` by default (the chaos suite wraps it to crash a job). */
  clock?: Clock
  /** Send API requests over the fake's HTTP server instead of `fake.fetch`. */
  overHttp?: boolean
}

export interface InProcessRun {
  exitCode: number
  /** Every log line joined (the runner's stdout, without workflow commands). */
  stdout: string
  stderr: string
  outputs: Record<string, string>
  summary: string
  /** `setFailed` messages and error lines. */
  errors: string[]
  warnings: string[]
  /** Every log line, with `warning: ` / `error: ` / `debug: ` prefixes. */
  log: string[]
}

/** Runs one command; `tempDir` is RUNNER_TEMP (and the workspace unless `cwd` is given). */
export async function runActionInProcess(
  fake: FakeGitHub,
  tempDir: string,
  options: InProcessOptions
): Promise<InProcessRun> {
  const env: Record<string, string> = {
    GITHUB_API_URL: fake.apiUrl,
    GITHUB_SERVER_URL: fake.serverUrl,
    GITHUB_REPOSITORY: `${fake.state.owner}/${fake.state.repo}`,
    GITHUB_RUN_ID: '9000',
    GITHUB_RUN_ATTEMPT: '1',
    RUNNER_TEMP: tempDir,
    GITHUB_WORKSPACE: options.cwd ?? tempDir,
    PATH: process.env.PATH ?? ''
  }
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  const inputs: Record<string, string> = { 'github-token': 'test-token', ...options.inputs }
  const log = memoryLogger()
  const outputs: Record<string, string> = {}
  const failures: string[] = []
  let summary = ''
  await run({
    io: {
      readInput: (name) => (inputs[name] ?? '').trim(),
      setOutput: (name, value) => {
        outputs[name] = value
      },
      async writeSummary(markdown) {
        summary += markdown
      },
      setFailed: (message) => void failures.push(message),
      setSecret: () => undefined
    },
    log,
    connect: async (config) => {
      const adapters = await realConnect({
        env,
        cwd: options.cwd ?? tempDir,
        log,
        clock: options.clock ?? fake.clock,
        client: { retryBackoffMs: 1, ...(options.overHttp ? {} : { fetch: fake.fetch }) },
        exists: options.exists ?? (() => false)
      })(config)
      return options.adapt ? options.adapt(adapters) : adapters
    }
  })
  const prefixed = (prefix: string) =>
    log.lines.filter((line) => line.startsWith(prefix)).map((line) => line.slice(prefix.length))
  return {
    exitCode: failures.length > 0 ? 1 : 0,
    stdout: log.lines.join('\n'),
    stderr: '',
    outputs,
    summary,
    errors: [...failures, ...prefixed('error: ')],
    warnings: prefixed('warning: '),
    log: log.lines
  }
}

/**
 * For the benchmarks: a fake GitHub started for `scenario`, one run of the action against it
 * in a fresh temporary folder (`options` may name it, e.g. as `state-dir`), and `read` of what
 * the run left; the fake and the folder are gone afterwards, whatever `read` does.
 */
export async function runOnFreshFake<T>(
  scenario: Scenario,
  options: InProcessOptions | ((dir: string) => InProcessOptions),
  read: (fake: FakeGitHub, run: InProcessRun, dir: string) => T | Promise<T>
): Promise<T> {
  const fake = await startFakeGitHub({ scenario })
  const dir = mkdtempSync(join(tmpdir(), 'autoloop-bench-'))
  try {
    const run = await runActionInProcess(
      fake,
      dir,
      typeof options === 'function' ? options(dir) : options
    )
    return await read(fake, run, dir)
  } finally {
    await fake.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
