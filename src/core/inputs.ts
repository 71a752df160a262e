/**
 * Every input (docs/inputs-outputs.md: "Inputs"), validated with zod before any I/O. `parseInputs` is pure:
 * it takes a reader (the action's `INPUT_*` variables or the CLI's flags) and returns one
 * typed `Config`, or throws an InputError that lists every bad input at once, each with its
 * rule. The defaults are written here once; a test checks that action.yml declares the same.
 */
import { z } from 'zod'
import picomatch from 'picomatch'
import { ActionError } from './errors.js'
import { PROGRAM_NAME_PATTERN, isProgramName } from './schema.js'

const COMMANDS = ['gate', 'record', 'reset', 'reconcile', 'doctor', 'settle'] as const
export type Command = (typeof COMMANDS)[number]

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
type InputReader = (name: string) => string

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

const integerInput = <F extends number | undefined>(fallback: F, min: number, max: number) =>
  z.string().transform((raw, ctx): number | F => {
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

/** Environment variable names, as a shell can export them (`INPUT_*` names hold '-'). */
const envNameListInput = listInput.transform((names, ctx) => {
  for (const name of names)
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name))
      ctx.addIssue({
        code: 'custom',
        message: `"${name}" is not an environment variable name: list names such as NPM_TOKEN, one per line or comma separated`
      })
  return names
})

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

/** An http(s) base URL (`github-api-url`); no trailing slash. */
const apiUrlInput = z.string().transform((raw, ctx) => {
  if (raw === '') return undefined
  if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(raw)) {
    ctx.addIssue({
      code: 'custom',
      message: `"${raw}" is not an http(s) URL such as https://github.example.com/api/v3`
    })
    return z.NEVER
  }
  return raw.replace(/\/+$/, '')
})

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

/** A program name; the ledger, the state file and the branch are all named after it. */
const programInput = z.string().transform((raw, ctx) => {
  if (raw === '') return undefined
  if (!isProgramName(raw)) {
    ctx.addIssue({
      code: 'custom',
      message: `"${raw}" is not a program name: it must match ${PROGRAM_NAME_PATTERN.source} (a letter or digit, then up to 99 letters, digits, '.', '_' or '-')`
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
})

const branchInput = <F extends string | undefined>(fallback: F) =>
  z.string().transform((raw, ctx): string | F => {
    if (raw === '') return fallback
    const problem = branchNameProblem(raw)
    if (problem) {
      ctx.addIssue({
        code: 'custom',
        message: `"${raw}" is not a valid branch name: it ${problem}`
      })
      return z.NEVER
    }
    return raw
  })

const enumInput = <T extends string, F extends T | undefined>(values: readonly T[], fallback: F) =>
  z.string().transform((raw, ctx): T | F => {
    if (raw === '') return fallback
    if (!(values as readonly string[]).includes(raw)) {
      ctx.addIssue({ code: 'custom', message: `"${raw}" is not one of ${values.join(', ')}` })
      return z.NEVER
    }
    return raw as T
  })

/** A workflow to start with workflow_dispatch: its file name (`autoloop.lock.yml`) or its id. */
const workflowInput = z.string().transform((raw, ctx) => {
  if (raw === '') return undefined
  if (!/^(?:[A-Za-z0-9._-]+\.ya?ml|[1-9][0-9]{0,15})$/.test(raw)) {
    ctx.addIssue({
      code: 'custom',
      message: `"${raw}" is not a workflow file name such as autoloop.lock.yml (no folder) nor a workflow id`
    })
    return z.NEVER
  }
  return raw
})

/** GitHub takes at most 25 inputs per dispatch, each a string, a number or a boolean. */
const dispatchInputsInput = z.string().transform((raw, ctx) => {
  if (raw === '') return {}
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch (error) {
    ctx.addIssue({
      code: 'custom',
      message: `is not JSON (${error instanceof Error ? error.message : String(error)}); write an object such as {"mode": "fix"}`
    })
    return z.NEVER
  }
  const parsed = z
    .record(z.string().min(1), z.union([z.string(), z.number(), z.boolean()]))
    .refine(
      (inputs) => Object.keys(inputs).length <= 24,
      'has more than 24 keys (GitHub takes 25, with program)'
    )
    .safeParse(json)
  if (!parsed.success) {
    ctx.addIssue({
      code: 'custom',
      message: `must be a JSON object of strings, numbers or booleans: ${parsed.error.issues[0]?.message ?? 'invalid'}`
    })
    return z.NEVER
  }
  return Object.fromEntries(Object.entries(parsed.data).map(([key, value]) => [key, String(value)]))
})

/** The results GitHub gives a job in `needs.<job>.result`. */
const SAFE_OUTPUTS_RESULTS = ['success', 'failure', 'cancelled', 'skipped'] as const

const inputSchema = z
  .object({
    command: enumInput(COMMANDS, 'gate'),
    'github-token': z.string(),
    'github-api-url': apiUrlInput,
    program: programInput,
    branch: branchInput(undefined),
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
    wait: booleanInput(true),
    'allow-no-checks': booleanInput(false),
    'fix-command': optionalText,
    'fix-command-env': envNameListInput,
    'state-dir': optionalText,
    'state-branch': branchInput('memory/autoloop'),
    outcome: enumInput(['accepted', 'rejected', 'error'] as const, undefined),
    metric: metricInput,
    change: optionalText,
    reason: optionalText,
    'state-max-bytes': integerInput(30720, 4096, 1048576),
    'fail-on-red': booleanInput(false),
    'dispatch-workflow': workflowInput,
    'dispatch-ref': branchInput(undefined),
    'dispatch-inputs': dispatchInputsInput,
    'pre-existing-failures': enumInput(['allow', 'block'] as const, 'allow'),
    'rerun-failed': integerInput(1, 0, 5),
    'selection-file': optionalText,
    'iteration-file': optionalText,
    'forget-failures': booleanInput(false),
    'safe-outputs-result': enumInput(SAFE_OUTPUTS_RESULTS, undefined)
  })
  .transform((raw) => ({
    command: raw.command,
    githubToken: raw['github-token'],
    githubApiUrl: raw['github-api-url'],
    program: raw.program,
    branch: raw.branch ?? (raw.program ? `autoloop/${raw.program}` : undefined),
    base: raw.base,
    sha: raw.sha,
    push: raw.push,
    pushToken: raw['push-token'],
    pr: raw.pr,
    createPr: raw['create-pr'],
    issue: raw.issue,
    maxFixAttempts: raw['max-fix-attempts'],
    timeoutMinutes: raw['timeout-minutes'],
    pollIntervalSeconds: raw['poll-interval-seconds'],
    checksGraceSeconds: raw['checks-grace-seconds'],
    requiredChecks: raw['required-checks'],
    ignoreChecks: raw['ignore-checks'],
    failFast: raw['fail-fast'],
    wait: raw.wait,
    allowNoChecks: raw['allow-no-checks'],
    fixCommand: raw['fix-command'],
    fixCommandEnv: raw['fix-command-env'],
    stateDir: raw['state-dir'],
    stateBranch: raw['state-branch'],
    outcome: raw.outcome,
    metric: raw.metric,
    change: raw.change,
    reason: raw.reason,
    stateMaxBytes: raw['state-max-bytes'],
    failOnRed: raw['fail-on-red'],
    dispatchWorkflow: raw['dispatch-workflow'],
    dispatchRef: raw['dispatch-ref'],
    dispatchInputs: raw['dispatch-inputs'],
    preExistingFailures: raw['pre-existing-failures'],
    rerunFailed: raw['rerun-failed'],
    selectionFile: raw['selection-file'],
    iterationFile: raw['iteration-file'],
    forgetFailures: raw['forget-failures'],
    safeOutputsResult: raw['safe-outputs-result']
  }))

export const INPUT_NAMES = Object.keys(
  inputSchema.in.shape
) as (keyof typeof inputSchema.in.shape)[]

/** The inputs as read, before the per-command checks. */
type Inputs = z.output<typeof inputSchema>

/** A config whose program is known (record and reset; gate once it resolved it). */
export type ProgramConfig = Inputs & { program: string; branch: string }

/**
 * The config of a run, by command: `record` and `reset` always name their program, so their
 * commands take it as a string; `gate` may find it in the scheduler's selection file.
 */
export type Config =
  | (Inputs & { command: 'gate' | 'reconcile' | 'doctor' | 'settle' })
  | (ProgramConfig & { command: 'record' | 'reset' })

/** The config of one program: its branch defaults to `autoloop/<program>`. */
export function forProgram<C extends Inputs>(config: C, program: string): C & ProgramConfig {
  return { ...config, program, branch: config.branch ?? `autoloop/${program}` }
}

/** The run's config by command, or the problem that keeps it from being one. */
function byCommand(inputs: Inputs): Config | string {
  const { command, program } = inputs
  if (command === 'record' || command === 'reset') {
    if (!program) return `input \`program\`: required for the \`${command}\` command`
    return forProgram({ ...inputs, command }, program)
  }
  return { ...inputs, command }
}

export function parseInputs(read: InputReader): Config {
  const values: Record<string, string> = {}
  for (const name of INPUT_NAMES) values[name] = read(name).trim()
  const parsed = inputSchema.safeParse(values)
  const problems: string[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `input \`${issue.path.join('.')}\`: ${issue.message}`)
  if (parsed.success) {
    const config = byCommand(parsed.data)
    if (typeof config === 'string') problems.push(config)
    problems.push(...crossFieldProblems(parsed.data))
    if (problems.length === 0 && typeof config !== 'string') return config
  } else if (values['github-token'] === '') {
    problems.push(EMPTY_TOKEN)
  }
  throw new InputError(problems)
}

const EMPTY_TOKEN =
  'input `github-token`: empty; pass `${{ github.token }}` (the default) or a token with the permissions listed in the README'

function crossFieldProblems(config: Inputs): string[] {
  const problems: string[] = []
  if (config.command === 'gate' && !config.program && !config.selectionFile)
    problems.push(
      "input `program`: required for the `gate` command unless `selection-file` names the scheduler's selection"
    )
  if (config.command === 'record' && !config.outcome)
    problems.push('input `outcome`: required for `record` (accepted, rejected or error)')
  if (config.command === 'record' && config.outcome === 'accepted' && config.metric === undefined)
    problems.push('input `metric`: required when `outcome` is accepted')
  if (config.fixCommand && !config.push)
    problems.push(
      'input `fix-command`: needs `push: true`, since the fixes it commits must reach the branch to be gated; remove `push: false`, or drive the fix loop from the workflow instead'
    )
  if (config.fixCommand && !config.wait)
    problems.push(
      'input `wait`: false cannot go with `fix-command`, which fixes and gates again in the same step; drop one of them'
    )
  if (!config.githubToken) problems.push(EMPTY_TOKEN)
  return problems
}
