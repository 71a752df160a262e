/**
 * The doctor's `settle-workflow` check (docs/commands.md: "doctor"; README: "Settling on
 * events"). Pure. A gate step with `wait: false` exits while CI runs and leaves its attempt to
 * `settle`, so some workflow must run `settle` when the repository's CI workflows complete:
 * triggered by `workflow_run` `completed` for each of them, on branches that let
 * `autoloop/<program>` through, with the permissions `settle` needs, and on the default branch
 * (GitHub starts a `workflow_run` workflow only from the default branch's file).
 */
import {
  SAMPLE_PROGRAM_BRANCH,
  ciWorkflowVerdicts,
  eventsOf,
  filterMatches,
  list,
  refAllowed
} from './ci-workflows.js'
import { finding } from './findings.js'
import type { Finding, RepoFacts } from './model.js'
import { ACCESS_RANK, COMMAND_PERMISSIONS, grantedAccess } from './permissions.js'
import type { ParsedFile, ParsedSetup } from './setup.js'
import { actionSteps, input, views, type ActionStep } from './workflow-view.js'

const EXAMPLE = 'examples/autoloop-settle.yml of autoloop-ci-gate'

/** The name `workflow_run.workflows` matches a workflow by: its `name:`, else its file path. */
function workflowName(file: ParsedFile): string {
  const name = file.doc?.name
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : file.path
}

/** The workflows among `others` with a step that runs `settle`. */
export function settleWorkflows(setup: ParsedSetup): ParsedFile[] {
  return setup.others.filter(
    (file) => file.doc !== null && actionSteps(file.doc).some((s) => s.command === 'settle')
  )
}

/** What keeps one settle workflow from settling the gate's attempts. */
function problemsOf(file: ParsedFile, ciNames: readonly string[], facts: RepoFacts): string[] {
  const doc = file.doc ?? {}
  const problems: string[] = []
  const events = eventsOf(doc.on)
  if (!events.has('workflow_run'))
    problems.push(
      `${file.path} is not triggered by workflow_run, the event a CI workflow's completion sends`
    )
  else {
    const config = events.get('workflow_run') ?? null
    const types = list(config?.types)
    if (types && !types.includes('completed'))
      problems.push(`${file.path}: on.workflow_run.types (${types.join(', ')}) lacks completed`)
    if (!refAllowed(config, SAMPLE_PROGRAM_BRANCH, 'branches'))
      problems.push(`${file.path}: on.workflow_run's branch filter leaves out autoloop/<program>`)
    const listed = list(config?.workflows) ?? []
    const missing = ciNames.filter((name) => !listed.includes(name) && !filterMatches(listed, name))
    if (missing.length > 0)
      problems.push(
        `${file.path}: on.workflow_run.workflows lacks ${missing.map((n) => JSON.stringify(n)).join(', ')} (CI on autoloop/<program>)`
      )
  }
  for (const step of actionSteps(doc).filter((s) => s.command === 'settle')) {
    const granted = step.jobDoc.permissions ?? doc.permissions
    const short = Object.entries(COMMAND_PERMISSIONS.settle)
      .filter(
        ([scope, access]) =>
          (ACCESS_RANK[grantedAccess(granted, scope)] ?? 0) < (ACCESS_RANK[access] ?? 0)
      )
      .map(([scope, access]) => `${scope}: ${access}`)
    if (short.length > 0)
      problems.push(`${file.path}: jobs.${step.job} runs settle without ${short.join(', ')}`)
  }
  const onDefault = facts.defaultBranchWorkflows
  const name = file.path.split('/').pop() as string
  if (Array.isArray(onDefault) && !onDefault.includes(name))
    problems.push(
      `${file.path} is not on the default branch${facts.defaultBranch ? ` ${facts.defaultBranch}` : ''}: GitHub starts a workflow_run workflow only from the default branch's file`
    )
  return problems
}

export function settleWorkflowCheck(setup: ParsedSetup, facts: RepoFacts): Finding {
  const { main } = views(setup)
  const gates = main ? actionSteps(main.doc).filter((s) => s.command === 'gate') : []
  const waiting = gates.filter((s) => {
    const wait = input(s, 'wait')
    return wait !== undefined && wait !== 'true'
  })
  if (waiting.length === 0)
    return finding(
      'settle-workflow',
      'ok',
      'no gate step has wait: false: the gate waits for CI itself, no settle workflow is needed'
    )
  const ciNames = ciWorkflowVerdicts(setup.others, facts.defaultBranch)
    .filter((v) => v.kind !== 'never')
    .map((v) => workflowName(setup.others.find((f) => f.path === v.path) as ParsedFile))
  const wanted = `on: workflow_run: {workflows: [${ciNames.map((n) => JSON.stringify(n)).join(', ')}], types: [completed], branches: ['autoloop/**']}`
  const candidates = settleWorkflows(setup)
  const first = waiting[0] as ActionStep
  const where = `jobs.${first.job} has wait: ${input(first, 'wait') ?? 'false'}`
  if (candidates.length === 0)
    return finding(
      'settle-workflow',
      'fail',
      `${where}, but no workflow runs settle: a waiting attempt is settled only by the scheduled reconcile`,
      `add ${EXAMPLE} to .github/workflows/ on the default branch, with ${wanted}`
    )
  const judged = candidates
    .map((file) => ({ file, problems: problemsOf(file, ciNames, facts) }))
    .sort((a, b) => a.problems.length - b.problems.length)
  const best = judged[0] as (typeof judged)[number]
  if (best.problems.length > 0)
    return finding(
      'settle-workflow',
      'fail',
      best.problems.join('; '),
      `make ${best.file.path} match ${EXAMPLE}: ${wanted}, the permissions of settle, on the default branch`
    )
  if (facts.defaultBranchWorkflows === undefined || facts.defaultBranchWorkflows === null)
    return finding(
      'settle-workflow',
      'warn',
      `${best.file.path} settles on the completion of ${ciNames.join(', ') || 'the CI workflows'}; whether it is on the default branch is unknown: ${facts.defaultBranchNote ?? 'no API access'}`,
      'run the doctor with GITHUB_TOKEN (or GH_TOKEN) and GITHUB_REPOSITORY set, or check that the file is on the default branch'
    )
  return finding(
    'settle-workflow',
    'ok',
    `${best.file.path} settles on the completion of ${ciNames.join(', ') || 'the CI workflows'}`
  )
}
