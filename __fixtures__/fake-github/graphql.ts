/**
 * `POST /graphql`, for the one mutation gh-aw's runtime sends: `createCommitOnBranch` (its
 * signed-commit push, README: "GraphQL"; the action's state writes too), and the one query
 * the action sends: a branch's head and files as blobs (`repository { head: ref(qualifiedName:
 * $ref) { target { oid } } <alias>: object(expression: "<branch>:<path>") { ... on Blob {
 * oid text isBinary isTruncated } } }`, the state branch's files in one request).
 * GitHub's REST description does not cover GraphQL, so the request is checked here against
 * the types it uses instead; any other query is answered with a GraphQL error and counted as
 * unimplemented. Refuse the mutation
 * with a fault on route `POST /graphql` to make gh-aw fall back to `git push`.
 */
import type { Model } from './model.js'
import type { Reply } from './shapes.js'

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
    return blobsQuery(model, body.query, isObject(body.variables) ? body.variables : {})
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

const BLOB_FIELDS = new Set(['oid', 'text', 'isBinary', 'isTruncated'])

/**
 * `query(...) { repository(owner: $o, name: $n) { a: object(expression: $x) { ... on Blob {
 * ... } } } }`: every alias an `object` whose expression is a `String!` variable naming
 * `<branch>:<path>`, asking only Blob fields GitHub has.
 */
function blobsQuery(model: Model, query: string, variables: Record<string, unknown>): Checked {
  const errors: string[] = []
  const types = new Map(
    [...query.matchAll(/\$(\w+)\s*:\s*(\w+!?)/g)].map(([, name, type]) => [name, type])
  )
  const declared = (name: string): string | undefined => types.get(name)
  const repository = /\brepository\s*\(\s*owner:\s*\$(\w+)\s*,\s*name:\s*\$(\w+)\s*\)/.exec(query)
  if (!repository) errors.push('repository(owner: $owner, name: $name) is required')
  const objects = [
    ...query.matchAll(
      /(\w+)\s*:\s*object\s*\(\s*expression:\s*\$(\w+)\s*\)\s*\{\s*\.\.\.\s*on\s+Blob\s*\{([^}]*)\}\s*\}/g
    )
  ].map(([, alias, variable, fields]) => ({
    alias: alias as string,
    variable: variable as string,
    fields: (fields ?? '').split(/[\s,]+/).filter(Boolean)
  }))
  if (objects.length === 0)
    errors.push('no `<alias>: object(expression: $var) { ... on Blob { … } }`')
  const refs = [
    ...query.matchAll(
      /(\w+)\s*:\s*ref\s*\(\s*qualifiedName:\s*\$(\w+)\s*\)\s*\{\s*target\s*\{\s*oid\s*\}\s*\}/g
    )
  ].map(([, alias, variable]) => ({ alias: alias as string, variable: variable as string }))
  for (const ref of refs) {
    if (declared(ref.variable) !== 'String!') errors.push(`$${ref.variable}: declare it String!`)
    if (typeof variables[ref.variable] !== 'string')
      errors.push(`$${ref.variable}: a ref name is required`)
  }
  const owner = repository ? variables[repository[1] as string] : undefined
  const name = repository ? variables[repository[2] as string] : undefined
  if (repository && (typeof owner !== 'string' || typeof name !== 'string'))
    errors.push('variables: owner and name must be strings')
  for (const object of objects) {
    if (declared(object.variable) !== 'String!')
      errors.push(`$${object.variable}: declare it String!`)
    const expression = variables[object.variable]
    if (typeof expression !== 'string' || !/^[^:]+:.+$/.test(expression))
      errors.push(`$${object.variable}: a "<ref>:<path>" expression is required`)
    for (const field of object.fields)
      if (!BLOB_FIELDS.has(field)) errors.push(`Blob has no field ${field} here`)
  }
  if (errors.length > 0)
    return {
      errors,
      implemented: true,
      run: () => ({ status: 200, body: { errors: errors.map((message) => ({ message })) } })
    }
  return {
    errors,
    implemented: true,
    run: () => {
      if (
        (owner as string).toLowerCase() !== model.state.owner.toLowerCase() ||
        (name as string).toLowerCase() !== model.state.repo.toLowerCase()
      )
        return {
          status: 200,
          body: {
            data: { repository: null },
            errors: [
              {
                type: 'NOT_FOUND',
                path: ['repository'],
                message: `Could not resolve to a Repository with the name '${owner as string}/${name as string}'.`
              }
            ]
          }
        }
      const found: Record<string, unknown> = {}
      for (const ref of refs) {
        const name = (variables[ref.variable] as string).replace(/^refs\/heads\//, '')
        const sha = model.state.branches[name]
        found[ref.alias] =
          sha !== undefined && model.gitCommit(sha) ? { target: { oid: sha } } : null
      }
      for (const object of objects) {
        const expression = variables[object.variable] as string
        const split = expression.indexOf(':')
        const sha = model.resolveRef(expression.slice(0, split))
        const entry =
          sha && model.gitCommit(sha)
            ? model.repo().path(sha, expression.slice(split + 1))
            : undefined
        const blob =
          entry?.type === 'file'
            ? {
                oid: entry.sha,
                text: entry.content.toString('utf8'),
                isBinary: false,
                isTruncated: false
              }
            : null
        found[object.alias] = blob
          ? Object.fromEntries(
              object.fields.map((field) => [field, blob[field as keyof typeof blob]])
            )
          : null
      }
      return { status: 200, body: { data: { repository: found } } }
    }
  }
}
