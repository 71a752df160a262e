/**
 * The action run in-process through the same `run(deps)` the bundle runs, against the fake
 * GitHub API: the real adapters (Octokit with its plugins, git, the state stores) built by
 * `realConnect`, on the fake's virtual clock (or a clock that wraps it). Every request the
 * action sends is still an HTTP request to the fake, checked against GitHub's OpenAPI
 * description. No jest here, so the chaos suite's command-line runner uses it too; tests use
 * `runInProcess` (`in-process.ts`), which adds a temp folder that is always removed.
 */
import type { FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { memoryLogger } from '../../__fixtures__/log.js'
import type { Clock } from '../../src/clock.js'
import { realConnect } from '../../src/deps.js'
import { run } from '../../src/main.js'
import type { ActionRun } from './run-action.js'

export interface InProcessOptions {
  inputs: Record<string, string>
  /** Runner variables over the defaults (GITHUB_RUN_ID 9000, attempt 1, the fake's URLs). */
  env?: Record<string, string | undefined>
  /** The workspace (GITHUB_WORKSPACE); the run's temp folder by default. */
  cwd?: string
  /** Whether a folder exists (gh-aw's repo-memory folder); none does by default. */
  exists?: (path: string) => boolean
}

export interface InProcessRun extends ActionRun {
  /** Every log line, with `warning: ` / `error: ` / `debug: ` prefixes. */
  log: string[]
}

export interface ActionInProcessOptions extends InProcessOptions {
  /** RUNNER_TEMP (and the workspace unless `cwd` is given); the caller removes it. */
  tempDir: string
  /** The action's clock; `fake.clock` by default. */
  clock?: Clock
}

export async function runActionInProcess(
  fake: FakeGitHub,
  options: ActionInProcessOptions
): Promise<InProcessRun> {
  const dir = options.tempDir
  const env: Record<string, string> = {
    GITHUB_API_URL: fake.apiUrl,
    GITHUB_SERVER_URL: fake.serverUrl,
    GITHUB_REPOSITORY: `${fake.state.owner}/${fake.state.repo}`,
    GITHUB_RUN_ID: '9000',
    GITHUB_RUN_ATTEMPT: '1',
    RUNNER_TEMP: dir,
    GITHUB_WORKSPACE: options.cwd ?? dir,
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
    connect: realConnect({
      env,
      cwd: options.cwd ?? dir,
      log,
      clock: options.clock ?? fake.clock,
      client: { retryBackoffMs: 1 },
      exists: options.exists ?? (() => false)
    })
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
