/**
 * The standard runner environment, read once (docs/inputs-outputs.md: "Inputs and outputs"). The same
 * variables drive the action and the CLI, so GitHub Enterprise Server and a local fake API
 * work by setting GITHUB_API_URL.
 */
import { ActionError } from './errors.js'
import type { RepoRef } from './github.js'

export interface Environment {
  repository: RepoRef
  apiUrl: string
  serverUrl: string
  runId: number | undefined
  runAttempt: number | undefined
  /** GITHUB_ACTOR: who started the workflow run (named by `reset`). */
  actor?: string | undefined
  workspace: string
  tempDir: string
  /** GITHUB_EVENT_NAME and GITHUB_EVENT_PATH: the event that started the run (`settle` reads it). */
  eventName?: string | undefined
  eventPath?: string | undefined
}

function positiveInteger(raw: string | undefined): number | undefined {
  return raw && /^[0-9]+$/.test(raw) ? Number(raw) : undefined
}

export function readEnvironment(env: NodeJS.ProcessEnv, cwd: string): Environment {
  const repository = env.GITHUB_REPOSITORY ?? ''
  const [owner, repo, ...rest] = repository.split('/')
  if (!owner || !repo || rest.length > 0)
    throw new ActionError(`GITHUB_REPOSITORY is "${repository}", not owner/repo`, {
      fix: 'run the action inside GitHub Actions, or set GITHUB_REPOSITORY=owner/repo for the CLI.'
    })
  return {
    repository: { owner, repo },
    apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
    serverUrl: (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, ''),
    runId: positiveInteger(env.GITHUB_RUN_ID),
    runAttempt: positiveInteger(env.GITHUB_RUN_ATTEMPT),
    actor: env.GITHUB_ACTOR || undefined,
    workspace: env.GITHUB_WORKSPACE || cwd,
    tempDir: env.RUNNER_TEMP || env.TMPDIR || '/tmp',
    eventName: env.GITHUB_EVENT_NAME || undefined,
    eventPath: env.GITHUB_EVENT_PATH || undefined
  }
}

/** `owner/repo`. */
export function repositoryName(environment: Pick<Environment, 'repository'>): string {
  return `${environment.repository.owner}/${environment.repository.repo}`
}

/** The browser link of a workflow run of this repository (this run when no id is given). */
export function runUrl(
  environment: Pick<Environment, 'repository' | 'serverUrl' | 'runId'>,
  runId: number | null | undefined = environment.runId
): string | null {
  if (runId === undefined || runId === null) return null
  return `${environment.serverUrl}/${repositoryName(environment)}/actions/runs/${runId}`
}
