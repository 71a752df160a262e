/**
 * `POST /graphql` (README: "GraphQL"): every request is parsed and validated by graphql-js
 * against GitHub's published schema (`@octokit/graphql-schema`) and its variables coerced to
 * the operation's variable types; a request GitHub would refuse so is invalid, counted as a
 * request failing the OpenAPI check is. A valid one is run by graphql-js over the fake's model
 * (graphql-resolvers.ts); one selecting a field the fake does not serve is unimplemented.
 * Refuse the route with a fault to make gh-aw fall back to `git push` and the action to the
 * contents API.
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import {
  BREAK,
  buildSchema,
  executeSync,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  GraphQLScalarType,
  isAbstractType,
  Kind,
  parse,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
  type ASTNode,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  type ValueNode
} from 'graphql'
import type { Model } from './model.js'
import type { Reply } from './shapes.js'
import { RESOLVERS } from './graphql-resolvers.js'

export const GRAPHQL_ROUTE = 'POST /graphql'

interface Checked {
  /** Problems with the request, as the OpenAPI check reports them. */
  errors: string[]
  implemented: boolean
  run: () => Reply
}

const SCHEMA_PACKAGE = '@octokit/graphql-schema'

/**
 * The formats of GitHub's scalars the schema names without defining (`scalar GitObjectID`):
 * a value out of its format is refused as GitHub refuses it, when variables are coerced.
 */
const SCALAR_FORMATS: Record<string, { pattern: RegExp; expected: string }> = {
  GitObjectID: { pattern: /^[0-9a-f]{40}$/, expected: 'a Git object ID (40 hex digits)' },
  Base64String: {
    pattern: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
    expected: 'base64'
  }
}

function withFormat(scalar: GraphQLScalarType, format: { pattern: RegExp; expected: string }) {
  const check = (value: unknown) => {
    if (typeof value !== 'string' || !format.pattern.test(value))
      throw new GraphQLError(`${scalar.name} must be ${format.expected}: ${JSON.stringify(value)}`)
    return value
  }
  scalar.parseValue = check
  scalar.parseLiteral = (node: ValueNode) =>
    check(node.kind === 'StringValue' ? node.value : undefined)
}

let cached: { schema: GraphQLSchema; version: string } | undefined

/**
 * GitHub's schema, built on the first GraphQL request, once per process (under jest, once per
 * test file: each has its own modules): the package's SDL, found the way Node finds the package (it exports only its
 * index, which parses the schema's introspection JSON too).
 */
export function githubSchema(): { schema: GraphQLSchema; version: string } {
  if (cached) return cached
  const require = createRequire(import.meta.url)
  const dir = (require.resolve.paths(SCHEMA_PACKAGE) ?? [])
    .map((modules) => join(modules, SCHEMA_PACKAGE))
    .find((candidate) => existsSync(join(candidate, 'schema.graphql')))
  if (!dir) throw new Error(`${SCHEMA_PACKAGE} is not installed: run npm ci`)
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    version: string
  }
  // GitHub's schema is valid for graphql-js 16 (a test holds it): checking it again on the
  // first request of every process would cost 40 ms.
  const schema = buildSchema(readFileSync(join(dir, 'schema.graphql'), 'utf8'), {
    assumeValidSDL: true,
    assumeValid: true,
    noLocation: true
  })
  for (const [name, format] of Object.entries(SCALAR_FORMATS)) {
    const scalar = schema.getType(name)
    if (scalar instanceof GraphQLScalarType) withFormat(scalar, format)
  }
  cached = { schema, version }
  return cached
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The response path (`repository.a.size`) of the field a problem is in, if it is in one. */
function fieldPath(document: DocumentNode, error: GraphQLError): string | null {
  const target = error.nodes?.[0]
  if (!target) return null
  let found: string | null = null
  visit(document, {
    enter(node, _key, _parent, _path, ancestors) {
      if (node !== target) return undefined
      const fields = [...ancestors, node].filter(
        (n): n is FieldNode => !Array.isArray(n) && (n as ASTNode).kind === Kind.FIELD
      )
      if (fields.length > 0) found = fields.map((f) => (f.alias ?? f.name).value).join('.')
      return BREAK
    }
  })
  return found
}

/** A problem's text for the request log: where in the request, and graphql-js's message. */
const describe = (error: GraphQLError, document?: DocumentNode) => {
  const path = document ? fieldPath(document, error) : null
  return path ? `${path}: ${error.message}` : error.message
}

/** An error as GitHub words it: its kind (`type`, NOT_FOUND…) beside the message and path. */
function githubErrorJson(error: GraphQLError): Record<string, unknown> {
  const { extensions, ...rest } = error.toJSON()
  const { type, ...more } = extensions ?? {}
  return {
    ...(type !== undefined ? { type } : {}),
    ...rest,
    ...(Object.keys(more).length > 0 ? { extensions: more } : {})
  }
}

const invalid = (errors: readonly GraphQLError[], document?: DocumentNode): Checked => ({
  errors: errors.map((error) => describe(error, document)),
  implemented: true,
  run: () => ({ status: 200, body: { errors: errors.map(githubErrorJson) } })
})

/** The fields a request selects that no resolver serves (`Type.field`). */
function unserved(schema: GraphQLSchema, document: DocumentNode): string[] {
  const missing = new Set<string>()
  const info = new TypeInfo(schema)
  visit(
    document,
    visitWithTypeInfo(info, {
      Field(node) {
        const parent = info.getParentType()
        const field = node.name.value
        // `__typename`, and introspection (`__type`, `__schema`), which graphql-js answers
        if (!parent || field.startsWith('__') || parent.name.startsWith('__')) return
        const served = isAbstractType(parent)
          ? schema.getPossibleTypes(parent).filter((type) => RESOLVERS[type.name])
          : [parent]
        if (served.length === 0 || served.some((type) => !RESOLVERS[type.name]?.[field]))
          missing.add(`${parent.name}.${field}`)
      }
    })
  )
  return [...missing]
}

const resolveField: GraphQLFieldResolver<unknown, Model> = (source, args, model, info) => {
  const resolver = RESOLVERS[info.parentType.name]?.[info.fieldName] as
    ((source: unknown, args: unknown, model: Model) => unknown) | undefined
  if (!resolver) throw new Error(`fake GitHub: no resolver for ${info.parentType.name}`)
  return resolver(source, args, model)
}

/** graphql-js's answer as GitHub sends it; a resolver's bug is thrown (answered 500). */
function reply(result: ExecutionResult): Reply {
  const bug = result.errors?.find(
    (error) => error.originalError && !(error.originalError instanceof GraphQLError)
  )
  if (bug?.originalError) throw bug.originalError
  return {
    status: 200,
    body: {
      ...(result.errors ? { errors: result.errors.map(githubErrorJson) } : {}),
      data: result.data ?? null
    }
  }
}

interface ReadDocument {
  document: DocumentNode
  problems: readonly GraphQLError[]
  /** The fields it selects that the fake does not serve. */
  missing: string[]
}

/** Each query text parsed and validated once: the action sends a few texts many times. */
const documents = new Map<string, ReadDocument>()

function readDocument(schema: GraphQLSchema, text: string): ReadDocument | GraphQLError {
  const known = documents.get(text)
  if (known) return known
  let document: DocumentNode
  try {
    document = parse(text)
  } catch (error) {
    if (error instanceof GraphQLError) return error
    throw error
  }
  const problems = validate(schema, document)
  const read = {
    document,
    problems,
    missing: problems.length > 0 ? [] : unserved(schema, document)
  }
  documents.set(text, read)
  return read
}

/** Whether a request's operation is a `query` or a `mutation` (null when it does not parse). */
export function graphqlOperation(text: string, operationName?: unknown): string | null {
  try {
    const name = typeof operationName === 'string' ? operationName : undefined
    return getOperationAST(documents.get(text)?.document ?? parse(text), name)?.operation ?? null
  } catch {
    return null
  }
}

/** Checks a GraphQL request against GitHub's schema and prepares its answer. */
export function graphqlRequest(model: Model, body: unknown): Checked {
  if (!isObject(body) || typeof body.query !== 'string')
    return {
      errors: ['body: a GraphQL request needs a string `query`'],
      implemented: true,
      run: () => ({ status: 400, body: { message: 'Problems parsing JSON' } })
    }
  const { schema } = githubSchema()
  const read = readDocument(schema, body.query)
  if (read instanceof GraphQLError) return invalid([read])
  const { document, problems, missing } = read
  if (problems.length > 0) return invalid(problems, document)
  const operationName = typeof body.operationName === 'string' ? body.operationName : undefined
  const operation = getOperationAST(document, operationName)
  if (!operation)
    return invalid([
      new GraphQLError(`operationName ${operationName ?? '(none)'} names no operation here`)
    ])
  const variables = isObject(body.variables) ? body.variables : {}
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables)
  if (coerced.errors) return invalid(coerced.errors)
  if (missing.length > 0)
    return {
      errors: [],
      implemented: false,
      run: () => ({
        status: 200,
        body: { errors: [{ message: `fake GitHub does not serve ${missing.join(', ')}` }] }
      })
    }
  return {
    errors: [],
    implemented: true,
    run: () =>
      reply(
        executeSync({
          schema,
          document,
          operationName,
          variableValues: variables,
          contextValue: model,
          fieldResolver: resolveField
        })
      )
  }
}
