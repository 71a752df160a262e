/**
 * Finds and edits this action's comments on the program issue, so a re-run edits rather
 * than duplicates: the status comment is the earliest comment holding the autoloop
 * sentinel; every other comment is found by its hidden marker.
 */
import type { IssuesPort, IssueComment, CommentWrite } from '../ports.js'
import { STATUS_SENTINEL } from '../render/comments.js'

/** Posts of one comment at most, each after making sure an earlier one did not land. */
export const MAX_CREATE_ATTEMPTS = 3

async function upsert(
  port: IssuesPort,
  issue: number,
  body: string,
  find: (comments: IssueComment[]) => IssueComment | undefined,
  listed?: IssueComment[]
): Promise<CommentWrite> {
  let existing = find(listed ?? (await port.listComments(issue)))
  for (let attempt = 1; !existing; attempt++) {
    try {
      await port.createComment(issue, body)
      return 'created'
    } catch (error) {
      // A post whose answer was lost (5xx, dropped connection) may have created the comment:
      // look for it before posting again, never post blind.
      existing = find(await port.listComments(issue))
      if (existing?.body === body) return 'created'
      if (!existing && attempt >= MAX_CREATE_ATTEMPTS) throw error
    }
  }
  if (existing.body === body) return 'unchanged'
  await port.updateComment(existing.id, body)
  return 'updated'
}

/**
 * Edits the earliest comment holding `<!-- AUTOLOOP:STATUS -->`, or posts one. `listed`: the
 * issue's comments when the caller has just read them (the first look uses them).
 */
export function upsertStatusComment(
  port: IssuesPort,
  issue: number,
  body: string,
  listed?: IssueComment[]
): Promise<CommentWrite> {
  return upsert(
    port,
    issue,
    body,
    (comments) => comments.find((c) => c.body.includes(STATUS_SENTINEL)),
    listed
  )
}

/** Edits the comment carrying `marker` (its first line), or posts one; `listed` as above. */
export function upsertMarkedComment(
  port: IssuesPort,
  issue: number,
  marker: string,
  body: string,
  listed?: IssueComment[]
): Promise<CommentWrite> {
  return upsert(
    port,
    issue,
    body,
    (comments) => comments.find((c) => c.body.startsWith(marker)),
    listed
  )
}
