/**
 * What every command gets from the shell (`main.ts`) and gives back to it. The adapters are
 * built once in `deps.ts`; commands see them only through these ports.
 */
import type { Clock } from '../ports.js'
import type { Environment } from '../core/environment.js'
import type { FailureSources } from '../ports.js'
import type { GitPort } from '../ports.js'
import type { GitHubPort } from '../ports.js'
import type { IssuesPort } from '../ports.js'
import type { Logger } from '../ports.js'
import type { Outputs } from './outputs.js'
import type { MemoryBranchReader } from '../ports.js'
import type { ContentsApi, StateStore, WorkflowFolder } from '../ports.js'

export interface CommandDeps {
  clock: Clock
  log: Logger
  environment: Environment
  github: GitHubPort
  failures: FailureSources
  issues: IssuesPort
  store: StateStore
  git: GitPort
  /** Runs `fix-command` in the workspace with extra environment variables. */
  runFixCommand(
    command: string,
    env: Record<string, string>,
    timeoutMs: number
  ): Promise<{ exitCode: number }>
  writeFile(path: string, text: string): Promise<void>
  /** A file a workflow handed over (the scheduler's selection, the agent's iteration file). */
  readFile(path: string): Promise<string | null>
  /** The workspace checkout's `.github/workflows/` (the doctor reads it). */
  checkoutWorkflows: WorkflowFolder
  /** Files of the repository through the contents API (the doctor, when there is no checkout). */
  repoContents?: Pick<ContentsApi, 'getFile' | 'listDir'>
  /** Reads the state branch with git (no REST rate limit); absent for a folder store. */
  memoryBranch?: MemoryBranchReader
  /** Jitter for retries; Math.random by default. */
  random?: () => number
  /** Values the runner masks (tokens); redacted from everything written. */
  maskedValues: readonly string[]
}

/** What a command returns to the shell. */
export interface CommandResult {
  outputs: Outputs
  /** Markdown for the job summary. */
  summary: string
  /** One line for the log. */
  message: string
  /** Set when the step must fail although the action itself worked (`fail-on-red`). */
  failure?: string
}
