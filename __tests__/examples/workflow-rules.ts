/**
 * Rules the example workflows must keep, as functions that return the problems they find (an
 * empty list when the workflow keeps every rule), so a test can show both that the examples
 * pass and that a broken copy of them fails.
 *
 * gh-aw's frontmatter schema checks the shape of each key; these rules check what it cannot:
 * the job graph gh-aw's compiler and GitHub need (see docs/gh-aw.md, "The job graph, and why"), the
 * permissions each command of the action needs, the inputs action.yml declares, and that the
 * files the agent job hands over are the files the gate job reads.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, posix } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { z } from 'zod'
import { InputError, parseInputs } from '../../src/core/inputs.js'
import { WORKFLOWS_DIR } from '../../src/core/doctor/model.js'
import { ACCESS_RANK, COMMAND_PERMISSIONS } from '../../src/core/doctor/permissions.js'

/** The action as example workflows name it in `uses:`. */
export const ACTION = 'autoloop/autoloop-ci-gate'

/** What each command needs of GITHUB_TOKEN: the doctor's table (the permission tables in docs/gh-aw.md and the README's Security). */
export const REQUIRED_PERMISSIONS = {
  gate: COMMAND_PERMISSIONS.gate,
  reconcile: COMMAND_PERMISSIONS.reconcile
}

/**
 * Values that stand for the expressions the examples pass, so that the action's input parser
 * can read a step's `with:` as the runner would hand it over.
 */
export const EXPRESSION_SAMPLES: Record<string, string> = {
  '${{ github.token }}': 'ghs_sample',
  // A dispatched fixer run names its program; a scheduled run leaves it empty.
  '${{ github.event.inputs.program }}': 'perf',
  '${{ needs.safe_outputs.result }}': 'failure'
}

/** The actor of a run the gate dispatches with GITHUB_TOKEN. */
export const DISPATCH_ACTOR = 'github-actions[bot]'
/** How the gate job hands it the result of gh-aw's push job. */
export const SAFE_OUTPUTS_RESULT = '${{ needs.safe_outputs.result }}'

/** Where gh-aw's agent job keeps its files; its `agent` artifact is uploaded from here. */
export const GH_AW_ROOT = '/tmp/gh-aw'
/** The folder of the `agent` artifact that holds the files handed to later jobs. */
export const HANDOVER_DIR = `${GH_AW_ROOT}/agent`
/** Written by autoloop's scheduler before the agent starts. */
export const SELECTION_SOURCE = `${GH_AW_ROOT}/autoloop.json`
/** Written by the agent at the end of its run (the example's Step 5d). */
export const ITERATION_SOURCE = `${GH_AW_ROOT}/autoloop-iteration.json`
/** gh-aw's own jobs a gate job must wait for (docs/gh-aw.md, "The job graph, and why", says why each). */
export const GATE_NEEDS = ['agent', 'safe_outputs', 'push_repo_memory']
export const CI_TRIGGER_TOKEN = '${{ secrets.GH_AW_CI_TRIGGER_TOKEN }}'
export const PUSH_OUTPUTS = ['create-pull-request', 'push-to-pull-request-branch']

const stepSchema = z.looseObject({
  name: z.string().optional(),
  uses: z.string().optional(),
  run: z.string().optional(),
  if: z.unknown().optional(),
  with: z.record(z.string(), z.unknown()).optional(),
  'continue-on-error': z.unknown().optional()
})
type Step = z.infer<typeof stepSchema>

const jobSchema = z.looseObject({
  needs: z.union([z.string(), z.array(z.string())]).optional(),
  if: z.unknown().optional(),
  permissions: z.unknown().optional(),
  steps: z.array(stepSchema).optional(),
  'continue-on-error': z.unknown().optional(),
  'timeout-minutes': z.unknown().optional(),
  concurrency: z.unknown().optional()
})
type Job = z.infer<typeof jobSchema>

const workflowSchema = z.looseObject({
  on: z.unknown().optional(),
  jobs: z.record(z.string(), jobSchema).optional(),
  'post-steps': z.array(stepSchema).optional(),
  'safe-outputs': z.record(z.string(), z.unknown()).optional(),
  tools: z.record(z.string(), z.unknown()).optional()
})
type Workflow = z.infer<typeof workflowSchema>

/** Splits a gh-aw workflow file into its frontmatter (YAML text) and markdown body. */
export function splitFrontmatter(markdown: string): { frontmatter: string; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(markdown)
  if (!match?.[1] || match[2] === undefined) throw new Error('no frontmatter between --- lines')
  return { frontmatter: match[1], body: match[2] }
}

/** Parses YAML as gh-aw and the runner do (YAML 1.2; a repeated key is an error). */
export function readYaml(text: string): unknown {
  return parseYaml(text, { uniqueKeys: true })
}

/** The input names action.yml declares. */
export function declaredInputs(actionYml: string): Set<string> {
  const action = z.object({ inputs: z.record(z.string(), z.unknown()) }).parse(readYaml(actionYml))
  return new Set(Object.keys(action.inputs))
}

interface ActionStep {
  job: string
  jobConfig: Job
  step: Step
  command: string
  where: string
}

function readWorkflow(value: unknown): { workflow?: Workflow; problems: string[] } {
  const parsed = workflowSchema.safeParse(value)
  if (parsed.success) return { workflow: parsed.data, problems: [] }
  return {
    problems: parsed.error.issues.map(
      (issue) => `the workflow at ${issue.path.join('.') || '(root)'}: ${issue.message}`
    )
  }
}

function actionSteps(workflow: Workflow): ActionStep[] {
  const found: ActionStep[] = []
  for (const [job, jobConfig] of Object.entries(workflow.jobs ?? {})) {
    for (const [index, step] of (jobConfig.steps ?? []).entries()) {
      if (!step.uses?.startsWith(`${ACTION}@`) && step.uses !== './') continue
      const command = String(step.with?.command ?? 'gate')
      found.push({ job, jobConfig, step, command, where: `jobs.${job}.steps[${index}]` })
    }
  }
  return found
}

function needsOf(job: Job): string[] {
  if (job.needs === undefined) return []
  return typeof job.needs === 'string' ? [job.needs] : job.needs
}

/** Every `with:` key of the action's steps is an input action.yml declares (or a pending one). */
export function inputNameProblems(value: unknown, declared: Set<string>): string[] {
  const { workflow, problems } = readWorkflow(value)
  if (!workflow) return problems
  const steps = actionSteps(workflow)
  if (steps.length === 0) return [`no step uses ${ACTION}`]
  for (const { step, where } of steps) {
    for (const name of Object.keys(step.with ?? {})) {
      if (!declared.has(name)) problems.push(`${where}: \`${name}\` is not an input of the action`)
    }
  }
  return problems
}

/**
 * The action's steps pass values that parse: the action's own input parser reads them
 * (expressions replaced by EXPRESSION_SAMPLES).
 */
export function inputValueProblems(value: unknown): string[] {
  const { workflow, problems } = readWorkflow(value)
  if (!workflow) return problems
  for (const { step, where } of actionSteps(workflow)) {
    const inputs: Record<string, string> = {}
    for (const [name, raw] of Object.entries(step.with ?? {})) {
      const text = String(raw)
      if (!text.includes('${{')) inputs[name] = text
      else if (text in EXPRESSION_SAMPLES) inputs[name] = EXPRESSION_SAMPLES[text] ?? ''
      else problems.push(`${where}: \`${name}\`: no sample value for ${text} in EXPRESSION_SAMPLES`)
    }
    try {
      parseInputs((name) => inputs[name] ?? '')
    } catch (error) {
      if (!(error instanceof InputError)) throw error
      problems.push(...error.problems.map((problem) => `${where}: ${problem}`))
    }
  }
  return problems
}

/** Each job that runs the action grants GITHUB_TOKEN what the command needs, in map form. */
export function permissionProblems(value: unknown): string[] {
  const { workflow, problems } = readWorkflow(value)
  if (!workflow) return problems
  for (const { job, jobConfig, command } of actionSteps(workflow)) {
    const required = REQUIRED_PERMISSIONS[command as keyof typeof REQUIRED_PERMISSIONS]
    if (!required) continue
    const granted = z.record(z.string(), z.string()).safeParse(jobConfig.permissions)
    if (!granted.success) {
      problems.push(
        `jobs.${job}.permissions must be a map of scope to access (gh-aw drops any other form from a custom job)`
      )
      continue
    }
    for (const [scope, access] of Object.entries(required)) {
      const given = granted.data[scope] ?? 'none'
      if ((ACCESS_RANK[given] ?? 0) < (ACCESS_RANK[access] ?? 0))
        problems.push(
          `jobs.${job} runs \`${command}\` and needs ${scope}: ${access}; it grants ${given}`
        )
    }
  }
  return problems
}

function onlyJobRunning(
  workflow: Workflow,
  command: string,
  problems: string[]
): ActionStep | undefined {
  const steps = actionSteps(workflow).filter((step) => step.command === command)
  if (steps.length !== 1) {
    problems.push(`expected one job that runs \`${command}\`, found ${steps.length}`)
    return undefined
  }
  return steps[0]
}

function mapAt(value: unknown, ...path: string[]): Record<string, unknown> | undefined {
  let current = value
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return typeof current === 'object' && current !== null
    ? (current as Record<string, unknown>)
    : undefined
}

/**
 * The job graph and wiring of the gh-aw example, which gh-aw's schema cannot check.
 * `workflowName` is the file's name without `.md`; gh-aw compiles it to `<name>.lock.yml`.
 */
export function ghawGraphProblems(value: unknown, workflowName: string): string[] {
  const { workflow, problems } = readWorkflow(value)
  if (!workflow) return problems
  const gate = onlyJobRunning(workflow, 'gate', problems)
  const reconcile = onlyJobRunning(workflow, 'reconcile', problems)
  if (gate) problems.push(...gateJobProblems(workflow, gate, workflowName))
  if (reconcile) problems.push(...reconcileJobProblems(reconcile))
  if (gate && reconcile) {
    for (const input of ['state-branch', 'timeout-minutes']) {
      const inGate = gate.step.with?.[input]
      const inReconcile = reconcile.step.with?.[input]
      if (String(inGate) !== String(inReconcile))
        problems.push(
          `\`${input}\` differs: ${String(inGate)} in the gate, ${String(inReconcile)} in reconcile`
        )
    }
  }
  problems.push(...currentGhAwProblems(workflow, gate))
  for (const output of PUSH_OUTPUTS) {
    const token = mapAt(workflow['safe-outputs'], output)?.['github-token-for-extra-empty-commit']
    if (token !== CI_TRIGGER_TOKEN)
      problems.push(
        `safe-outputs.${output}.github-token-for-extra-empty-commit is not ${CI_TRIGGER_TOKEN}`
      )
  }
  return problems
}

/**
 * What today's gh-aw needs (README: "Prerequisites"): the dispatched fixer run may start
 * (`on.bots`), a push that cannot land fails where the gate sees it, the gate reads that
 * result, a branch whose PR was merged or closed can get a PR again, no deprecated key.
 */
function currentGhAwProblems(workflow: Workflow, gate: ActionStep | undefined): string[] {
  const problems: string[] = []
  const bots = (workflow.on as Record<string, unknown> | undefined)?.bots
  if (
    gate?.step.with?.['dispatch-workflow'] &&
    !(Array.isArray(bots) && bots.includes(DISPATCH_ACTOR))
  )
    problems.push(
      `on.bots does not list ${DISPATCH_ACTOR}: gh-aw after v0.72 skips the fixer run the gate dispatches`
    )
  const push = mapAt(workflow['safe-outputs'], 'push-to-pull-request-branch')
  if (push?.['fallback-as-pull-request'] !== false)
    problems.push(
      'safe-outputs.push-to-pull-request-branch.fallback-as-pull-request is not false: a push that cannot land goes to a fallback PR'
    )
  if (push && 'title-prefix' in push)
    problems.push(
      'safe-outputs.push-to-pull-request-branch.title-prefix is deprecated: use required-title-prefix'
    )
  const create = mapAt(workflow['safe-outputs'], 'create-pull-request')
  if (create?.['preserve-branch-name'] === true && create['recreate-ref'] !== true)
    problems.push(
      'safe-outputs.create-pull-request has preserve-branch-name without recreate-ref: no PR for a branch whose PR was merged or closed'
    )
  if (gate && gate.step.with?.['safe-outputs-result'] !== SAFE_OUTPUTS_RESULT)
    problems.push(`${gate.where}: safe-outputs-result is not ${SAFE_OUTPUTS_RESULT}`)
  return problems
}

function gateJobProblems(workflow: Workflow, gate: ActionStep, workflowName: string): string[] {
  const problems: string[] = []
  const { job, jobConfig, step } = gate
  const inputs = step.with ?? {}
  if (job !== 'ci_gate') problems.push(`the gate job is \`${job}\`; the README calls it ci_gate`)
  const needs = needsOf(jobConfig)
  for (const need of GATE_NEEDS)
    if (!needs.includes(need)) problems.push(`jobs.${job}.needs does not list ${need}`)
  const condition = typeof jobConfig.if === 'string' ? jobConfig.if.trim() : ''
  if (!condition.startsWith('always()'))
    problems.push(`jobs.${job}.if does not start with always()`)
  if (!condition.includes('!cancelled()'))
    problems.push(
      `jobs.${job}.if lacks !cancelled(): an always() job keeps running when the run is cancelled`
    )
  if (jobConfig.concurrency !== undefined)
    problems.push(`jobs.${job} has a concurrency group: GitHub would cancel a pending gate`)
  const jobTimeout = Number(jobConfig['timeout-minutes'])
  const gateTimeout = Number(inputs['timeout-minutes'] ?? 60)
  if (!(jobTimeout > gateTimeout))
    problems.push(
      `jobs.${job}.timeout-minutes (${String(jobConfig['timeout-minutes'])}) must exceed the gate's timeout-minutes (${gateTimeout})`
    )
  if (String(inputs.push) !== 'false') problems.push(`${gate.where}: push is not false`)
  if (String(inputs['create-pr']) !== 'false')
    problems.push(`${gate.where}: create-pr is not false`)
  const memoryBranch = mapAt(workflow.tools, 'repo-memory')?.['branch-name']
  if (inputs['state-branch'] !== memoryBranch)
    problems.push(
      `${gate.where}: state-branch is not the repo-memory branch ${String(memoryBranch)}`
    )
  if (inputs['dispatch-workflow'] !== `${workflowName}.lock.yml`)
    problems.push(`${gate.where}: dispatch-workflow is not this workflow, ${workflowName}.lock.yml`)
  const dispatchInputs = mapAt(workflow.on, 'workflow_dispatch', 'inputs') ?? {}
  // A malformed dispatch-inputs is reported by its input rule; here it adds no names.
  const sent = ['program', ...jsonObjectKeys(String(inputs['dispatch-inputs'] ?? '{}'))]
  for (const name of sent)
    if (!(name in dispatchInputs))
      problems.push(
        `the fixer run is dispatched with \`${name}\`, which on.workflow_dispatch.inputs lacks`
      )
  problems.push(...downloadProblems(gate))
  return problems
}

function jsonObjectKeys(text: string): string[] {
  try {
    const parsed = z.record(z.string(), z.unknown()).safeParse(JSON.parse(text))
    return parsed.success ? Object.keys(parsed.data) : []
  } catch {
    return []
  }
}

/** The gate job downloads the `agent` artifact, without failing when it is missing. */
function downloadProblems(gate: ActionStep): string[] {
  const steps = gate.jobConfig.steps ?? []
  const gateIndex = steps.indexOf(gate.step)
  const download = steps
    .slice(0, gateIndex)
    .find((step) => step.uses?.startsWith('actions/download-artifact@'))
  if (!download) return [`jobs.${gate.job}: no actions/download-artifact step before the gate`]
  const problems: string[] = []
  if (download.with?.name !== 'agent')
    problems.push(`jobs.${gate.job}: the download is not of the \`agent\` artifact`)
  if (download['continue-on-error'] !== true)
    problems.push(`jobs.${gate.job}: a missing agent artifact would fail the download step`)
  // The artifact keeps paths relative to GH_AW_ROOT, so downloading it there restores them.
  if (posix.normalize(`${String(download.with?.path)}/`) !== `${GH_AW_ROOT}/`)
    problems.push(`jobs.${gate.job}: the agent artifact is not downloaded to ${GH_AW_ROOT}/`)
  for (const input of ['selection-file', 'iteration-file']) {
    const path = String(gate.step.with?.[input])
    if (posix.dirname(path) !== HANDOVER_DIR)
      problems.push(`${gate.where}: ${input} ${path} is not in ${HANDOVER_DIR}/`)
  }
  return problems
}

function reconcileJobProblems(reconcile: ActionStep): string[] {
  const problems: string[] = []
  const { job, jobConfig } = reconcile
  if (job !== 'ci_reconcile')
    problems.push(`the reconcile job is \`${job}\`; the README calls it ci_reconcile`)
  if (jobConfig.needs !== undefined)
    problems.push(`jobs.${job} has needs: without it gh-aw runs it before the agent`)
  if (jobConfig['continue-on-error'] !== true)
    problems.push(`jobs.${job} is not continue-on-error: true (it must be fail-soft)`)
  // reconcile's doctor reads the workflows from the job's checkout and says nothing without one.
  const steps = jobConfig.steps ?? []
  const checkout = steps
    .slice(0, steps.indexOf(reconcile.step))
    .find((step) => step.uses?.startsWith('actions/checkout@'))
  const sparse = checkout?.with?.['sparse-checkout']
  const folders = sparse === undefined ? [WORKFLOWS_DIR] : String(sparse).trim().split(/\s+/)
  if (!checkout || !folders.includes(WORKFLOWS_DIR))
    problems.push(
      `jobs.${job} checks out no ${WORKFLOWS_DIR} before reconcile: its doctor cannot run`
    )
  return problems
}

/**
 * Runs the workflow's post-steps with GH_AW_ROOT moved to a scratch folder, as the agent job
 * would after the scheduler and the agent wrote their files, and checks that the files the
 * gate reads are then in the handover folder; and that the post-steps succeed, copying
 * nothing, when neither file was written (they must never fail the agent job).
 */
export function handoverProblems(value: unknown): string[] {
  const { workflow, problems } = readWorkflow(value)
  if (!workflow) return problems
  const gate = actionSteps(workflow).find((step) => step.command === 'gate')
  if (!gate) return ['no gate step reads the handed-over files']
  const postSteps = workflow['post-steps'] ?? []
  for (const [index, step] of postSteps.entries())
    if (step.if !== 'always()')
      problems.push(`post-steps[${index}] does not run always(): a failed agent hands over nothing`)
  const expected: [string, string][] = [
    [String(gate.step.with?.['selection-file']), SELECTION_SOURCE],
    [String(gate.step.with?.['iteration-file']), ITERATION_SOURCE]
  ]
  const root = mkdtempSync(join(tmpdir(), 'gh-aw-handover-'))
  try {
    const inSandbox = (path: string) => join(root, path.slice(GH_AW_ROOT.length))
    for (const [, source] of expected) {
      mkdirSync(dirname(inSandbox(source)), { recursive: true })
      writeFileSync(inSandbox(source), `{"written-to": ${JSON.stringify(source)}}\n`)
    }
    runPostSteps(postSteps, root, problems)
    for (const [target, source] of expected) {
      const copied = inSandbox(target)
      if (!target.startsWith(`${GH_AW_ROOT}/`) || !existsSync(copied))
        problems.push(`the post-steps do not put ${source} where the gate reads it, ${target}`)
      else if (readFileSync(copied, 'utf8') !== readFileSync(inSandbox(source), 'utf8'))
        problems.push(`${target} is not a copy of ${source}`)
    }
    rmSync(root, { recursive: true, force: true })
    mkdirSync(root)
    runPostSteps(postSteps, root, problems)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
  return problems
}

function runPostSteps(steps: Step[], root: string, problems: string[]): void {
  for (const [index, step] of steps.entries()) {
    if (!step.run) continue
    try {
      // The runner's default shell for `run:` on Linux, with the paths moved to `root`.
      execFileSync(
        'bash',
        ['--noprofile', '--norc', '-e', '-c', step.run.replaceAll(GH_AW_ROOT, root)],
        {
          stdio: 'pipe'
        }
      )
    } catch (error) {
      const { status, stderr } = error as { status?: unknown; stderr?: unknown }
      problems.push(
        `post-steps[${index}] failed (exit ${String(status)}): ${String(stderr).trim()}`
      )
    }
  }
}

/**
 * Other actions are pinned to a full commit SHA with the version as a comment; the action
 * itself may stay on its major tag in an example, with a comment saying to pin a SHA.
 */
export function pinProblems(yamlText: string): string[] {
  const problems: string[] = []
  const lines = yamlText.split('\n')
  for (const [index, line] of lines.entries()) {
    const match = /^\s*(?:-\s+)?uses:\s*(\S+)(.*)$/.exec(line)
    if (!match?.[1]) continue
    const [name, ref] = match[1].split('@')
    if (name === ACTION) {
      const context = lines.slice(Math.max(0, index - 2), index + 1).join('\n')
      if (!/^[0-9a-f]{40}$/.test(ref ?? '') && !/pin[^\n]*SHA/i.test(context))
        problems.push(`line ${index + 1}: ${match[1]} without a comment to pin a SHA`)
    } else if (name !== '.' && !/^[0-9a-f]{40}$/.test(ref ?? '')) {
      problems.push(`line ${index + 1}: ${match[1]} is not pinned to a full commit SHA`)
    } else if (name !== '.' && !/#\s*v\d/.test(match[2] ?? '')) {
      problems.push(`line ${index + 1}: ${match[1]} has no version comment`)
    }
  }
  return problems
}
