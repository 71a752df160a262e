/**
 * `POST /graphql`, for the one mutation gh-aw's runtime sends: `createCommitOnBranch` (its
 * signed-commit push, README: "GraphQL"; the action's state writes too), and the one query
 * the action sends: `repository { … }` (the state branch's head and files as blobs, a branch's
 * head commit and open pull request, the default branch), parsed and checked against the part
 * of GitHub's schema in graphql-query.ts. GitHub's REST description does not cover GraphQL, so
 * the request is checked here against the types it uses instead; any other operation is
 * answered with a GraphQL error and counted as unimplemented. Refuse the mutation
 * with a fault on route `POST /graphql` to make gh-aw fall back to `git push`.
 */
import type { Model } from './model.js'
import type { Reply } from './shapes.js'
import { answerQuery, checkQuery, parseQuery, type ParsedQuery } from './graphql-query.js'

export const GRAPHQL_ROUTE = 'POST /graphql'

interface Checked {
  /** Problems with the request, as the OpenAPI check reports them. */
  errors: string[]
  implemented: boolean
  run: () => Reply
}

const gqlError = (type: string, message: string): Reply => ({
  status: 200,
  body: {
    data: { createCommitOnBranch: null },
    errors: [{ type, message, path: ['createCommitOnBranch'] }]
  }
})

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Checks a GraphQL request and prepares its answer. */
export function graphqlRequest(model: Model, body: unknown): Checked {
  if (!isObject(body) || typeof body.query !== 'string')
    return {
      errors: ['body: a GraphQL request needs a string `query`'],
      implemented: true,
      run: () => ({ status: 400, body: { message: 'Problems parsing JSON' } })
    }
  if (/^\s*query\b[\s\S]*\brepository\s*\(/.test(body.query))
    return repositoryQuery(model, body.query, isObject(body.variables) ? body.variables : {})
  if (!/\bmutation\b[\s\S]*\bcreateCommitOnBranch\s*\(/.test(body.query))
    return {
      errors: [],
      implemented: false,
      run: () => ({
        status: 200,
        body: { errors: [{ message: 'fake GitHub: only createCommitOnBranch is served' }] }
      })
    }
  const variables = isObject(body.variables) ? body.variables : {}
  const input = variables.input
  const errors: string[] = []
  if (!isObject(input)) {
    errors.push('variables.input: CreateCommitOnBranchInput! is required')
    return { errors, implemented: true, run: () => gqlError('INVALID', errors.join('; ')) }
  }
  const branch = isObject(input.branch) ? input.branch : {}
  const nameWithOwner = branch.repositoryNameWithOwner
  if (typeof nameWithOwner !== 'string' || !/^[^/]+\/[^/]+$/.test(nameWithOwner))
    errors.push('input.branch.repositoryNameWithOwner: owner/name is required')
  if (typeof branch.branchName !== 'string' || branch.branchName === '')
    errors.push('input.branch.branchName: String is required')
  if (typeof input.expectedHeadOid !== 'string' || !/^[0-9a-f]{40}$/.test(input.expectedHeadOid))
    errors.push('input.expectedHeadOid: GitObjectID! (40 hex digits) is required')
  const message = isObject(input.message) ? input.message : {}
  if (typeof message.headline !== 'string' || message.headline === '')
    errors.push('input.message.headline: String! is required')
  if (message.body !== undefined && typeof message.body !== 'string')
    errors.push('input.message.body: String')
  const changes = isObject(input.fileChanges) ? input.fileChanges : {}
  const additions: Record<string, Buffer> = {}
  const deletions: string[] = []
  for (const [i, added] of (Array.isArray(changes.additions) ? changes.additions : []).entries()) {
    if (!isObject(added) || typeof added.path !== 'string' || typeof added.contents !== 'string')
      errors.push(`input.fileChanges.additions[${i}]: {path: String!, contents: Base64String!}`)
    else additions[added.path] = Buffer.from(added.contents, 'base64')
  }
  for (const [i, removed] of (Array.isArray(changes.deletions)
    ? changes.deletions
    : []
  ).entries()) {
    if (!isObject(removed) || typeof removed.path !== 'string')
      errors.push(`input.fileChanges.deletions[${i}]: {path: String!}`)
    else deletions.push(removed.path)
  }
  if (errors.length > 0)
    return { errors, implemented: true, run: () => gqlError('INVALID', errors.join('; ')) }
  return {
    errors,
    implemented: true,
    run: () => {
      const [owner, repo] = (nameWithOwner as string).split('/')
      if (
        owner?.toLowerCase() !== model.state.owner.toLowerCase() ||
        repo?.toLowerCase() !== model.state.repo.toLowerCase()
      )
        return gqlError(
          'NOT_FOUND',
          `Could not resolve to a Repository with the name '${nameWithOwner as string}'.`
        )
      const result = model.createCommitOnBranch({
        branch: branch.branchName as string,
        expectedHeadOid: input.expectedHeadOid as string,
        additions,
        deletions,
        message: [message.headline, message.body].filter((part) => part).join('\n\n')
      })
      if ('error' in result) return gqlError(result.type, result.error)
      return {
        status: 200,
        body: { data: { createCommitOnBranch: { commit: { oid: result.oid } } } }
      }
    }
  }
}

/** A `query` of the repository, parsed and checked against the schema (graphql-query.ts). */
function repositoryQuery(model: Model, text: string, variables: Record<string, unknown>): Checked {
  let errors: string[]
  let parsed: ParsedQuery | null = null
  try {
    parsed = parseQuery(text)
    errors = checkQuery(parsed, variables)
  } catch (error) {
    errors = [`query: ${(error as Error).message}`]
  }
  const query = parsed
  if (errors.length > 0 || !query)
    return {
      errors,
      implemented: true,
      run: () => ({ status: 200, body: { errors: errors.map((message) => ({ message })) } })
    }
  return {
    errors,
    implemented: true,
    run: () => ({ status: 200, body: answerQuery(model, query, variables) })
  }
}
