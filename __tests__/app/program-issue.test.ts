import { describe, expect, it } from '@jest/globals'
import { STATUS_SENTINEL, commentMarker } from '../../src/render/comments.js'
import { type IssueComment, type IssuesPort } from '../../src/ports.js'
import {
  MAX_CREATE_ATTEMPTS,
  upsertMarkedComment,
  upsertStatusComment
} from '../../src/app/program-issue.js'

/** Issue comments in memory; `lose` answers of posts fail after the comment was created. */
function issues(initial: string[] = []) {
  let next = 1
  const comments: IssueComment[] = initial.map((body) => ({ id: next++, body }))
  const calls: string[] = []
  let lose = 0
  let refuse = 0
  const port: IssuesPort = {
    async listComments() {
      calls.push('list')
      return comments.map((c) => ({ ...c }))
    },
    async createComment(_issue, body) {
      calls.push('create')
      if (refuse > 0) {
        refuse -= 1
        throw new Error('502 Bad Gateway')
      }
      const comment = { id: next++, body }
      comments.push(comment)
      if (lose > 0) {
        lose -= 1
        throw new Error('socket hang up')
      }
      return comment
    },
    async updateComment(id, body) {
      calls.push(`update ${id}`)
      const comment = comments.find((c) => c.id === id)
      if (comment) comment.body = body
    },
    issueLabels: async () => [],
    addLabel: async () => undefined,
    removeLabel: async () => undefined
  }
  return {
    port,
    comments,
    calls,
    loseNext: (n: number) => void (lose = n),
    refuseNext: (n: number) => void (refuse = n)
  }
}

const status = (text: string) => `${STATUS_SENTINEL}\n${text}`

describe('the status comment', () => {
  it('is posted once, then edited; unchanged text is not written again', async () => {
    const issue = issues(['a human comment'])
    expect(await upsertStatusComment(issue.port, 7, status('one'))).toBe('created')
    expect(await upsertStatusComment(issue.port, 7, status('two'))).toBe('updated')
    expect(await upsertStatusComment(issue.port, 7, status('two'))).toBe('unchanged')
    expect(issue.comments.map((c) => c.body)).toEqual(['a human comment', status('two')])
  })

  it('is the earliest comment holding the sentinel (one quoted later is not it)', async () => {
    const issue = issues([status('autoloop’s own'), `quoting it: ${STATUS_SENTINEL}`])
    expect(await upsertStatusComment(issue.port, 7, status('new'))).toBe('updated')
    expect(issue.calls).toContain('update 1')
    expect(issue.comments[1]?.body).toBe(`quoting it: ${STATUS_SENTINEL}`)
  })
})

describe('a marked comment', () => {
  const marker = commentMarker('pause', '2026-03-01T12:00:00.000Z/abc')

  it('is found by the marker on its first line: a re-run edits it, never posts it twice', async () => {
    const issue = issues([`someone quoting ${marker}`])
    expect(await upsertMarkedComment(issue.port, 7, marker, `${marker}\nfirst`)).toBe('created')
    expect(await upsertMarkedComment(issue.port, 7, marker, `${marker}\nagain`)).toBe('updated')
    expect(issue.comments.filter((c) => c.body.startsWith(marker))).toHaveLength(1)
    expect(issue.comments[0]?.body).toBe(`someone quoting ${marker}`)
  })

  it('a post whose answer was lost is found before posting again', async () => {
    const issue = issues()
    issue.loseNext(1)
    expect(await upsertMarkedComment(issue.port, 7, marker, `${marker}\nbody`)).toBe('created')
    expect(issue.comments).toHaveLength(1)
    expect(issue.calls).toEqual(['list', 'create', 'list'])
  })

  it(`a post refused ${MAX_CREATE_ATTEMPTS} times gives up with the error, posting nothing blind`, async () => {
    const issue = issues()
    issue.refuseNext(MAX_CREATE_ATTEMPTS)
    await expect(upsertMarkedComment(issue.port, 7, marker, `${marker}\nbody`)).rejects.toThrow(
      '502 Bad Gateway'
    )
    expect(issue.calls.filter((call) => call === 'create')).toHaveLength(MAX_CREATE_ATTEMPTS)
    expect(issue.comments).toEqual([])
    const retried = issues()
    retried.refuseNext(MAX_CREATE_ATTEMPTS - 1)
    expect(await upsertMarkedComment(retried.port, 7, marker, `${marker}\nbody`)).toBe('created')
    expect(retried.comments).toHaveLength(1)
  })
})
