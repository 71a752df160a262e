/**
 * Does any CI workflow run on the program branch? (docs/commands.md: "doctor", the check `ci-workflow`.)
 * Pure. gh-aw pushes the agent's commit with GITHUB_TOKEN, which starts no workflow; CI starts
 * from the CI-trigger token's push of an empty commit on top of it, which is a `push` to
 * `autoloop/<program>` and a `pull_request` `synchronize` of the program PR. GitHub filters a
 * `push` by the files changed between the branch's old and new head (a two-dot diff), and does
 * not run a path-filtered workflow when no file changed: the empty commit changes none, so a
 * `push` workflow with `paths` or `paths-ignore` never runs on it. A `pull_request`'s paths are
 * the whole PR's (a three-dot diff): it runs when the iteration's changes match.
 */
import { asMap, type ParsedFile, type YamlMap } from './setup.js'

/** A program branch as the doctor tests branch filters with it. */
export const SAMPLE_PROGRAM_BRANCH = 'autoloop/example'

interface CiWorkflowVerdict {
  path: string
  /** `runs`: on every iteration; `limited`: only for some changes; `never`. */
  kind: 'runs' | 'limited' | 'never'
  why: string
}

/** GitHub's filter pattern (`*`, `**`, `?`, `+`, `[…]`) as a regular expression. */
function filterRegex(pattern: string): RegExp {
  let source = ''
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i] as string
    if (c === '*' && pattern[i + 1] === '*') {
      source += '.*'
      i += 1
    } else if (c === '*') source += '[^/]*'
    else if (c === '?' || c === '+') source += c
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1)
      if (end < 0) source += '\\['
      else {
        source += pattern.slice(i, end + 1)
        i = end
      }
    } else source += c.replace(/[.^$|(){}\\]/g, '\\$&')
  }
  try {
    return new RegExp(`^${source}$`)
  } catch {
    return /$^/
  }
}

export function list(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.map((item) => String(item))
  return undefined
}

/** GitHub's rule: patterns in order, `!` negates, the last matching pattern wins. */
export function filterMatches(patterns: readonly string[], name: string): boolean {
  let matched = false
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!')
    if (filterRegex(negated ? pattern.slice(1) : pattern).test(name)) matched = !negated
  }
  return matched
}

/** The events of an `on:` value, each with its configuration map (null when none). */
export function eventsOf(on: unknown): Map<string, YamlMap | null> {
  const events = new Map<string, YamlMap | null>()
  if (typeof on === 'string') events.set(on, null)
  else if (Array.isArray(on)) for (const event of on) events.set(String(event), null)
  else
    for (const [event, config] of Object.entries(asMap(on) ?? {}))
      events.set(event, asMap(config) ?? null)
  return events
}

/** Whether the ref filters of an event let `name` through. */
export function refAllowed(config: YamlMap | null, name: string, kind: 'branches' | 'tags'): boolean {
  if (!config) return true
  const only = list(config[kind])
  const ignore = list(config[`${kind}-ignore`])
  if (only) return filterMatches(only, name)
  if (ignore) return !filterMatches(ignore, name)
  // Only the other kind of ref filtered: GitHub runs it for none of this kind.
  const other = kind === 'branches' ? 'tags' : 'branches'
  return config[other] === undefined && config[`${other}-ignore`] === undefined
}

function pathsOf(config: YamlMap | null): string | null {
  if (!config) return null
  const paths = list(config.paths)
  const ignore = list(config['paths-ignore'])
  if (paths) return `paths: ${paths.join(', ')}`
  if (ignore) return `paths-ignore: ${ignore.join(', ')}`
  return null
}

function pushVerdict(config: YamlMap | null): Omit<CiWorkflowVerdict, 'path'> | null {
  if (!refAllowed(config, SAMPLE_PROGRAM_BRANCH, 'branches')) return null
  const paths = pathsOf(config)
  if (paths === null) return { kind: 'runs', why: 'on pushes to autoloop/<program>' }
  // GitHub runs a path-filtered workflow only when the push changed a file.
  return {
    kind: 'never',
    why: `on pushes to autoloop/<program> with ${paths}, which skips the CI-trigger commit (it changes no file)`
  }
}

function pullRequestVerdict(
  config: YamlMap | null,
  defaultBranch: string | null
): Omit<CiWorkflowVerdict, 'path'> | null {
  const types = list(config?.types)
  if (types && !types.includes('synchronize')) return null
  const base = defaultBranch ?? 'main'
  const filtered = config?.branches !== undefined || config?.['branches-ignore'] !== undefined
  if (!refAllowed(config, base, 'branches')) return null
  const assumed =
    filtered && defaultBranch === null ? ' (default branch unknown: main assumed)' : ''
  const paths = pathsOf(config)
  if (paths === null) return { kind: 'runs', why: `on the program PR${assumed}` }
  return { kind: 'limited', why: `on the program PR with ${paths}${assumed}` }
}

const RANK = { never: 0, limited: 1, runs: 2 } as const

/** How each workflow runs for an iteration; workflows that never run are left out. */
export function ciWorkflowVerdicts(
  workflows: readonly ParsedFile[],
  defaultBranch: string | null
): CiWorkflowVerdict[] {
  const verdicts: CiWorkflowVerdict[] = []
  for (const workflow of workflows) {
    if (!workflow.doc) continue
    const events = eventsOf(workflow.doc.on)
    const candidates = [
      events.has('push') ? pushVerdict(events.get('push') ?? null) : null,
      events.has('pull_request')
        ? pullRequestVerdict(events.get('pull_request') ?? null, defaultBranch)
        : null
    ].filter((v): v is Omit<CiWorkflowVerdict, 'path'> => v !== null)
    const best = candidates.sort((a, b) => RANK[b.kind] - RANK[a.kind])[0]
    if (best) verdicts.push({ path: workflow.path, ...best })
  }
  return verdicts
}
