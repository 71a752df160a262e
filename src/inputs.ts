/**
 * Every input of SPEC §2, validated with zod before any I/O. `parseInputs` is pure: it takes
 * a reader (the action's `INPUT_*` variables or the CLI's flags) and returns one typed
 * `Config`, or throws an InputError that lists every bad input at once, each with its rule.
 */
import { z } from 'zod'
import picomatch from 'picomatch'
import { ActionError } from './errors.js'

export const COMMANDS = ['gate', 'record', 'reset', 'reconcile'] as const
export type Command = (typeof COMMANDS)[number]

export const PROGRAM_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/

export class InputError extends ActionError {
  readonly problems: string[]
  constructor(problems: string[]) {
    super(
      `Invalid input${problems.length > 1 ? 's' : ''}:\n${problems.map((p) => `- ${p}`).join('\n')}`,
      { fix: 'correct the named inputs in the workflow step (`with:`) or the CLI flags.' }
    )
    this.name = 'InputError'
    this.problems = problems
  }
}

/** Reads one raw input by its kebab-case name; '' when unset. */
export type InputReader = (name: string) => string

const BOOLEAN_TRUE = ['true', 'True', 'TRUE']
const BOOLEAN_FALSE = ['false', 'False', 'FALSE']

/** git check-ref-format, the parts a branch name given here can break. */
export function branchNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'is empty'
  if (name.length > 255) return 'is longer than 255 characters'
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//'))
    return "has an empty path component ('/' at the start or end, or '//')"
  if (name.includes('..')) return "contains '..'"
  if (name.endsWith('.') || name.endsWith('.lock')) return "ends with '.' or '.lock'"
  if (name.includes('@{')) return "contains '@{'"
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name))
    return 'contains a space, a control character or one of ~ ^ : ? * [ \\'
  if (name.split('/').some((part) => part.startsWith('.')))
    return "has a component starting with '.'"
  return undefined
}

const booleanInput = (fallback: boolean) =>
  z.string().transform((raw, ctx) => {
    if (raw === '') return fallback
    if (BOOLEAN_TRUE.includes(raw)) return true
    if (BOOLEAN_FALSE.includes(raw)) return false
    ctx.addIssue({ code: 'custom', message: `"${raw}" is not a boolean: use true or false` })
    return z.NEVER
  })

const integerInput = (fallback: number | undefined, min: number, max: number) =>
  z.string().transform((raw, ctx) => {
    if (raw === '') return fallback
    if (!/^[0-9]+$/.test(raw)) {
      ctx.addIssue({ code: 'custom', message: `"${raw}" is not a whole number` })
      return z.NEVER
    }
    const value = Number(raw)
    if (value < min || value > max) {
      ctx.addIssue({ code: 'custom', message: `${value} is outside ${min}..${max}` })
      return z.NEVER
    }
    return value
  })

const numberInput = (fallback: number, min: number, max: number) =>
  z.string().transform((raw, ctx) => {
    if (raw === '') return fallback
    const value = Number(raw)
    if (!/^[0-9]+(\.[0-9]+)?$/.test(raw) || !Number.isFinite(value)) {
      ctx.addIssue({ code: 'custom', message: `"${raw}" is not a number` })
      return z.NEVER
    }
    if (value < min || value > max) {
      ctx.addIssue({ code: 'custom', message: `${value} is outside ${min}..${max}` })
      return z.NEVER
    }
    return value
  })

/** An issue or PR number, written `12` or `#12`. */
const referenceNumberInput = z.string().transform((raw, ctx) => {
  if (raw === '') return undefined
  const match = /^#?([1-9][0-9]{0,9})$/.exec(raw)
  if (!match?.[1]) {
    ctx.addIssue({ code: 'custom', message: `"${raw}" is not a number such as 12 or #12` })
    return z.NEVER
  }
  return Number(match[1])
})

/** A newline- or comma-separated list; blank entries dropped. */
const listInput = z.string().transform((raw) => [
  ...new Set(
    raw
      .split(/[\n,]/)
      .map((item) => item.trim())
      .filter(Boolean)
  )
])

const globListInput = listInput.transform((globs, ctx) => {
  for (const glob of globs) {
    try {
      picomatch(glob)
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `"${glob}" is not a valid glob (${String(error)})` })
    }
  }
  return globs
})

const optionalText = z.string().transform((raw) => (raw === '' ? undefined : raw))

const shaInput = z.string().transform((raw, ctx) => {
  if (raw === '') return undefined
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(raw)) {
    ctx.addIssue({
      code: 'custom',
      message: `"${raw}" is not a full commit SHA (40 or 64 lower-case hex digits)`
    })
    return z.NEVER
  }
  return raw
})

const metricInput = z.string().transform((raw, ctx) => {
  if (raw === '') return undefined
  const value = Number(raw)
  if (!/^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/.test(raw) || !Number.isFinite(value)) {
    ctx.addIssue({ code: 'custom', message: `"${raw}" is not a finite number` })
    return z.NEVER
  }
  return value
})

const rawSchema = z.object({
  command: z.string().transform((raw, ctx) => {
    const value = raw === '' ? 'gate' : raw
    if (!(COMMANDS as readonly string[]).includes(value)) {
      ctx.addIssue({ code: 'custom', message: `"${raw}" is not one of ${COMMANDS.join(', ')}` })
      return z.NEVER
    }
    return value as Command
  }),
  'github-token': z.string(),
  program: z.string().transform((raw, ctx) => {
    if (raw === '') return undefined
    if (!PROGRAM_PATTERN.test(raw)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${raw}" is not a program name: it must match ${PROGRAM_PATTERN.source} (a letter or digit, then up to 99 letters, digits, '.', '_' or '-')`
      })
      return z.NEVER
    }
    const problem = branchNameProblem(`autoloop/${raw}`)
    if (problem) {
      ctx.addIssue({
        code: 'custom',
        message: `"${raw}" cannot name a git branch (autoloop/${raw} ${problem})`
      })
      return z.NEVER
    }
    return raw
  }),
  branch: z.string().transform((raw, ctx) => {
    if (raw === '') return undefined
    const problem = branchNameProblem(raw)
    if (problem) {
      ctx.addIssue({
        code: 'custom',
        message: `"${raw}" is not a valid branch name: it ${problem}`
      })
      return z.NEVER
    }
    return raw
  }),
  base: optionalText,
  sha: shaInput,
  push: booleanInput(true),
  'push-token': optionalText,
  pr: referenceNumberInput,
  'create-pr': booleanInput(true),
  issue: referenceNumberInput,
  'max-fix-attempts': integerInput(5, 0, 100),
  'timeout-minutes': numberInput(60, 1, 10080),
  'poll-interval-seconds': numberInput(15, 1, 3600),
  'checks-grace-seconds': numberInput(180, 0, 86400),
  'required-checks': listInput,
  'ignore-checks': globListInput,
  'fail-fast': booleanInput(false),
  'allow-no-checks': booleanInput(false),
  'fix-command': optionalText,
  'state-dir': optionalText,
  'state-branch': z.string().transform((raw, ctx) => {
    const value = raw === '' ? 'memory/autoloop' : raw
    const problem = branchNameProblem(value)
    if (problem) {
      ctx.addIssue({
        code: 'custom',
        message: `"${raw}" is not a valid branch name: it ${problem}`
      })
      return z.NEVER
    }
    return value
  }),
  outcome: z.string().transform((raw, ctx) => {
    if (raw === '') return undefined
    if (raw !== 'accepted' && raw !== 'rejected' && raw !== 'error') {
      ctx.addIssue({ code: 'custom', message: `"${raw}" is not one of accepted, rejected, error` })
      return z.NEVER
    }
    return raw
  }),
  metric: metricInput,
  change: optionalText,
  reason: optionalText,
  'state-max-bytes': integerInput(30720, 4096, 1048576),
  'fail-on-red': booleanInput(false)
})

export const INPUT_NAMES = Object.keys(rawSchema.shape) as (keyof typeof rawSchema.shape)[]

type Raw = z.output<typeof rawSchema>

export interface Config {
  command: Command
  githubToken: string
  program: string | undefined
  branch: string | undefined
  base: string | undefined
  sha: string | undefined
  push: boolean
  pushToken: string | undefined
  pr: number | undefined
  createPr: boolean
  issue: number | undefined
  maxFixAttempts: number
  timeoutMinutes: number
  pollIntervalSeconds: number
  checksGraceSeconds: number
  requiredChecks: string[]
  ignoreChecks: string[]
  failFast: boolean
  allowNoChecks: boolean
  fixCommand: string | undefined
  stateDir: string | undefined
  stateBranch: string
  outcome: 'accepted' | 'rejected' | 'error' | undefined
  metric: number | undefined
  change: string | undefined
  reason: string | undefined
  stateMaxBytes: number
  failOnRed: boolean
}

/** A Config whose command works on one program (everything but reconcile). */
export interface ProgramConfig extends Config {
  program: string
  branch: string
}

function toConfig(raw: Raw): Config {
  return {
    command: raw.command,
    githubToken: raw['github-token'],
    program: raw.program,
    branch: raw.branch ?? (raw.program ? `autoloop/${raw.program}` : undefined),
    base: raw.base,
    sha: raw.sha,
    push: raw.push,
    pushToken: raw['push-token'],
    pr: raw.pr,
    createPr: raw['create-pr'],
    issue: raw.issue,
    maxFixAttempts: raw['max-fix-attempts'] ?? 5,
    timeoutMinutes: raw['timeout-minutes'],
    pollIntervalSeconds: raw['poll-interval-seconds'],
    checksGraceSeconds: raw['checks-grace-seconds'],
    requiredChecks: raw['required-checks'],
    ignoreChecks: raw['ignore-checks'],
    failFast: raw['fail-fast'],
    allowNoChecks: raw['allow-no-checks'],
    fixCommand: raw['fix-command'],
    stateDir: raw['state-dir'],
    stateBranch: raw['state-branch'],
    outcome: raw.outcome,
    metric: raw.metric,
    change: raw.change,
    reason: raw.reason,
    stateMaxBytes: raw['state-max-bytes'] ?? 30720,
    failOnRed: raw['fail-on-red']
  }
}

export function parseInputs(read: InputReader): Config {
  const values: Record<string, string> = {}
  for (const name of INPUT_NAMES) values[name] = read(name).trim()
  const parsed = rawSchema.safeParse(values)
  const problems: string[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `input \`${issue.path.join('.')}\`: ${issue.message}`)
  if (parsed.success) {
    const config = toConfig(parsed.data)
    problems.push(...crossFieldProblems(config))
    if (problems.length === 0) return config
  } else if (values['github-token'] === '') {
    problems.push(EMPTY_TOKEN)
  }
  throw new InputError(problems)
}

const EMPTY_TOKEN =
  'input `github-token`: empty; pass `${{ github.token }}` (the default) or a token with the permissions listed in the README'

function crossFieldProblems(config: Config): string[] {
  const problems: string[] = []
  if (config.command !== 'reconcile' && !config.program)
    problems.push(`input \`program\`: required for the \`${config.command}\` command`)
  if (config.command === 'record' && !config.outcome)
    problems.push('input `outcome`: required for `record` (accepted, rejected or error)')
  if (config.command === 'record' && config.outcome === 'accepted' && config.metric === undefined)
    problems.push('input `metric`: required when `outcome` is accepted')
  if (!config.githubToken) problems.push(EMPTY_TOKEN)
  return problems
}

export function isProgramConfig(config: Config): config is ProgramConfig {
  return config.program !== undefined && config.branch !== undefined
}
