/**
 * The GraphQL queries the fake answers: `query(...) { repository(owner:, name:) { … } }` over
 * the few types and fields of GitHub's GraphQL schema the action reads (the table below,
 * transcribed from GitHub's public schema: Repository, Ref, Commit, Tree, Blob, PullRequest
 * and their connections). The query is parsed, every field, argument and variable checked
 * against that table (a field GitHub does not have, or a variable of the wrong type, is an
 * invalid request), then answered from the model: the state branch's files as blobs, a
 * branch's head commit and its open pull requests, the default branch.
 */
import type { Model } from './model.js'
import type { PullRecord } from './types.js'

// --- parsing --------------------------------------------------------------------------------

type Value =
  | { kind: 'variable'; name: string }
  | { kind: 'literal'; value: unknown }
  | { kind: 'enum'; value: string }
  | { kind: 'list'; items: Value[] }
  | { kind: 'object'; fields: Record<string, Value> }

interface Field {
  kind: 'field'
  alias: string
  name: string
  args: Record<string, Value>
  selections: Selection[] | null
}
interface InlineFragment {
  kind: 'fragment'
  on: string
  selections: Selection[]
}
type Selection = Field | InlineFragment

export interface ParsedQuery {
  variables: Map<string, string>
  selections: Selection[]
}

const TOKEN =
  /\s+|,|#[^\n]*|(\.\.\.|[{}():[\]!$=]|[A-Za-z_][A-Za-z0-9_]*|-?\d+|"(?:[^"\\]|\\.)*")/gy

function tokenize(text: string): string[] {
  const tokens: string[] = []
  TOKEN.lastIndex = 0
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex
    const match = TOKEN.exec(text)
    if (!match) throw new SyntaxError(`unexpected character at ${at}: ${text.slice(at, at + 10)}`)
    if (match[1] !== undefined) tokens.push(match[1])
  }
  return tokens
}

/** Parses one `query` operation (no fragments by name, no directives: the action sends none). */
export function parseQuery(text: string): ParsedQuery {
  const tokens = tokenize(text)
  let i = 0
  const peek = () => tokens[i]
  const next = () => {
    const token = tokens[i++]
    if (token === undefined) throw new SyntaxError('unexpected end of the query')
    return token
  }
  const expect = (token: string) => {
    const got = next()
    if (got !== token) throw new SyntaxError(`expected ${token}, found ${got}`)
  }
  const name = () => {
    const token = next()
    if (!/^[A-Za-z_]/.test(token)) throw new SyntaxError(`expected a name, found ${token}`)
    return token
  }
  const type = (): string => {
    let t: string
    if (peek() === '[') {
      next()
      t = `[${type()}]`
      expect(']')
    } else t = name()
    if (peek() === '!') {
      next()
      t += '!'
    }
    return t
  }
  const value = (): Value => {
    const token = next()
    if (token === '$') return { kind: 'variable', name: name() }
    if (token === '[') {
      const items: Value[] = []
      while (peek() !== ']') items.push(value())
      next()
      return { kind: 'list', items }
    }
    if (token === '{') {
      const fields: Record<string, Value> = {}
      while (peek() !== '}') {
        const key = name()
        expect(':')
        fields[key] = value()
      }
      next()
      return { kind: 'object', fields }
    }
    if (/^-?\d+$/.test(token)) return { kind: 'literal', value: Number(token) }
    if (token.startsWith('"')) return { kind: 'literal', value: JSON.parse(token) as string }
    if (token === 'true' || token === 'false') return { kind: 'literal', value: token === 'true' }
    if (token === 'null') return { kind: 'literal', value: null }
    return { kind: 'enum', value: token }
  }
  const selectionSet = (): Selection[] => {
    expect('{')
    const selections: Selection[] = []
    while (peek() !== '}') {
      if (peek() === '...') {
        next()
        expect('on')
        const on = name()
        selections.push({ kind: 'fragment', on, selections: selectionSet() })
        continue
      }
      const alias = name()
      let field = alias
      if (peek() === ':') {
        next()
        field = name()
      }
      const args: Record<string, Value> = {}
      if (peek() === '(') {
        next()
        while (peek() !== ')') {
          const arg = name()
          expect(':')
          args[arg] = value()
        }
        next()
      }
      selections.push({
        kind: 'field',
        alias,
        name: field,
        args,
        selections: peek() === '{' ? selectionSet() : null
      })
    }
    next()
    return selections
  }
  expect('query')
  if (peek() !== '(' && peek() !== '{') name()
  const variables = new Map<string, string>()
  if (peek() === '(') {
    next()
    while (peek() !== ')') {
      expect('$')
      const variable = name()
      expect(':')
      variables.set(variable, type())
    }
    next()
  }
  const selections = selectionSet()
  if (i !== tokens.length) throw new SyntaxError(`unexpected ${tokens[i]} after the query`)
  return { variables, selections }
}

// --- the schema (the part of GitHub's the action reads) -------------------------------------

interface FieldSpec {
  /** The field's type: a scalar (`String`, `Int`, …) or an object type of this table; `[T]` a list. */
  type: string
  args?: Record<string, string>
}

const GIT_OBJECT = ['Commit', 'Tree', 'Blob', 'Tag']
const SCALARS = new Set(['String', 'Int', 'Boolean', 'GitObjectID', 'URI', 'DateTime'])

const SCHEMA: Record<string, Record<string, FieldSpec>> = {
  Query: { repository: { type: 'Repository', args: { owner: 'String!', name: 'String!' } } },
  Repository: {
    nameWithOwner: { type: 'String' },
    defaultBranchRef: { type: 'Ref' },
    ref: { type: 'Ref', args: { qualifiedName: 'String!' } },
    object: { type: 'GitObject', args: { oid: 'GitObjectID', expression: 'String' } }
  },
  Ref: {
    name: { type: 'String' },
    prefix: { type: 'String' },
    target: { type: 'GitObject' },
    associatedPullRequests: {
      type: 'PullRequestConnection',
      args: {
        states: '[PullRequestState!]',
        first: 'Int',
        orderBy: 'IssueOrder',
        baseRefName: 'String',
        headRefName: 'String'
      }
    }
  },
  GitObject: { oid: { type: 'GitObjectID' } },
  Commit: {
    oid: { type: 'GitObjectID' },
    committedDate: { type: 'DateTime' },
    tree: { type: 'Tree' },
    parents: { type: 'CommitConnection', args: { first: 'Int' } }
  },
  Tree: { oid: { type: 'GitObjectID' } },
  Tag: { oid: { type: 'GitObjectID' } },
  Blob: {
    oid: { type: 'GitObjectID' },
    text: { type: 'String' },
    isBinary: { type: 'Boolean' },
    isTruncated: { type: 'Boolean' },
    byteSize: { type: 'Int' }
  },
  CommitConnection: { nodes: { type: '[Commit]' }, totalCount: { type: 'Int' } },
  PullRequestConnection: { nodes: { type: '[PullRequest]' }, totalCount: { type: 'Int' } },
  PullRequest: {
    number: { type: 'Int' },
    url: { type: 'URI' },
    state: { type: 'PullRequestState' },
    isDraft: { type: 'Boolean' },
    headRefName: { type: 'String' },
    headRefOid: { type: 'GitObjectID' },
    baseRefName: { type: 'String' },
    baseRef: { type: 'Ref' }
  }
}
const ENUMS: Record<string, Set<string>> = {
  PullRequestState: new Set(['OPEN', 'CLOSED', 'MERGED'])
}
const INPUTS: Record<string, Record<string, string>> = {
  IssueOrder: { field: 'IssueOrderField!', direction: 'OrderDirection!' }
}
ENUMS.IssueOrderField = new Set(['CREATED_AT', 'UPDATED_AT', 'COMMENTS'])
ENUMS.OrderDirection = new Set(['ASC', 'DESC'])

const bare = (type: string) => type.replace(/[[\]!]/g, '')

/** Whether a variable declared `declared` may stand where `expected` is asked for. */
function variableFits(declared: string, expected: string): boolean {
  if (expected.endsWith('!') && !declared.endsWith('!')) return false
  return (
    declared.replace(/!$/, '') === expected.replace(/!$/, '') ||
    declared.replace(/!$/, '') === expected.replace(/!$/, '').replace(/!(?=\])/, '')
  )
}

function checkValue(
  value: Value,
  expected: string,
  where: string,
  query: ParsedQuery,
  variables: Record<string, unknown>,
  errors: string[]
): void {
  if (value.kind === 'variable') {
    const declared = query.variables.get(value.name)
    if (!declared) errors.push(`${where}: $${value.name} is not declared`)
    else if (!variableFits(declared, expected))
      errors.push(`${where}: $${value.name} is ${declared}, the argument is ${expected}`)
    const given = variables[value.name]
    if (given === undefined && declared?.endsWith('!'))
      errors.push(`${where}: $${value.name} has no value`)
    const scalar = bare(expected)
    if (given !== undefined && given !== null) {
      if ((scalar === 'String' || scalar === 'GitObjectID') && typeof given !== 'string')
        errors.push(`${where}: $${value.name} must be a string`)
      if (scalar === 'GitObjectID' && !/^[0-9a-f]{40}$/.test(String(given)))
        errors.push(`${where}: $${value.name} is not a GitObjectID`)
      if (scalar === 'Int' && !Number.isInteger(given))
        errors.push(`${where}: $${value.name} must be an Int`)
    }
    return
  }
  const type = expected.replace(/!$/, '')
  if (type.startsWith('[')) {
    const item = type.slice(1, -1)
    for (const v of value.kind === 'list' ? value.items : [value])
      checkValue(v, item, where, query, variables, errors)
    return
  }
  if (ENUMS[type]) {
    if (value.kind !== 'enum' || !ENUMS[type].has(value.value))
      errors.push(`${where}: not a ${type} value`)
    return
  }
  if (INPUTS[type]) {
    const spec = INPUTS[type]
    if (value.kind !== 'object') return void errors.push(`${where}: ${type} is an input object`)
    for (const [key, v] of Object.entries(value.fields)) {
      const fieldType = spec[key]
      if (!fieldType) errors.push(`${where}: ${type} has no field ${key}`)
      else checkValue(v, fieldType, `${where}.${key}`, query, variables, errors)
    }
    for (const [key, t] of Object.entries(spec))
      if (t.endsWith('!') && !(key in value.fields))
        errors.push(`${where}: ${type}.${key} is required`)
    return
  }
  if (value.kind !== 'literal') errors.push(`${where}: a ${type} literal is required`)
  else if (type === 'Int' && !Number.isInteger(value.value))
    errors.push(`${where}: an Int is required`)
  else if (type === 'String' && typeof value.value !== 'string')
    errors.push(`${where}: a String is required`)
}

function checkSelections(
  selections: readonly Selection[],
  type: string,
  where: string,
  query: ParsedQuery,
  variables: Record<string, unknown>,
  errors: string[]
): void {
  for (const selection of selections) {
    if (selection.kind === 'fragment') {
      const fits =
        selection.on === type || (type === 'GitObject' && GIT_OBJECT.includes(selection.on))
      if (!fits || !SCHEMA[selection.on])
        errors.push(`${where}: a fragment on ${selection.on} cannot apply to ${type}`)
      else checkSelections(selection.selections, selection.on, where, query, variables, errors)
      continue
    }
    const spec = SCHEMA[type]?.[selection.name]
    const at = `${where}.${selection.alias}`
    if (!spec) {
      errors.push(`${at}: ${type} has no field ${selection.name}`)
      continue
    }
    for (const [arg, value] of Object.entries(selection.args)) {
      const argType = spec.args?.[arg]
      if (!argType) errors.push(`${at}: ${type}.${selection.name} has no argument ${arg}`)
      else checkValue(value, argType, `${at}(${arg})`, query, variables, errors)
    }
    for (const [arg, argType] of Object.entries(spec.args ?? {}))
      if (argType.endsWith('!') && !(arg in selection.args))
        errors.push(`${at}: argument ${arg} is required`)
    const fieldType = bare(spec.type)
    const scalar = SCALARS.has(fieldType) || ENUMS[fieldType] !== undefined
    if (scalar && selection.selections) errors.push(`${at}: ${fieldType} has no fields to select`)
    else if (!scalar && !selection.selections)
      errors.push(`${at}: ${fieldType} needs a selection of its fields`)
    else if (selection.selections)
      checkSelections(selection.selections, fieldType, at, query, variables, errors)
  }
  const seen = new Map<string, string>()
  for (const selection of selections)
    if (selection.kind === 'field') {
      const before = seen.get(selection.alias)
      if (before !== undefined && before !== selection.name)
        errors.push(`${where}: ${selection.alias} names two fields`)
      seen.set(selection.alias, selection.name)
    }
}

/** Problems of a query against the schema above; empty when GitHub would accept it. */
export function checkQuery(query: ParsedQuery, variables: Record<string, unknown>): string[] {
  const errors: string[] = []
  checkSelections(query.selections, 'Query', 'query', query, variables, errors)
  const used = JSON.stringify(query.selections)
  for (const name of query.variables.keys())
    if (!used.includes(`"kind":"variable","name":"${name}"`))
      errors.push(`$${name} is declared but never used`)
  return errors
}

// --- answering ------------------------------------------------------------------------------

type Node = { __typename: string } & Record<string, unknown>

function argValue(value: Value, variables: Record<string, unknown>): unknown {
  switch (value.kind) {
    case 'variable':
      return variables[value.name]
    case 'literal':
      return value.value
    case 'enum':
      return value.value
    case 'list':
      return value.items.map((item) => argValue(item, variables))
    case 'object':
      return Object.fromEntries(
        Object.entries(value.fields).map(([k, v]) => [k, argValue(v, variables)])
      )
  }
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

function commitNode(model: Model, sha: string): Node | null {
  const info = model.commitInfo(sha)
  if (!info) return null
  return {
    __typename: 'Commit',
    oid: sha,
    committedDate: iso(info.committer.date),
    tree: { __typename: 'Tree', oid: info.tree },
    parents: (args: { first?: number }) => {
      const parents = info.parents.slice(0, args.first ?? 100)
      return {
        __typename: 'CommitConnection',
        totalCount: info.parents.length,
        nodes: parents.map((parent) => commitNode(model, parent))
      }
    }
  }
}

function refNode(model: Model, name: string): Node | null {
  const sha = model.state.branches[name]
  if (sha === undefined) return null
  model.markSeen(sha)
  const target = commitNode(model, sha)
  if (!target) return null
  return {
    __typename: 'Ref',
    name,
    prefix: 'refs/heads/',
    target,
    associatedPullRequests: (args: {
      states?: string | string[]
      first?: number
      orderBy?: { direction?: string }
    }) => {
      const states = args.states === undefined ? null : [args.states].flat()
      const pulls = model.state.pulls
        .filter((pull) => pull.head === name)
        .filter((pull) => states === null || states.includes(pull.state.toUpperCase()))
        .sort((a, b) =>
          args.orderBy?.direction === 'DESC' ? b.number - a.number : a.number - b.number
        )
      return {
        __typename: 'PullRequestConnection',
        totalCount: pulls.length,
        nodes: pulls.slice(0, args.first ?? 100).map((pull) => pullNode(model, pull))
      }
    }
  }
}

function pullNode(model: Model, pull: PullRecord): Node {
  const { owner, repo, branches } = model.state
  return {
    __typename: 'PullRequest',
    number: pull.number,
    url: `https://github.com/${owner}/${repo}/pull/${pull.number}`,
    state: pull.state.toUpperCase(),
    isDraft: pull.draft,
    headRefName: pull.head,
    headRefOid: branches[pull.head] ?? null,
    baseRefName: pull.base,
    baseRef: () => refNode(model, pull.base)
  }
}

function blobNode(model: Model, expression: string): Node | null {
  const split = expression.indexOf(':')
  if (split < 0) return null
  const sha = model.resolveRef(expression.slice(0, split))
  const entry =
    sha && model.gitCommit(sha) ? model.repo().path(sha, expression.slice(split + 1)) : undefined
  if (entry?.type !== 'file') return null
  return {
    __typename: 'Blob',
    oid: entry.sha,
    text: entry.content.toString('utf8'),
    isBinary: false,
    isTruncated: false,
    byteSize: entry.content.length
  }
}

function repositoryNode(model: Model): Node {
  const { owner, repo, defaultBranch } = model.state
  return {
    __typename: 'Repository',
    nameWithOwner: `${owner}/${repo}`,
    defaultBranchRef: () => refNode(model, defaultBranch),
    ref: (args: { qualifiedName: string }) =>
      refNode(model, args.qualifiedName.replace(/^refs\/heads\//, '')),
    object: (args: { oid?: string; expression?: string }) =>
      args.oid !== undefined
        ? commitNode(model, args.oid)
        : args.expression !== undefined
          ? blobNode(model, args.expression)
          : null
  }
}

function resolveSelections(
  selections: readonly Selection[],
  node: Node,
  variables: Record<string, unknown>
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const selection of selections) {
    if (selection.kind === 'fragment') {
      if (node.__typename === selection.on)
        Object.assign(out, resolveSelections(selection.selections, node, variables))
      continue
    }
    const raw = node[selection.name]
    const args = Object.fromEntries(
      Object.entries(selection.args).map(([k, v]) => [k, argValue(v, variables)])
    )
    const value: unknown = typeof raw === 'function' ? (raw as (a: unknown) => unknown)(args) : raw
    const sub = selection.selections
    const resolve = (v: unknown): unknown =>
      v === null || v === undefined ? null : sub ? resolveSelections(sub, v as Node, variables) : v
    out[selection.alias] = Array.isArray(value) ? value.map(resolve) : resolve(value)
  }
  return out
}

/** The answer's `data` (and errors) for a checked query. */
export function answerQuery(
  model: Model,
  query: ParsedQuery,
  variables: Record<string, unknown>
): { data: Record<string, unknown>; errors?: { type: string; path: string[]; message: string }[] } {
  const root: Node = {
    __typename: 'Query',
    repository: (args: { owner: string; name: string }) =>
      args.owner.toLowerCase() === model.state.owner.toLowerCase() &&
      args.name.toLowerCase() === model.state.repo.toLowerCase()
        ? repositoryNode(model)
        : null
  }
  const data = resolveSelections(query.selections, root, variables)
  const missing = query.selections.find(
    (s): s is Field => s.kind === 'field' && s.name === 'repository' && data[s.alias] === null
  )
  if (!missing) return { data }
  const args = Object.fromEntries(
    Object.entries(missing.args).map(([k, v]) => [k, argValue(v, variables)])
  ) as { owner: string; name: string }
  return {
    data,
    errors: [
      {
        type: 'NOT_FOUND',
        path: [missing.alias],
        message: `Could not resolve to a Repository with the name '${args.owner}/${args.name}'.`
      }
    ]
  }
}
