/**
 * What `record`, `reset` and `reconcile` share on the program issue: which issue, how the
 * state file is named, and the status comment kept up to date from Machine State.
 */
import type { MachineState } from '../state/schema.js'
import { renderStatusComment } from '../issue/comments.js'
import { upsertStatusComment } from '../issue/program-issue.js'
import type { CommandDeps } from './types.js'

/** The program issue: the `issue` input, else the state file's Issue row. */
export function issueOf(
  config: { issue: number | undefined },
  machine: MachineState
): number | undefined {
  return config.issue ?? machine.issue ?? undefined
}

export function stateFileLabel(deps: Pick<CommandDeps, 'store'>, program: string): string {
  return `${program}.md (${deps.store.description})`
}

export function repositoryOf(deps: Pick<CommandDeps, 'environment'>): string {
  const { owner, repo } = deps.environment.repository
  return `${owner}/${repo}`
}

/** The browser link of a workflow run of this repository. */
export function runLink(
  deps: Pick<CommandDeps, 'environment'>,
  runId: number | null
): string | null {
  return runId ? `${deps.environment.serverUrl}/${repositoryOf(deps)}/actions/runs/${runId}` : null
}

/** Edits (or posts) the status comment from the Machine State just written. */
export async function announceStatus(
  deps: Pick<CommandDeps, 'issues' | 'store' | 'environment'>,
  program: string,
  machine: MachineState,
  issue: number
): Promise<void> {
  await upsertStatusComment(
    deps.issues,
    issue,
    renderStatusComment({
      program,
      state: machine,
      stateFile: { label: stateFileLabel(deps, program), url: null },
      serverUrl: deps.environment.serverUrl,
      repository: repositoryOf(deps)
    })
  )
}
