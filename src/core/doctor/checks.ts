/**
 * The doctor's checks (docs/commands.md: "doctor"): parsed files and API facts in, one finding per fact
 * the loop rests on out. Pure.
 *
 * The compiled lock is what GitHub runs, so a check reads the lock when there is one and the
 * frontmatter otherwise. When the lock breaks a rule that the frontmatter keeps, the lock is
 * older than the workflow: the fix is to compile it again.
 */
import { ciWorkflowVerdicts } from './ci-workflows.js'
import { settleWorkflowCheck } from './settle-workflow.js'
import {
  FIRST_GH_AW_SKIPPING_BOT_DISPATCH,
  GH_AW_WITHOUT_PUSH_FALLBACK,
  LOCK_FILE,
  NEWEST_TESTED_GH_AW,
  OLDEST_SUPPORTED_GH_AW,
  WORKFLOW_FILE,
  type Finding,
  type RepoFacts
} from './model.js'
import { ACCESS_RANK, COMMAND_PERMISSIONS, grantedAccess } from './permissions.js'
import { asMap, at, compareVersions, type ParsedSetup, type YamlMap } from './setup.js'
import { finding, type CheckId } from './findings.js'
import {
  RECOMPILE,
  actionSteps,
  input,
  judged,
  needsOf,
  ruleFinding,
  sameExpression,
  staleMessage,
  stepsOf,
  views,
  type View
} from './workflow-view.js'

/** gh-aw's jobs the gate job must wait for (docs/gh-aw.md: "The job graph, and why"). */
export const GATE_NEEDS = ['agent', 'safe_outputs', 'push_repo_memory'] as const
/** What the gate step passes as `safe-outputs-result`. */
export const SAFE_OUTPUTS_RESULT = '${{ needs.safe_outputs.result }}'
/** The bot a fixer run dispatched with GITHUB_TOKEN runs as. */
const DISPATCH_BOT = 'github-actions[bot]'
/** Where gh-aw's agent job keeps its files, and the folder its `agent` artifact carries. */
const GH_AW_ROOT = '/tmp/gh-aw'
const HANDOVER_DIR = `${GH_AW_ROOT}/agent`
const PUSH_OUTPUTS = ['create-pull-request', 'push-to-pull-request-branch'] as const
const EXAMPLE = 'examples/gh-aw/autoloop.md of autoloop-ci-gate'

export interface DoctorOptions {
  /** The state branch when the workflow's gate step names none (the `state-branch` input). */
  stateBranch: string
}

// --- the checks ---------------------------------------------------------------------------

function workflowCheck(setup: ParsedSetup): Finding {
  if (!setup.workflow)
    return finding(
      'workflow',
      'fail',
      `no ${WORKFLOW_FILE} (read ${setup.source})`,
      'install autoloop (its README), then merge in the CI gate from ' + EXAMPLE
    )
  const broken = [setup.workflow, setup.lock].filter((file) => file?.error)
  if (broken.length > 0)
    return finding(
      'workflow',
      'fail',
      broken.map((file) => `${file?.path} ${file?.error}`).join('; '),
      'correct the file (its YAML), then run `gh aw compile autoloop`'
    )
  return finding(
    'workflow',
    'ok',
    `read ${[setup.workflow.path, setup.lock?.path].filter(Boolean).join(' and ')} (${setup.source})`
  )
}

function versionCheck(setup: ParsedSetup): Finding {
  const range = `supported from ${OLDEST_SUPPORTED_GH_AW}, tested up to ${NEWEST_TESTED_GH_AW}`
  if (!setup.lock)
    return finding(
      'gh-aw-version',
      'fail',
      `no ${LOCK_FILE}: the workflow was never compiled`,
      RECOMPILE
    )
  const version = setup.ghAwVersion
  if (version === null)
    return finding(
      'gh-aw-version',
      'warn',
      `the lock names no gh-aw release (a development build of gh-aw compiled it); ${range}`,
      `compile it with a gh-aw release: \`gh extension upgrade gh-aw\`, then ${RECOMPILE}`
    )
  if (compareVersions(version, OLDEST_SUPPORTED_GH_AW) < 0)
    return finding(
      'gh-aw-version',
      'fail',
      `compiled by gh-aw ${version}, older than ${OLDEST_SUPPORTED_GH_AW}`,
      `\`gh extension upgrade gh-aw\`, then ${RECOMPILE}`
    )
  if (compareVersions(version, NEWEST_TESTED_GH_AW) > 0)
    return finding(
      'gh-aw-version',
      'warn',
      `compiled by gh-aw ${version}, newer than ${NEWEST_TESTED_GH_AW}, the newest this release of autoloop-ci-gate was tested with; the other checks still apply`,
      'nothing to change when every other check is ok; report anything the gate gets wrong'
    )
  return finding('gh-aw-version', 'ok', `compiled by gh-aw ${version} (${range})`)
}

function ciGateCheck(setup: ParsedSetup): Finding {
  const fix = `add the ci_gate job of ${EXAMPLE} (needs: [${GATE_NEEDS.join(', ')}], if: always() && …, push: false, safe-outputs-result: ${SAFE_OUTPUTS_RESULT}), then ${RECOMPILE}`
  const { problems, stale, view } = judged(setup, ({ doc }) => {
    const gates = actionSteps(doc).filter((s) => s.command === 'gate')
    if (gates.length === 0) return ['no job runs the gate (a step with `command: gate`)']
    const problems: string[] = []
    for (const gate of gates) {
      const needs = needsOf(gate.jobDoc)
      const missing = GATE_NEEDS.filter((need) => !needs.includes(need))
      if (missing.length > 0) problems.push(`jobs.${gate.job}.needs lacks ${missing.join(', ')}`)
      const condition = typeof gate.jobDoc.if === 'string' ? gate.jobDoc.if.trim() : ''
      if (!condition.startsWith('always()'))
        problems.push(`jobs.${gate.job}.if does not start with always()`)
      if (input(gate, 'push') !== 'false')
        problems.push(`jobs.${gate.job}: the gate step does not set push: false`)
      if (!sameExpression(input(gate, 'safe-outputs-result'), SAFE_OUTPUTS_RESULT))
        problems.push(
          `jobs.${gate.job}: the gate step does not pass safe-outputs-result: ${SAFE_OUTPUTS_RESULT}`
        )
    }
    return problems
  })
  return ruleFinding(
    'ci-gate',
    { problems, stale, view },
    `the gate job waits for ${GATE_NEEDS.join(', ')}, runs always(), gates without pushing`,
    fix
  )
}

function ciReconcileCheck(setup: ParsedSetup): Finding {
  const fix = `add the ci_reconcile job of ${EXAMPLE} (no needs, continue-on-error: true), then ${RECOMPILE}`
  const { problems, stale, view } = judged(setup, ({ doc, compiled }) => {
    const reconciles = actionSteps(doc).filter((s) => s.command === 'reconcile')
    if (reconciles.length === 0) return ['no job runs reconcile before the agent']
    const problems: string[] = []
    const agentNeeds = needsOf(asMap(at(doc, 'jobs', 'agent')) ?? {})
    for (const reconcile of reconciles) {
      const before = compiled
        ? agentNeeds.includes(reconcile.job)
        : !needsOf(reconcile.jobDoc).some((n) => n === 'agent' || n === 'pre_activation')
      if (!before)
        problems.push(
          compiled
            ? `the agent job does not wait for jobs.${reconcile.job}`
            : `jobs.${reconcile.job}.needs names agent or pre_activation, so it does not run before the agent`
        )
      if (reconcile.jobDoc['continue-on-error'] !== true)
        problems.push(
          `jobs.${reconcile.job} is not continue-on-error: true (a reconcile error would stop the agent)`
        )
    }
    return problems
  })
  return ruleFinding(
    'ci-reconcile',
    { problems, stale, view },
    'reconcile runs before the agent, fail-soft',
    fix
  )
}

function pinnedCheck(setup: ParsedSetup): Finding {
  const { main } = views(setup)
  const steps = main ? actionSteps(main.doc) : []
  if (steps.length === 0)
    return finding(
      'action-pinned',
      'warn',
      'no step uses autoloop-ci-gate yet',
      'see ci_gate and ci_reconcile'
    )
  const loose = [
    ...new Set(
      steps.filter((s) => s.uses !== './' && !/@[0-9a-f]{40}$/.test(s.uses)).map((s) => s.uses)
    )
  ]
  if (loose.length === 0)
    return finding(
      'action-pinned',
      'ok',
      `${steps.length} step(s) use the action at a full commit SHA`
    )
  return finding(
    'action-pinned',
    'warn',
    `${loose.join(', ')} is not pinned to a full commit SHA: whoever moves that ref runs code with the job's write token`,
    'pin each `uses:` to the full commit SHA of a release, with the tag as a comment (`@<40-hex sha> # v1.2.3`)'
  )
}

/** A command's scopes as the permissions fix names them (`contents write, checks read, …`). */
function scopesOf(command: keyof typeof COMMAND_PERMISSIONS): string {
  return Object.entries(COMMAND_PERMISSIONS[command])
    .map(([scope, access]) => `${scope} ${access}`)
    .join(', ')
}

const PERMISSIONS_FIX = `grant each job the README's permissions for its command (gate: ${scopesOf('gate')}; reconcile: ${scopesOf('reconcile')}), in map form`

function permissionsCheck(setup: ParsedSetup): Finding {
  const { problems, stale, view } = judged(setup, ({ doc, compiled }) => {
    const problems: string[] = []
    const seen = new Set<string>()
    for (const step of actionSteps(doc)) {
      const required = COMMAND_PERMISSIONS[step.command as keyof typeof COMMAND_PERMISSIONS]
      if (!required || seen.has(`${step.job} ${step.command}`)) continue
      seen.add(`${step.job} ${step.command}`)
      const granted = step.jobDoc.permissions ?? (compiled ? doc.permissions : undefined)
      if (!compiled && typeof granted === 'string') {
        problems.push(
          `jobs.${step.job}.permissions is \`${granted}\`: write the map form (older gh-aw drops any other form from a custom job)`
        )
        continue
      }
      for (const [scope, access] of Object.entries(required)) {
        const given = grantedAccess(granted, scope)
        if ((ACCESS_RANK[given] ?? 0) < (ACCESS_RANK[access] ?? 0))
          problems.push(
            `jobs.${step.job} runs \`${step.command}\` and needs ${scope}: ${access}; it grants ${given}`
          )
      }
    }
    return problems
  })
  if (!view || actionSteps(view.doc).length === 0)
    return finding(
      'permissions',
      'warn',
      'no job runs the action yet',
      'see ci_gate and ci_reconcile'
    )
  return ruleFinding(
    'permissions',
    { problems, stale, view },
    'every job that runs the action grants what its command needs',
    PERMISSIONS_FIX
  )
}

/** Does pre-activation let the dispatch bot through? From the lock's membership step, or the frontmatter. */
function botAllowed(view: View): boolean {
  const isBot = (name: string) => {
    const id = name.trim().toLowerCase()
    return id === DISPATCH_BOT || id === 'github-actions'
  }
  const names = (value: unknown): string[] =>
    typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value.map(String) : []
  if (view.compiled) {
    const pre = asMap(at(view.doc, 'jobs', 'pre_activation'))
    if (!pre) return true
    const membership = stepsOf(pre).find((s) => at(s, 'env', 'GH_AW_REQUIRED_ROLES') !== undefined)
    if (!membership) return true
    if (names(at(membership, 'env', 'GH_AW_REQUIRED_ROLES')).some((r) => r.trim() === 'all'))
      return true
    return names(at(membership, 'env', 'GH_AW_ALLOWED_BOTS')).some(isBot)
  }
  const roles = [...names(at(view.doc, 'on', 'roles')), ...names(view.doc.roles)]
  if (roles.some((r) => r.trim() === 'all')) return true
  return [...names(at(view.doc, 'on', 'bots')), ...names(view.doc.bots)].some(isBot)
}

interface Issue {
  level: 'warn' | 'fail'
  text: string
  fix: string
}

/** One finding from several issues: the worst level, every text, each fix once. */
function fromIssues(id: CheckId, issues: readonly Issue[], okMessage: string): Finding {
  if (issues.length === 0) return finding(id, 'ok', okMessage)
  const level = issues.some((issue) => issue.level === 'fail') ? 'fail' : 'warn'
  const fixes = [...new Set(issues.map((issue) => issue.fix))]
  return finding(id, level, issues.map((issue) => issue.text).join('; '), fixes.join('; '))
}

function fixerRunCheck(setup: ParsedSetup): Finding {
  const { main, frontmatter } = views(setup)
  if (!main)
    return finding('fixer-run', 'fail', 'no workflow to read', 'see the autoloop workflow check')
  const version = setup.ghAwVersion
  const issues: Issue[] = []
  const gates = actionSteps(main.doc).filter((s) => s.command === 'gate')
  const dispatch = gates.map((g) => input(g, 'dispatch-workflow')).find((w) => w !== undefined)
  const dispatchFix = 'give the gate step `dispatch-workflow: autoloop.lock.yml`'
  if (gates.length > 0 && dispatch === undefined)
    issues.push({
      level: 'warn',
      text: 'the gate starts no fixer run (no dispatch-workflow): a red attempt waits for the next scheduled run',
      fix: dispatchFix
    })
  if (dispatch !== undefined && dispatch !== 'autoloop.lock.yml')
    issues.push({
      level: 'fail',
      text: `the gate dispatches ${dispatch}, not this workflow (autoloop.lock.yml)`,
      fix: dispatchFix
    })
  if (at(main.doc, 'on', 'workflow_dispatch', 'inputs', 'program') === undefined)
    issues.push({
      level: 'fail',
      text: 'on.workflow_dispatch takes no `program` input, so a fixer run cannot name its program',
      fix: "keep autoloop's on.workflow_dispatch.inputs.program"
    })
  if (!botAllowed(main)) {
    const stale = main.compiled && frontmatter !== null && botAllowed(frontmatter)
    const what = stale
      ? `autoloop.md lets ${DISPATCH_BOT} through pre-activation but the lock does not (it is older than the workflow)`
      : `pre-activation does not let ${DISPATCH_BOT} start the workflow (on.bots does not list it)`
    const fix = stale
      ? RECOMPILE
      : `add \`bots: ["${DISPATCH_BOT}"]\` under \`on:\` in autoloop.md, then ${RECOMPILE}`
    const since = `gh-aw PR #31605 (${FIRST_GH_AW_SKIPPING_BOT_DISPATCH} on)`
    if (version === null)
      issues.push({
        level: 'fail',
        text: `${what}: the lock names no gh-aw release, so a release after ${since} is assumed, which skips every fixer run the gate dispatches`,
        fix
      })
    else if (compareVersions(version, FIRST_GH_AW_SKIPPING_BOT_DISPATCH) >= 0)
      issues.push({
        level: 'fail',
        text: `${what}: gh-aw ${version}, like every release since ${since}, skips every fixer run the gate dispatches`,
        fix
      })
    else
      issues.push({
        level: 'warn',
        text: `${what}: gh-aw ${version} still trusts workflow_dispatch, but from ${FIRST_GH_AW_SKIPPING_BOT_DISPATCH} on (gh-aw PR #31605) every fixer run the gate dispatches is skipped`,
        fix
      })
  }
  return fromIssues(
    'fixer-run',
    issues,
    `the gate dispatches autoloop.lock.yml with its program, and ${DISPATCH_BOT} passes pre-activation`
  )
}

/** gh-aw's file-glob as its push_repo_memory reads it: `*` stays in a folder, `**` crosses them. */
function memoryGlobMatches(glob: string, path: string): boolean {
  let source = ''
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i] as string
    if (c === '*' && glob[i + 1] === '*') {
      source += '.*'
      i += 1
    } else if (c === '*') source += '[^/]*'
    else if (c === '?') source += '[^/]'
    else source += c.replace(/[.+^$|(){}[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${source}$`).test(path)
}

/** The gate's state branch: its step's `state-branch`, else the configured one. */
export function stateBranchOf(setup: ParsedSetup, options: DoctorOptions): string {
  const { main } = views(setup)
  const steps = main ? actionSteps(main.doc) : []
  const step = steps.find((s) => s.command === 'gate') ?? steps[0]
  return (step && input(step, 'state-branch')) ?? options.stateBranch
}

/** Every state branch the action's steps use (a step without `state-branch`: the configured one). */
function stateBranchesOf(view: View, options: DoctorOptions): string[] {
  const steps = actionSteps(view.doc).filter((s) => s.command !== 'doctor')
  const branches = steps.map((s) => input(s, 'state-branch') ?? options.stateBranch)
  return [...new Set(branches.length > 0 ? branches : [options.stateBranch])]
}

/** The file-globs of the memory on `branch`: null when no memory pushes to it, [] when none is set. */
function memoryGlobs(view: View, branch: string): string[] | null {
  const globs = (value: unknown): string[] =>
    typeof value === 'string'
      ? value.split(view.compiled ? /\s+/ : /\n/).filter(Boolean)
      : Array.isArray(value)
        ? value.map(String)
        : []
  if (view.compiled) {
    const job = asMap(at(view.doc, 'jobs', 'push_repo_memory'))
    const step = job ? stepsOf(job).find((s) => at(s, 'env', 'BRANCH_NAME') === branch) : undefined
    return step ? globs(at(step, 'env', 'FILE_GLOB_FILTER')) : null
  }
  const memory = at(view.doc, 'tools', 'repo-memory')
  const entries = Array.isArray(memory) ? memory.map(asMap) : [memory === true ? {} : asMap(memory)]
  for (const entry of entries) {
    if (!entry) continue
    const name = entry['branch-name'] ?? `memory/${String(entry.id ?? 'default')}`
    if (name === branch) return globs(entry['file-glob'])
  }
  return null
}

function memoryGlobCheck(setup: ParsedSetup, options: DoctorOptions): Finding {
  const branch = stateBranchOf(setup, options)
  const ledger = 'ci-gate/example.json'
  const { problems, stale, view } = judged(setup, (view) =>
    stateBranchesOf(view, options).flatMap((branch) => {
      const globs = memoryGlobs(view, branch)
      if (globs === null)
        return [`no repo-memory pushes to ${branch}, the state branch the action is given`]
      if (globs.length === 0)
        return [
          `repo-memory on ${branch} has no file-glob: every memory push copies the agent's whole snapshot, its stale ci-gate/ ledgers too`
        ]
      const leaking = globs.filter((glob) => memoryGlobMatches(glob, ledger))
      return leaking.length > 0
        ? [
            `file-glob ${leaking.join(', ')} matches ${ledger}: memory pushes copy the agent's stale ledgers over the gate's`
          ]
        : []
    })
  )
  if (!view)
    return finding('memory-glob', 'fail', 'no workflow to read', 'see the autoloop workflow check')
  return ruleFinding(
    'memory-glob',
    { problems, stale, view },
    `repo-memory on ${branch} pushes ${memoryGlobs(view, branch)?.join(', ')} only: ci-gate/ stays the gate's`,
    `set \`file-glob: ['*.md']\` on tools.repo-memory (branch-name: ${branch}) in autoloop.md, then ${RECOMPILE}`
  )
}

function safeOutputsEnv(doc: YamlMap, name: string): unknown {
  const job = asMap(at(doc, 'jobs', 'safe_outputs'))
  if (!job) return undefined
  const value = at(job, 'env', name)
  if (value !== undefined) return value
  return stepsOf(job)
    .map((step) => at(step, 'env', name))
    .find((v) => v !== undefined)
}

function ciTriggerTokenCheck(setup: ParsedSetup): Finding {
  const { main, frontmatter } = views(setup)
  const fix = `add \`github-token-for-extra-empty-commit: \${{ secrets.GH_AW_CI_TRIGGER_TOKEN }}\` to create-pull-request and push-to-pull-request-branch in autoloop.md, set that secret (a token with Contents: read and write), then ${RECOMPILE}`
  if (!main) return finding('ci-trigger-token', 'fail', 'no workflow to read', fix)
  const magic = main.compiled ? safeOutputsEnv(main.doc, 'GH_AW_CI_TRIGGER_TOKEN') : undefined
  const magicWired = typeof magic === 'string' && /secrets\./.test(magic)
  const outputs = asMap(at((frontmatter ?? main).doc, 'safe-outputs'))
  const declared = frontmatter ? PUSH_OUTPUTS.filter((o) => outputs?.[o] !== undefined) : []
  if (frontmatter && declared.length === 0)
    return finding(
      'ci-trigger-token',
      'fail',
      'autoloop.md declares neither create-pull-request nor push-to-pull-request-branch',
      fix
    )
  // gh-aw's full token override: the pushes themselves are made with a token that starts CI.
  const pushToken = at(outputs, 'github-token')
  if (
    typeof pushToken === 'string' &&
    /secrets\./.test(pushToken) &&
    !/\bGITHUB_TOKEN\b/.test(pushToken)
  )
    return finding(
      'ci-trigger-token',
      'ok',
      `safe outputs push with ${pushToken} (safe-outputs.github-token), not GITHUB_TOKEN, so the pushes start CI themselves`
    )
  const problems: string[] = []
  const missing: string[] = []
  for (const output of declared) {
    const token = at(outputs, output, 'github-token-for-extra-empty-commit')
    if (token === undefined) missing.push(output)
    else if (/github\.token|secrets\.GITHUB_TOKEN\b/.test(String(token)))
      problems.push(
        `${output} pushes its CI-trigger commit with GITHUB_TOKEN, which starts no workflow`
      )
  }
  if (missing.length > 0 && !magicWired)
    problems.push(
      main.compiled
        ? `${missing.join(' and ')} get no CI-trigger token and the lock does not wire GH_AW_CI_TRIGGER_TOKEN`
        : `${missing.join(' and ')} set no github-token-for-extra-empty-commit (there is no lock to show that gh-aw wires GH_AW_CI_TRIGGER_TOKEN in)`
    )
  if (!frontmatter && !magicWired)
    problems.push('the lock does not wire GH_AW_CI_TRIGGER_TOKEN into safe_outputs')
  if (problems.length > 0) return finding('ci-trigger-token', 'fail', problems.join('; '), fix)
  const how =
    missing.length > 0 || !frontmatter
      ? 'gh-aw wires secrets.GH_AW_CI_TRIGGER_TOKEN into safe_outputs'
      : `${declared.join(' and ')} set github-token-for-extra-empty-commit`
  return finding(
    'ci-trigger-token',
    'ok',
    `${how}; GITHUB_TOKEN cannot read secrets, so that the secret is set is not checked (a no-checks pause says when CI did not start)`
  )
}

function handlerConfig(doc: YamlMap): YamlMap | undefined {
  const raw = safeOutputsEnv(doc, 'GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG')
  if (typeof raw !== 'string') return undefined
  try {
    return asMap(JSON.parse(raw))
  } catch {
    return undefined
  }
}

function pushFallbackCheck(setup: ParsedSetup): Finding {
  const fix = `set \`fallback-as-pull-request: false\` on safe-outputs.push-to-pull-request-branch in autoloop.md, then ${RECOMPILE}`
  const { main, frontmatter } = views(setup)
  if (!main) return finding('push-fallback', 'fail', 'no workflow to read', fix)
  const version = setup.ghAwVersion
  if (version !== null && compareVersions(version, GH_AW_WITHOUT_PUSH_FALLBACK) <= 0)
    return finding(
      'push-fallback',
      'ok',
      `gh-aw ${version} has no fallback-as-pull-request: a push that does not fast-forward fails safe_outputs, which the gate reads as blocked`
    )
  const problems: string[] = []
  if (frontmatter) {
    const push = at(frontmatter.doc, 'safe-outputs', 'push-to-pull-request-branch')
    if (push === undefined)
      problems.push(
        'autoloop.md declares no push-to-pull-request-branch, the output a fixer run pushes with'
      )
    else if (at(push, 'fallback-as-pull-request') !== false)
      problems.push(
        "push-to-pull-request-branch keeps gh-aw's fallback-as-pull-request (on by default): a push that does not fast-forward opens autoloop/<program>-fallback-* and a PR into the program branch, whose head does not move"
      )
  }
  if (problems.length === 0 && main.compiled) {
    const config = asMap(handlerConfig(main.doc)?.push_to_pull_request_branch)
    if (!config) problems.push('the lock configures no push_to_pull_request_branch handler')
    else if (config.fallback_as_pull_request !== false)
      problems.push(
        frontmatter
          ? 'autoloop.md turns fallback-as-pull-request off but the lock does not (it is older than the workflow)'
          : 'the lock keeps fallback_as_pull_request on'
      )
  }
  if (problems.length === 0)
    return finding(
      'push-fallback',
      'ok',
      'a push that does not fast-forward fails safe_outputs, which the gate reads as blocked'
    )
  return finding(
    'push-fallback',
    'fail',
    problems.join('; '),
    problems[0]?.includes('older than') ? RECOMPILE : fix
  )
}

function handoverCheck(setup: ParsedSetup): Finding {
  const fix = `copy the post-steps, the download step and the gate's selection-file/iteration-file of ${EXAMPLE}, and its Step 5 for the agent; then ${RECOMPILE}`
  const { problems, stale, view } = judged(setup, ({ doc, compiled }) => {
    const gate = actionSteps(doc).find((s) => s.command === 'gate')
    if (!gate) return ['no gate step to hand the files to']
    const problems: string[] = []
    const files = ['selection-file', 'iteration-file'].map((name) => ({
      name,
      path: input(gate, name)
    }))
    for (const { name, path } of files)
      if (!path?.startsWith(`${HANDOVER_DIR}/`))
        problems.push(`the gate step's ${name} ${path ?? '(unset)'} is not in ${HANDOVER_DIR}/`)
    const steps = stepsOf(gate.jobDoc)
    const download = steps
      .slice(0, gate.index)
      .find((s) => typeof s.uses === 'string' && s.uses.startsWith('actions/download-artifact@'))
    if (!download || at(download, 'with', 'name') !== 'agent')
      problems.push(`jobs.${gate.job} downloads no \`agent\` artifact before the gate step`)
    const postSteps = compiled
      ? stepsOf(asMap(at(doc, 'jobs', 'agent')) ?? {})
      : Array.isArray(doc['post-steps'])
        ? doc['post-steps'].map(asMap).filter((s): s is YamlMap => !!s)
        : []
    const names = files.map((f) => f.path?.split('/').pop() ?? '').filter(Boolean)
    const handing = postSteps.find(
      (s) =>
        typeof s.run === 'string' &&
        s.run.includes(HANDOVER_DIR) &&
        names.every((name) => (s.run as string).includes(name))
    )
    if (!handing) problems.push(`no post-step copies ${names.join(' and ')} into ${HANDOVER_DIR}/`)
    else if (handing.if !== 'always()')
      problems.push(
        'the hand-over post-step does not run if: always() (a failed agent would hand over nothing)'
      )
    return problems
  })
  const iteration = view
    ? actionSteps(view.doc)
        .map((s) => input(s, 'iteration-file'))
        .find((p) => p !== undefined)
        ?.split('/')
        .pop()
    : undefined
  const body = setup.workflow?.body ?? ''
  const prompt =
    iteration && !body.includes(`${GH_AW_ROOT}/${iteration}`)
      ? [`the agent's prompt (autoloop.md's body) never asks for ${GH_AW_ROOT}/${iteration}`]
      : []
  const all = [...problems, ...prompt]
  if (all.length === 0)
    return finding(
      'handover',
      'ok',
      `the agent hands the selection and its iteration file to the gate through ${HANDOVER_DIR}/`
    )
  return stale && prompt.length === 0
    ? finding('handover', 'fail', staleMessage(problems, view), RECOMPILE)
    : finding('handover', 'fail', all.join('; '), fix)
}

function ciWorkflowCheck(setup: ParsedSetup, facts: RepoFacts): Finding {
  const verdicts = ciWorkflowVerdicts(setup.others, facts.defaultBranch)
  const unread = setup.others.filter((w) => w.error).map((w) => `${w.path} ${w.error}`)
  const skipped = setup.skipped > 0 ? ` (${setup.skipped} workflow file(s) not read)` : ''
  const runs = verdicts.filter((v) => v.kind === 'runs')
  const limited = verdicts.filter((v) => v.kind === 'limited')
  const fix =
    "run CI on `push: branches: ['autoloop/**']` or on `pull_request` (with synchronize) without `paths`; a `push` filtered by paths never runs on the CI-trigger commit"
  if (runs.length > 0)
    return finding(
      'ci-workflow',
      'ok',
      runs.map((v) => `${v.path} runs ${v.why}`).join('; ') + skipped
    )
  const never = verdicts.filter((v) => v.kind === 'never').map((v) => `${v.path} runs ${v.why}`)
  if (limited.length > 0)
    return finding(
      'ci-workflow',
      'warn',
      [
        ...limited.map(
          (v) =>
            `${v.path} runs only ${v.why}: an iteration that changes other files gets no checks and pauses as blocked`
        ),
        ...never
      ].join('; ') + skipped,
      fix
    )
  return finding(
    'ci-workflow',
    'fail',
    [
      `no workflow runs on pushes to autoloop/<program> or on the program PR (read ${setup.others.length})`,
      ...never,
      ...unread
    ].join('; ') + skipped,
    fix
  )
}

function stateBranchCheck(setup: ParsedSetup, facts: RepoFacts, options: DoctorOptions): Finding {
  const branch = stateBranchOf(setup, options)
  if (facts.stateBranchExists === true) return finding('state-branch', 'ok', `${branch} exists`)
  if (facts.stateBranchExists === false)
    return finding(
      'state-branch',
      'warn',
      `${branch} does not exist: no memory push has made it yet (or the gate's state-branch names another branch than repo-memory's)`,
      `run the workflow once (gh-aw's first memory push creates ${branch}), and keep the gate's state-branch equal to tools.repo-memory.branch-name`
    )
  return finding(
    'state-branch',
    'warn',
    `whether ${branch} exists is unknown: ${facts.stateBranchNote ?? 'no API access'}`,
    'run the doctor with GITHUB_TOKEN (or GH_TOKEN) and GITHUB_REPOSITORY set'
  )
}

/** Every check, in the README's order. */
export function runChecks(setup: ParsedSetup, facts: RepoFacts, options: DoctorOptions): Finding[] {
  const workflow = workflowCheck(setup)
  if (!setup.workflow) return [workflow]
  return [
    workflow,
    versionCheck(setup),
    ciGateCheck(setup),
    ciReconcileCheck(setup),
    pinnedCheck(setup),
    permissionsCheck(setup),
    fixerRunCheck(setup),
    memoryGlobCheck(setup, options),
    ciTriggerTokenCheck(setup),
    pushFallbackCheck(setup),
    handoverCheck(setup),
    ciWorkflowCheck(setup, facts),
    settleWorkflowCheck(setup, facts),
    stateBranchCheck(setup, facts, options)
  ]
}
