/**
 * Validates requests against GitHub's published OpenAPI description (@octokit/openapi,
 * dereferenced form). The 70 MB description is parsed once and cut down to what requests need
 * (paths, parameters, request bodies, about 1.5 MB); that slim form is cached on disk under
 * node_modules/.cache so later processes skip the big parse. Validators are compiled lazily
 * per operation and kept for the life of the process.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'

interface SpecParameter {
  name: string
  description?: string
  in: 'path' | 'query' | 'header' | 'cookie'
  required?: boolean
  schema?: Record<string, unknown>
  'x-multi-segment'?: boolean
}

interface SlimOperation {
  parameters: SpecParameter[]
  body?: { required: boolean; jsonSchema?: Record<string, unknown> }
}

interface SlimSpec {
  source: string
  paths: Record<string, Record<string, SlimOperation>>
}

interface CompiledPath {
  template: string
  regex: RegExp
  paramNames: string[]
  literalCount: number
  operations: Record<string, SlimOperation>
}

export interface RouteMatch {
  /** `GET /repos/{owner}/{repo}/pulls` */
  route: string | null
  template: string | null
  /** Path parameters, percent-decoded. */
  params: Record<string, string>
  valid: boolean
  errors: string[]
}

export interface RequestToValidate {
  method: string
  /** Path without prefix and query, as received. */
  path: string
  query: URLSearchParams
  /** Undefined when there was no body. */
  body: { json: unknown } | { parseError: string } | undefined
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options'])
// Formats GitHub's description uses that are not JSON Schema formats: accept any value.
const LENIENT_FORMATS = [
  'int32',
  'int64',
  'double',
  'timestamp',
  'repo.nwo',
  'uri-template',
  'binary'
]

function specLocation(): string {
  const require = createRequire(import.meta.url)
  return require.resolve('@octokit/openapi/generated/api.github.com.deref.json')
}

function slimDown(
  full: { paths: Record<string, Record<string, unknown>> },
  source: string
): SlimSpec {
  const paths: SlimSpec['paths'] = {}
  for (const [template, item] of Object.entries(full.paths)) {
    const shared = (item.parameters as SpecParameter[] | undefined) ?? []
    const operations: Record<string, SlimOperation> = {}
    for (const [method, raw] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue
      const op = raw as {
        parameters?: SpecParameter[]
        requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> }
      }
      const own = op.parameters ?? []
      const parameters = [...shared.filter((p) => !own.some((o) => o.name === p.name)), ...own]
      const slim: SlimOperation = { parameters }
      if (op.requestBody) {
        const json = op.requestBody.content?.['application/json']?.schema
        slim.body = { required: op.requestBody.required === true }
        if (json) slim.body.jsonSchema = json as Record<string, unknown>
      }
      operations[method] = slim
    }
    paths[template] = operations
  }
  return { source, paths }
}

function loadSlimSpec(): SlimSpec {
  const file = specLocation()
  const stat = statSync(file)
  const source = `${stat.size}-${Math.floor(stat.mtimeMs)}`
  const cacheDir = join(dirname(file), '..', '..', '..', '.cache', 'fake-github-openapi')
  const cacheFile = join(cacheDir, `slim-${source}.json`)
  try {
    const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as SlimSpec
    if (cached.source === source) return cached
  } catch {
    // no cache yet: build it below
  }
  const slim = slimDown(JSON.parse(readFileSync(file, 'utf8')), source)
  try {
    mkdirSync(cacheDir, { recursive: true })
    const tmp = `${cacheFile}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(slim))
    renameSync(tmp, cacheFile)
  } catch {
    // a read-only node_modules only costs the next process the full parse
  }
  return slim
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function compilePath(template: string, operations: Record<string, SlimOperation>): CompiledPath {
  const multi = new Set<string>()
  for (const op of Object.values(operations)) {
    for (const p of op.parameters) if (p.in === 'path' && p['x-multi-segment']) multi.add(p.name)
  }
  const paramNames: string[] = []
  let literalCount = 0
  const source = template
    .split('/')
    .map((segment) => {
      const param = /^\{([^}]+)\}$/.exec(segment)
      if (param?.[1]) {
        paramNames.push(param[1])
        return multi.has(param[1]) ? '(.+)' : '([^/]+)'
      }
      if (segment !== '') literalCount++
      // a segment mixing text and parameters, e.g. `{owner}.{repo}`: treat pieces separately
      return segment
        .split(/(\{[^}]+\})/)
        .map((piece) => {
          const inner = /^\{([^}]+)\}$/.exec(piece)
          if (inner?.[1]) {
            paramNames.push(inner[1])
            return '([^/]+?)'
          }
          return escapeRegex(piece)
        })
        .join('')
    })
    .join('/')
  return { template, regex: new RegExp(`^${source}$`), paramNames, literalCount, operations }
}

function lenientAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    logger: false,
    coerceTypes: coerce ? 'array' : false
  })
  addFormatsModule.default(ajv)
  for (const format of LENIENT_FORMATS) ajv.addFormat(format, true)
  return ajv
}

/**
 * A parameter's schema as it applies to text from a URL. Two readings of the description
 * would refuse what GitHub accepts: `oneOf: [integer, string]` (a workflow id or file name),
 * which a numeric segment matches twice, is read as `anyOf`; and a parameter documented as
 * taking the search syntax (`created=>=2026-03-01`) is any text, whatever its `format`.
 */
function parameterSchema(parameter: SpecParameter): Record<string, unknown> {
  const schema = parameter.schema ?? {}
  if (parameter.description?.includes('search syntax')) return { type: 'string' }
  if (Array.isArray(schema.oneOf)) {
    const { oneOf, ...rest } = schema
    return { ...rest, anyOf: oneOf }
  }
  return schema
}

function describe(errors: ErrorObject[] | null | undefined, where: string): string[] {
  return (errors ?? []).map((e) => {
    if (e.keyword === 'additionalProperties') {
      const extra = String((e.params as { additionalProperty?: unknown }).additionalProperty)
      return where === 'query'
        ? `query parameter "${extra}" is not declared for this operation`
        : `${where}${e.instancePath} has unexpected property "${extra}"`
    }
    if (e.keyword === 'required') {
      const missing = String((e.params as { missingProperty?: unknown }).missingProperty)
      return `${where}${e.instancePath} is missing required "${missing}"`
    }
    return `${where}${e.instancePath} ${e.message ?? e.keyword}`
  })
}

export class OpenApiValidator {
  private readonly bySegmentCount = new Map<number, CompiledPath[]>()
  private readonly multiSegment: CompiledPath[] = []
  private readonly paramAjv = lenientAjv(true)
  private readonly bodyAjv = lenientAjv(false)
  private readonly paramValidators = new Map<string, ValidateFunction>()
  private readonly bodyValidators = new Map<string, ValidateFunction | Error>()

  constructor(spec: SlimSpec) {
    for (const [template, operations] of Object.entries(spec.paths)) {
      const compiled = compilePath(template, operations)
      if (compiled.regex.source.includes('(.+)')) this.multiSegment.push(compiled)
      else {
        const count = template.split('/').length
        const list = this.bySegmentCount.get(count) ?? []
        list.push(compiled)
        this.bySegmentCount.set(count, list)
      }
    }
  }

  /** The best matching template: most literal segments wins (`commits/{ref}/status` over `commits/{ref}`). */
  private matchPath(path: string): { compiled: CompiledPath; values: string[] } | undefined {
    const candidates = [
      ...(this.bySegmentCount.get(path.split('/').length) ?? []),
      ...this.multiSegment
    ]
    let best: { compiled: CompiledPath; values: string[] } | undefined
    for (const compiled of candidates) {
      const m = compiled.regex.exec(path)
      if (!m) continue
      if (!best || compiled.literalCount > best.compiled.literalCount) {
        best = { compiled, values: m.slice(1) }
      }
    }
    return best
  }

  validate(request: RequestToValidate): RouteMatch {
    const method = request.method.toLowerCase()
    const found = this.matchPath(request.path)
    if (!found) {
      return {
        route: null,
        template: null,
        params: {},
        valid: false,
        errors: [`no path of GitHub's REST API matches ${request.path}`]
      }
    }
    const { compiled, values } = found
    const params: Record<string, string> = {}
    compiled.paramNames.forEach((name, i) => {
      const raw = values[i] ?? ''
      try {
        params[name] = decodeURIComponent(raw)
      } catch {
        params[name] = raw
      }
    })
    const operation = compiled.operations[method]
    if (!operation) {
      return {
        route: null,
        template: compiled.template,
        params,
        valid: false,
        errors: [
          `${request.method.toUpperCase()} is not an operation of ${compiled.template} (it has ${Object.keys(compiled.operations).join(', ').toUpperCase()})`
        ]
      }
    }
    const route = `${method.toUpperCase()} ${compiled.template}`
    const errors = [
      ...this.checkParams(route, operation, 'path', params),
      ...this.checkParams(route, operation, 'query', queryObject(request.query)),
      ...this.checkBody(route, operation, request.body)
    ]
    return { route, template: compiled.template, params, valid: errors.length === 0, errors }
  }

  private checkParams(
    route: string,
    operation: SlimOperation,
    location: 'path' | 'query',
    values: Record<string, unknown>
  ): string[] {
    const key = `${location} ${route}`
    let validate = this.paramValidators.get(key)
    if (!validate) {
      const declared = operation.parameters.filter((p) => p.in === location)
      validate = this.paramAjv.compile({
        type: 'object',
        properties: Object.fromEntries(declared.map((p) => [p.name, parameterSchema(p)])),
        required: declared.filter((p) => p.required).map((p) => p.name),
        additionalProperties: false
      })
      this.paramValidators.set(key, validate)
    }
    // coercion writes into the object: validate a copy
    return validate({ ...values }) ? [] : describe(validate.errors, location)
  }

  private checkBody(
    route: string,
    operation: SlimOperation,
    body: RequestToValidate['body']
  ): string[] {
    if (body === undefined) {
      return operation.body?.required ? [`${route} requires a request body`] : []
    }
    if ('parseError' in body) return [`request body is not valid JSON: ${body.parseError}`]
    if (!operation.body) return [`${route} takes no request body`]
    const schema = operation.body.jsonSchema
    if (!schema) return []
    let validate = this.bodyValidators.get(route)
    if (!validate) {
      try {
        validate = this.bodyAjv.compile(schema)
      } catch (error) {
        validate = error instanceof Error ? error : new Error(String(error))
      }
      this.bodyValidators.set(route, validate)
    }
    if (validate instanceof Error) return []
    return validate(body.json) ? [] : describe(validate.errors, 'body')
  }
}

function queryObject(query: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const key of new Set(query.keys())) {
    const all = query.getAll(key)
    out[key] = all.length === 1 ? (all[0] ?? '') : all
  }
  return out
}

let shared: OpenApiValidator | undefined

/** The process-wide validator (the description is loaded on first use). */
export function openApiValidator(): OpenApiValidator {
  shared ??= new OpenApiValidator(loadSlimSpec())
  return shared
}
