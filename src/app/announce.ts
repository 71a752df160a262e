/**
 * What a command says on the program issue, in one place: the status comment (edited in
 * place from Machine State) and, when given, one marked comment (a pause, a resume, a reset,
 * an iteration). A comment that cannot be written is a warning, never a failure: the state
 * files already hold what happened.
 */
import { repositoryName } from '../core/environment.js'
import { renderStatusComment } from '../render/comments.js'
import { upsertMarkedComment, upsertStatusComment } from './program-issue.js'
import type { MachineState } from '../core/schema.js'
import { errorMessage } from '../core/errors.js'
import type { CommandDeps } from './command-deps.js'

/** The program issue: the `issue` input, else the state file's Issue row. */
export function issueOf(
  config: { issue?: number | undefined },
  machine: MachineState
): number | undefined {
  return config.issue ?? machine.issue ?? undefined
}

/** How the state file is named in comments and summaries. */
export function stateFileLabel(deps: Pick<CommandDeps, 'store'>, program: string): string {
  return `${program}.md (${deps.store.description})`
}

export interface Announcement {
  program: string
  machine: MachineState
  /** The `issue` input, when given. */
  issue: number | undefined
  /** A comment of its own, found again by its marker (its first line) on a re-run. */
  comment?: { marker: string; body: string }
}

/** Edits the status comment and posts (or edits) the marked comment; returns the issue used. */
export async function announce(
  deps: Pick<CommandDeps, 'issues' | 'store' | 'environment' | 'log'>,
  announcement: Announcement
): Promise<number | undefined> {
  const { program, machine } = announcement
  const issue = issueOf({ issue: announcement.issue }, machine)
  if (issue === undefined) {
    deps.log.info(
      `No program issue (input \`issue\` or the state file's Issue row): ${program} is recorded in the state file only`
    )
    return undefined
  }
  try {
    // One read of the comments for both: the status comment never carries a marker, so the
    // marked comment's lookup is not changed by the status comment's write.
    const comments = await deps.issues.listComments(issue)
    await upsertStatusComment(
      deps.issues,
      issue,
      renderStatusComment({
        program,
        state: machine,
        stateFile: { label: stateFileLabel(deps, program), url: null },
        serverUrl: deps.environment.serverUrl,
        repository: repositoryName(deps.environment)
      }),
      comments
    )
    const comment = announcement.comment
    if (comment)
      await upsertMarkedComment(deps.issues, issue, comment.marker, comment.body, comments)
  } catch (error) {
    deps.log.warning(`Could not comment on issue #${issue}: ${errorMessage(error)}`)
  }
  return issue
}
