/**
 * Runs the action in-process through the same `run(deps)` the bundle runs, against the fake
 * GitHub API: the real adapters (Octokit with its plugins, git, the state stores) built by
 * `realConnect`, with the fake's virtual clock injected. Every request the action sends is
 * still an HTTP request to the fake, checked against GitHub's OpenAPI description.
 */
import type { FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { memoryLogger } from '../../__fixtures__/log.js'
import { realConnect } from '../../src/deps.js'
import { run } from '../../src/main.js'
import type { ActionRun } from './run-action.js'
import { tempDir } from './temp-dir.js'

export interface InProcessOptions {
  inputs: Record<string, string>
  /** Runner variables over the defaults (GITHUB_RUN_ID 9000, attempt 1, the fake's URLs). */
  env?: Record<string, string | undefined>
  /** The workspace (GITHUB_WORKSPACE); a new temp folder by default. */
  cwd?: string
  /** Whether a folder exists (gh-aw's repo-memory folder); none does by default. */
  exists?: (path: string) => boolean
}

export interface InProcessRun extends ActionRun {
  /** Every log line, with `warning: ` / `error: ` / `debug: ` prefixes. */
  log: string[]
}

export async function runInProcess(fake: FakeGitHub, options: InProcessOptions): Promise<InProcessRun> {
  const dir = tempDir('autoloop-run-')
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
      clock: fake.clock,
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
