/** The program issue's comments and labels (IssuesPort). */
import { PAGE_SIZE, type RestRequests } from './requests.js'
import { httpStatus } from '../../core/errors.js'
import type { IssueComment } from '../../ports.js'

export class RestIssues {
  constructor(private readonly api: RestRequests) {}

  async listComments(issue: number): Promise<IssueComment[]> {
    const { client } = this.api
    const comments = await client.paginate(client.rest.issues.listComments, {
      ...this.api.repo,
      issue_number: issue,
      per_page: PAGE_SIZE
    })
    return comments.map((comment) => ({ id: comment.id, body: comment.body ?? '' }))
  }

  async createComment(issue: number, body: string): Promise<IssueComment> {
    // Not retried by the client: a lost answer may hide a created comment, so the caller
    // looks for it before posting again (README: "The state file and the program issue").
    const { data } = await this.api.client.rest.issues.createComment({
      ...this.api.repo,
      issue_number: issue,
      body,
      request: { retries: 0 }
    })
    return { id: data.id, body: data.body ?? body }
  }

  async updateComment(commentId: number, body: string): Promise<void> {
    await this.api.client.rest.issues.updateComment({
      ...this.api.repo,
      comment_id: commentId,
      body
    })
  }

  async issueLabels(issue: number): Promise<string[]> {
    const { data } = await this.api.client.rest.issues.get({
      ...this.api.repo,
      issue_number: issue
    })
    return data.labels.map((label) => (typeof label === 'string' ? label : (label.name ?? '')))
  }

  async addLabel(issue: number, label: string): Promise<void> {
    await this.api.client.rest.issues.addLabels({
      ...this.api.repo,
      issue_number: issue,
      labels: [label]
    })
  }

  async removeLabel(issue: number, label: string): Promise<void> {
    try {
      await this.api.client.rest.issues.removeLabel({
        ...this.api.repo,
        issue_number: issue,
        name: label
      })
    } catch (error) {
      if (httpStatus(error) !== 404) throw error
    }
  }
}
