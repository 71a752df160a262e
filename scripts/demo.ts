/**
 * `npm run demo`: the bundled action (`node dist/index.js`, as the runner runs it) against the
 * in-repo fake GitHub API and a local git repository; no token, no network. The fake runs on
 * real time (the bundle uses the system clock), with CI that takes seconds.
 *
 * Three scenes (`npm run demo -- --scene plain|gh-aw|events` runs one):
 * 1. plain `uses:` step: one step runs a whole iteration: the agent's commit is pushed and CI
 *    goes red (a real jest failure log); `fix-command` reads the failure summary and commits a
 *    fix; the gate pushes it and CI goes green.
 * 3. events (`wait: false`, README: "Settling on events"): the gate begins the attempt and exits
 *    while CI runs; each CI workflow's `workflow_run` completed event (GitHub's documented
 *    example payload, `@octokit/webhooks-examples`, with this commit) starts `settle`: the first
 *    finds CI still running and writes nothing, the last one settles red and starts the fixer
 *    run. The fixer's commit is gated the same way, its event is lost, and the scheduled
 *    `reconcile` settles it green.
 * 2. gh-aw autoloop: two workflow runs as gh-aw runs them, with gh-aw's own scripts
 *    (vendor/gh-aw-actions, docs/gh-aw.md: "gh-aw conformance") for the repo-memory clone, the push
 *    and the memory push. Run 1: the agent's commit lands through safe_outputs with gh-aw's
 *    empty CI-trigger commit on top; the `ci_gate` job finds
 *    CI red, writes the fix brief into `<program>.md` and starts the fixer run. Run 2 (that
 *    dispatched run): the agent reads the brief, pushes a fix; CI is green and the gate records
 *    the iteration as accepted with the agent's metric. Then the same red gate on a gh-aw whose
 *    `pre_activation` skips the dispatched fixer run: `ci_reconcile` reports it as such.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import {
  startFakeGitHub,
  type CheckRunPlan,
  type DispatchedRunPlan,
  type FakeGitHub
} from '../__fixtures__/fake-github/index.js'
import { createStateFile } from '../src/statefile/template.js'
import {
  agentJob,
  pushRepoMemoryJob,
  safeOutputsJob
} from '../__tests__/conformance/autoloop-run.js'
import { LOCK_PATH, OWNER, REPO, ghAwWorld } from '../__tests__/conformance/gh-aw-runtime.js'

const ROOT = resolve(import.meta.dirname, '..')
/** The bundle; `DEMO_DIST` runs another build of it (a local check before dist/ is rebuilt). */
const DIST = process.env.DEMO_DIST ? resolve(process.env.DEMO_DIST) : join(ROOT, 'dist/index.js')
const JEST_LOG = join(ROOT, '__fixtures__/corpus/jest/assertion/job-log.log')
const GOOD_CART = 'export const total = (prices) => prices.reduce((a, b) => a + b, 0)\n'
const FAST_BROKEN_CART =
  'export const total = (prices) => prices.slice(1).reduce((a, b) => a + b, 0)\n'
/** The gh-aw release whose scripts scene 2 runs: the one autoloop's lock pins. */
const DEMO_GH_AW = 'v0.65.6'
const FIXED_CART =
  'export const total = (prices) => prices.reduce((a, b) => a + b, 0) // fast path kept\n'

const { values } = parseArgs({ options: { scene: { type: 'string' } } })
const scenes = values.scene ? [values.scene] : ['plain', 'gh-aw', 'events']

const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text)
const banner = (text: string) => console.log(`\n${bold(`━━━ ${text} ━━━`)}\n`)
const indent = (text: string, prefix = '  │ ') => text.replace(/\n$/, '').replace(/^/gm, prefix)

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'autoloop agent',
  GIT_AUTHOR_EMAIL: 'agent@autoloop.invalid',
  GIT_COMMITTER_NAME: 'autoloop agent',
  GIT_COMMITTER_EMAIL: 'agent@autoloop.invalid'
}

/** A project repository: a bare remote the fake serves, and a work tree on the program branch. */
function project(tmp: string, branch: string) {
  const bare = join(tmp, 'remote.git')
  const work = join(tmp, 'work')
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare])
  execFileSync('git', ['init', '-q', '-b', 'main', work])
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: work, env: gitEnv, encoding: 'utf8' }).trim()
  git('remote', 'add', 'origin', bare)
  const commit = (content: string | null, message: string): string => {
    if (content === null) git('commit', '-q', '--allow-empty', '-m', message)
    else {
      writeFileSync(join(work, 'cart.js'), content)
      git('add', 'cart.js')
      git('commit', '-q', '-m', message)
    }
    return git('rev-parse', 'HEAD')
  }
  const main = commit(GOOD_CART, 'base')
  git('push', '-q', 'origin', 'main')
  git('checkout', '-q', '-b', branch)
  return { bare, work, git, commit, main }
}

const check = (
  sha: string,
  name: string,
  seconds: number,
  conclusion: 'success' | 'failure',
  log?: string
): CheckRunPlan => ({
  sha,
  name,
  timeline: [
    { at: 0, status: 'queued' },
    { at: 1, status: 'in_progress' },
    { at: seconds, status: 'completed', conclusion }
  ],
  ...(log ? { log: { file: log } } : {})
})

/** Runs `node dist/index.js` as the runner does; returns its outputs and job summary. */
async function runBundle(
  fake: FakeGitHub,
  tmp: string,
  options: {
    cwd: string
    runId: string
    inputs: Record<string, string>
    title: string
    env?: Record<string, string>
  }
): Promise<{ outputs: Record<string, string>; summary: string; exitCode: number }> {
  const dir = mkdtempSync(join(tmp, 'step-'))
  const outputFile = join(dir, 'output')
  const summaryFile = join(dir, 'summary')
  writeFileSync(outputFile, '')
  writeFileSync(summaryFile, '')
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: tmp,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: options.cwd,
    GITHUB_REPOSITORY: `${fake.state.owner}/${fake.state.repo}`,
    GITHUB_API_URL: fake.apiUrl,
    GITHUB_SERVER_URL: fake.serverUrl,
    GITHUB_RUN_ID: options.runId,
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_ACTOR: 'octocat',
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    RUNNER_TEMP: dir,
    'INPUT_GITHUB-TOKEN': 'demo-token',
    'INPUT_POLL-INTERVAL-SECONDS': '1',
    'INPUT_CHECKS-GRACE-SECONDS': '4'
  }
  for (const [name, value] of Object.entries(options.inputs))
    env[`INPUT_${name.toUpperCase()}`] = value
  Object.assign(env, options.env ?? {})
  console.log(`$ node dist/index.js   # ${options.title}\n`)
  const exitCode = await new Promise<number>((done) => {
    const child = spawn(process.execPath, [DIST], {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'inherit']
    })
    let pending = ''
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n')
      pending = lines.pop() ?? ''
      for (const line of lines)
        if (
          line &&
          !/^::(set-output|debug|add-mask)/.test(line) &&
          !/^(debug: )?(request|GET|PUT|POST|PATCH) /.test(line)
        )
          console.log(`  ${line}`)
    })
    child.on('close', (code) => done(code ?? 1))
  })
  const outputs: Record<string, string> = {}
  for (const match of readFileSync(outputFile, 'utf8').matchAll(
    /^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm
  ))
    outputs[match[1] as string] = match[3] as string
  return { outputs, summary: readFileSync(summaryFile, 'utf8'), exitCode }
}

function section(text: string, heading: string): string {
  const start = text.indexOf(heading)
  if (start === -1) return ''
  const next = text.indexOf('\n## ', start + heading.length)
  return text.slice(start, next === -1 ? text.length : next).trimEnd()
}

function result(fake: FakeGitHub, ok: boolean, line: string): boolean {
  const invalid = fake.invalidRequests().length + fake.unimplementedRequests().length
  console.log(
    `  rate limit: ${fake.rateLimit.pointsSpent} points for ${fake.rateLimit.requestsSent} requests (${fake.rateLimit.notModified} answered 304)`
  )
  console.log(`  requests invalid against GitHub's OpenAPI description: ${invalid}`)
  const passed = ok && invalid === 0
  console.log(passed ? `\n  ${line}` : '\n  the demo did not end as expected')
  return passed
}

// ---------------------------------------------------------------------------------------
// Scene 1: a plain `uses:` step with fix-command

async function plainScene(): Promise<boolean> {
  const program = 'demo-speedup'
  const branch = `autoloop/${program}`
  const tmp = mkdtempSync(join(tmpdir(), 'autoloop-demo-'))
  const repo = project(tmp, branch)
  const stateDir = join(tmp, 'repo-memory')
  const fake = await startFakeGitHub({
    realTime: true,
    scenario: {
      gitDir: repo.bare,
      issues: [{ number: 1, title: `Autoloop: ${program}`, labels: ['autoloop-program'] }]
    }
  })
  try {
    banner(
      'Scene 1, a plain `uses:` step: the agent made the cart faster in its sandbox and committed; the gate takes over'
    )
    const broken = repo.commit(FAST_BROKEN_CART, 'iteration 1: faster total()')
    fake.state.checkRuns.push(
      check(repo.main, 'test', 1, 'success'),
      check(broken, 'test', 3, 'failure', JEST_LOG),
      check(broken, 'lint', 2, 'success')
    )
    // The fix command writes the fixed cart; CI of its commit is planned when it is pushed.
    const fixCommand = [
      'echo "fixer: attempt $AUTOLOOP_ATTEMPT, signature: $AUTOLOOP_SIGNATURE"',
      'echo "fixer: summary for the agent ($AUTOLOOP_FAILURE_MD):"',
      'sed -n "1,12p" "$AUTOLOOP_FAILURE_MD"',
      `printf '${FIXED_CART.replace(/\n$/, '\\n')}' > cart.js`,
      'git -c user.name=fixer -c user.email=fixer@autoloop.invalid commit -qam "fix: cart total"',
      `git rev-parse HEAD > ${join(tmp, 'fixed-sha')}`
    ].join(' && ')
    const planFix = setInterval(() => {
      try {
        const fixed = readFileSync(join(tmp, 'fixed-sha'), 'utf8').trim()
        if (!fake.state.checkRuns.some((plan) => plan.sha === fixed)) {
          fake.state.checkRuns.push(
            check(fixed, 'test', 3, 'success'),
            check(fixed, 'lint', 2, 'success')
          )
          clearInterval(planFix)
        }
      } catch {
        // not fixed yet
      }
    }, 100)
    const step = await runBundle(fake, tmp, {
      cwd: repo.work,
      runId: '4242',
      title: `gate ${program} with fix-command`,
      inputs: { program, issue: '1', 'state-dir': stateDir, 'fix-command': fixCommand }
    })
    clearInterval(planFix)
    banner('Outputs')
    for (const name of ['status', 'verdict', 'sha', 'pr-number', 'attempt', 'attempts-remaining'])
      console.log(`  ${name} = ${step.outputs[name] ?? ''}`)
    banner(`State file ${program}.md: Machine State (what the autoloop scheduler reads)`)
    console.log(
      indent(section(readFileSync(join(stateDir, `${program}.md`), 'utf8'), '## ⚙️ Machine State'))
    )
    banner('Scene 1 result')
    console.log(
      `  branch history: ${fake
        .headsOf(branch)
        .map((sha) => sha.slice(0, 7))
        .join(' → ')}`
    )
    return result(
      fake,
      step.outputs.status === 'success' && step.outputs.attempt === '1',
      'red → fix → green in one step: the iteration may be accepted.'
    )
  } finally {
    await fake.close()
    rmSync(tmp, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------
// Scene 2: gh-aw autoloop, two workflow runs

/** The ci_gate job's inputs in the gh-aw workflow: the agent's artifact handed over in `artifact`. */
function ghAwGateInputs(artifact: string): Record<string, string> {
  return {
    command: 'gate',
    push: 'false',
    'selection-file': join(artifact, 'autoloop.json'),
    'iteration-file': join(artifact, 'autoloop-iteration.json'),
    'state-branch': 'memory/autoloop',
    'create-pr': 'false',
    'dispatch-workflow': 'autoloop.lock.yml'
  }
}

async function ghawScene(): Promise<boolean> {
  if (!existsSync(LOCK_PATH)) {
    console.log(
      `Scene 2 skipped: it runs gh-aw's scripts with the environment autoloop's lock sets, and the lock is not at ${LOCK_PATH}`
    )
    return true
  }
  const program = 'cart-speed'
  const branch = `autoloop/${program}`
  const tmp = mkdtempSync(join(tmpdir(), 'autoloop-demo-'))
  const world = ghAwWorld(tmp)
  const artifact = join(tmp, 'gh-aw', 'agent')
  mkdirSync(artifact, { recursive: true })
  const stateFile = createStateFile(program, {
    machineState: {
      issue: 1,
      pr: 7,
      metricDirection: 'higher',
      bestMetric: 0.82,
      iterationCount: 11
    }
  })
  const fake = await startFakeGitHub({
    realTime: true,
    scenario: {
      owner: OWNER,
      repo: REPO,
      gitDir: world.gitDir,
      contents: {
        main: { 'cart.js': GOOD_CART },
        [branch]: { 'cart.js': GOOD_CART },
        'memory/autoloop': { [`${program}.md`]: stateFile }
      },
      issues: [{ number: 1, title: `Autoloop: ${program}`, labels: ['autoloop-program'] }],
      pulls: [
        { number: 7, head: branch, title: `[Autoloop: ${program}] faster cart`, draft: true }
      ],
      workflows: ['autoloop.lock.yml'],
      dispatchedRuns: { queuedSeconds: 1, runSeconds: 600, conclusion: 'success' }
    }
  })
  world.apiUrl = fake.apiUrl
  const gateInputs = ghAwGateInputs(artifact)
  /**
   * The agent job and the jobs after it, with gh-aw's own scripts (vendored, the tag
   * autoloop's lock pins): the repo-memory clone, the agent's commit and a lesson in its
   * memory, safe_outputs (the push and the empty CI-trigger commit), push_repo_memory.
   */
  const landPush = async (
    runId: number,
    content: string,
    message: string,
    lesson: string
  ): Promise<{ agent: string; trigger: string }> => {
    const agent = await agentJob(world, {
      tag: DEMO_GH_AW,
      runId,
      change: { 'cart.js': content },
      message,
      branch,
      pull: 7,
      editMemory: (dir) => {
        const file = join(dir, `${program}.md`)
        writeFileSync(
          file,
          readFileSync(file, 'utf8').replace(
            '## 📚 Lessons Learned\n',
            `## 📚 Lessons Learned\n\n- ${lesson}\n`
          )
        )
      }
    })
    const safe = await safeOutputsJob(world, agent, { tag: DEMO_GH_AW })
    const memory = await pushRepoMemoryJob(world, agent, { tag: DEMO_GH_AW })
    if (safe.failed || memory.failed)
      throw new Error(
        `gh-aw's safe_outputs or push_repo_memory failed:\n${safe.stdout}\n${memory.stdout}`
      )
    const revParse = (ref: string) =>
      execFileSync('git', [`--git-dir=${world.gitDir}`, 'rev-parse', ref], {
        encoding: 'utf8'
      }).trim()
    const trigger = revParse(`refs/heads/${branch}`)
    const pushed = revParse(`${trigger}^`)
    return { agent: pushed, trigger }
  }
  const mainHead = fake.state.branches.main!
  try {
    banner(
      'Scene 2, gh-aw autoloop, run 1 (scheduled): the agent commits a faster cart; safe_outputs pushes it'
    )
    const first = await landPush(
      5001,
      FAST_BROKEN_CART,
      `[Autoloop: ${program}] Iteration 12: faster total()`,
      'total() is hot: 40% of checkout time'
    )
    console.log(
      `  gh-aw ${DEMO_GH_AW}: agent commit ${first.agent.slice(0, 7)} (through GraphQL), its empty CI-trigger commit ${first.trigger.slice(0, 7)} on top; push_repo_memory wrote the agent's lesson`
    )
    handOver(artifact, program, {
      program,
      metric: 0.87,
      improved: true,
      change: 'faster total(): skip the first price'
    })
    fake.state.checkRuns.push(
      check(mainHead, 'test', 1, 'success'),
      check(first.trigger, 'test', 3, 'failure', JEST_LOG),
      check(first.trigger, 'lint', 2, 'success')
    )
    const run1 = await runBundle(fake, tmp, {
      cwd: tmp,
      runId: '5001',
      title: 'the ci_gate job of run 1',
      inputs: gateInputs
    })
    banner('Run 1 outputs')
    for (const name of ['status', 'verdict', 'sha', 'attempt', 'attempts-remaining', 'dispatched'])
      console.log(`  ${name} = ${run1.outputs[name] ?? ''}`)
    const dispatch = fake.state.dispatches[0]
    console.log(
      dispatch
        ? `  fixer run started: ${dispatch.workflow} on ${dispatch.ref} with ${JSON.stringify(dispatch.inputs)} (run ${dispatch.runId})`
        : '  no fixer run was started'
    )
    const brief = section(fake.readFile('memory/autoloop', `${program}.md`) ?? '', '## 🚦 CI Gate')
    banner(`What run 2's agent reads first: ${program}.md, ## 🚦 CI Gate`)
    console.log(indent(brief))

    banner(
      `Run 2 (dispatched, run ${dispatch?.runId ?? '?'}): the agent fixes what the brief lists and pushes one commit`
    )
    const second = await landPush(
      dispatch?.runId ?? 5002,
      FIXED_CART,
      `[Autoloop: ${program}] Iteration 12: fix total()`,
      'keep the first price: the test covers it'
    )
    console.log(
      `  gh-aw ${DEMO_GH_AW}: agent commit ${second.agent.slice(0, 7)}, its empty CI-trigger commit ${second.trigger.slice(0, 7)} on top`
    )
    handOver(artifact, program, {
      program,
      metric: 0.91,
      improved: true,
      change: 'faster total(), first price kept'
    })
    fake.state.checkRuns.push(
      check(second.trigger, 'test', 3, 'success'),
      check(second.trigger, 'lint', 2, 'success')
    )
    const run2 = await runBundle(fake, tmp, {
      cwd: tmp,
      runId: String(dispatch?.runId ?? 5002),
      title: 'the ci_gate job of run 2',
      inputs: { ...gateInputs, program }
    })
    banner('Run 2 outputs')
    for (const name of ['status', 'verdict', 'sha', 'attempt', 'dispatched'])
      console.log(`  ${name} = ${run2.outputs[name] ?? ''}`)
    const state = fake.readFile('memory/autoloop', `${program}.md`) ?? ''
    banner(`${program}.md after run 2: Machine State (what the scheduler reads)`)
    console.log(indent(section(state, '## ⚙️ Machine State')))
    const comments = fake.state.comments.filter((comment) => comment.issue === 1)
    const iteration = comments.find((comment) => comment.body.includes('recorded an iteration'))
    banner('Program issue #1: the iteration comment')
    console.log(indent(iteration?.body ?? '(none)'))
    banner('Scene 2 result')
    console.log(
      `  branch history: ${fake
        .headsOf(branch)
        .map((sha) => sha.slice(0, 7))
        .join(' → ')}`
    )
    console.log(`  fixer runs started: ${fake.state.dispatches.length}`)
    const accepted =
      /\| Best Metric \| 0\.91 \|/.test(state) && /\| Recent Statuses \| accepted \|/.test(state)
    return result(
      fake,
      run1.outputs.status === 'failure' &&
        run1.outputs.dispatched === 'true' &&
        run2.outputs.status === 'success' &&
        accepted &&
        fake.state.dispatches.length === 1,
      "run 1 red → brief + fixer run → run 2 green: the iteration is accepted with the agent's metric 0.91."
    )
  } finally {
    await fake.close()
    rmSync(tmp, { recursive: true, force: true })
  }
}

/**
 * What the agent job leaves in its artifact for the gate (gh-aw's hand-over): the selected
 * program and the iteration's metric.
 */
function handOver(artifact: string, program: string, iteration: object): void {
  writeFileSync(
    join(artifact, 'autoloop.json'),
    JSON.stringify({
      selected: program,
      selected_issue: 1,
      existing_pr: 7,
      head_branch: `autoloop/${program}`
    })
  )
  writeFileSync(join(artifact, 'autoloop-iteration.json'), JSON.stringify(iteration))
}

/**
 * The program `cart-speed` on a fresh repository behind the fake (issue 1, draft PR 7, state
 * file on the state branch), its gh-aw artifact folder, and what the fixer runs it dispatches do.
 */
async function cartSpeedWorld(dispatchedRuns: DispatchedRunPlan) {
  const program = 'cart-speed'
  const branch = `autoloop/${program}`
  const tmp = mkdtempSync(join(tmpdir(), 'autoloop-demo-'))
  const repo = project(tmp, branch)
  repo.git('push', '-q', 'origin', branch)
  const artifact = join(tmp, 'gh-aw', 'agent')
  mkdirSync(artifact, { recursive: true })
  const stateFile = createStateFile(program, {
    machineState: { issue: 1, pr: 7, metricDirection: 'higher', bestMetric: 0.82 }
  })
  const fake = await startFakeGitHub({
    realTime: true,
    scenario: {
      gitDir: repo.bare,
      contents: { 'memory/autoloop': { [`${program}.md`]: stateFile } },
      issues: [{ number: 1, title: `Autoloop: ${program}`, labels: ['autoloop-program'] }],
      pulls: [{ number: 7, head: branch, draft: true }],
      workflows: ['autoloop.lock.yml'],
      dispatchedRuns
    }
  })
  return { program, branch, tmp, repo, artifact, fake }
}

// ---------------------------------------------------------------------------------------
// Scene 2, continued: a fixer run that gh-aw's pre_activation skipped

/**
 * gh-aw after v0.72 without `on.bots`: the gate dispatches the fixer run as
 * `github-actions[bot]`, and `pre_activation` lets it through with `activated=false`, so
 * every later job is skipped. The next run's `ci_reconcile` reads that run's jobs and pauses
 * the program `ci-blocked: fixer run <id> did not run the agent: …`, spending no attempt.
 */
async function skippedFixerRun(): Promise<boolean> {
  const skipped = (name: string) => ({ name, conclusion: 'skipped' as const })
  const { program, branch, tmp, repo, artifact, fake } = await cartSpeedWorld({
    queuedSeconds: 1,
    runSeconds: 2,
    jobs: [
      { name: 'pre_activation', conclusion: 'success' },
      ...['activation', 'agent', 'detection', 'safe_outputs', 'ci_gate', 'conclusion'].map(skipped)
    ]
  })
  try {
    banner(
      'Scene 2, continued: the same red gate, on a gh-aw whose pre_activation skips bot-dispatched runs (no `on.bots`)'
    )
    const agent = repo.commit(
      FAST_BROKEN_CART,
      `[Autoloop: ${program}] Iteration 12: faster total()`
    )
    const trigger = repo.commit(null, 'ci: trigger checks')
    repo.git('push', '-q', 'origin', branch)
    console.log(`  agent commit ${agent.slice(0, 7)}, CI-trigger commit ${trigger.slice(0, 7)}`)
    handOver(artifact, program, { program, metric: 0.87, improved: true, change: 'faster total()' })
    fake.state.checkRuns.push(
      check(trigger, 'test', 3, 'failure', JEST_LOG),
      check(trigger, 'lint', 2, 'success')
    )
    const run1 = await runBundle(fake, tmp, {
      cwd: tmp,
      runId: '6001',
      title: 'the ci_gate job of run 1',
      inputs: ghAwGateInputs(artifact)
    })
    const dispatch = fake.state.dispatches[0]
    console.log(
      `\n  status = ${run1.outputs.status ?? ''}, dispatched = ${run1.outputs.dispatched ?? ''} (run ${dispatch?.runId ?? '?'})`
    )
    // The fixer run ends within seconds: pre_activation succeeded, every later job skipped.
    await new Promise((done) => setTimeout(done, 4_000))
    banner(`The fixer run ${dispatch?.runId ?? '?'}, as GitHub's jobs API lists it`)
    const jobs = fake.checkRunsFor(repo.main).filter((j) => j.runId === dispatch?.runId)
    for (const job of jobs)
      console.log(`  ${job.name.padEnd(16)} ${job.status} ${job.conclusion ?? ''}`)
    const run2 = await runBundle(fake, tmp, {
      cwd: tmp,
      runId: '6002',
      title: 'the ci_reconcile job of the next scheduled run',
      inputs: { command: 'reconcile', 'state-branch': 'memory/autoloop' }
    })
    const state = fake.readFile('memory/autoloop', `${program}.md`) ?? ''
    const reason = /^\| Pause Reason \| (.*) \|$/m.exec(state)?.[1] ?? ''
    banner('After ci_reconcile')
    console.log(`  Pause Reason = ${reason}`)
    const pause = fake.state.comments.find((c) => c.body.startsWith('<!-- autoloop-ci-gate:pause'))
    banner('Program issue #1: the pause comment')
    console.log(indent(pause?.body ?? '(none)'))
    return result(
      fake,
      run1.outputs.dispatched === 'true' &&
        run2.exitCode === 0 &&
        reason.startsWith(`ci-blocked: fixer run ${dispatch?.runId} did not run the agent: `) &&
        (pause?.body.includes('bots: ["github-actions[bot]"]') ?? false),
      `the skipped fixer run ${dispatch?.runId} is reported as such: paused ci-blocked with the on.bots fix, no fix attempt spent.`
    )
  } finally {
    await fake.close()
    rmSync(tmp, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------
// Scene 3: settling on events (`wait: false`, then `settle`; `reconcile` as the safety net)

/** GitHub's documented example payloads of every event. */
const webhookExamples = createRequire(import.meta.url)('@octokit/webhooks-examples') as {
  name: string
  examples: Record<string, unknown>[]
}[]

/** GitHub's documented `workflow_run` completed payload, for `workflow` on this commit. */
function workflowRunCompleted(
  fake: FakeGitHub,
  sha: string,
  branch: string,
  workflow: string,
  id: number
): unknown {
  const example = webhookExamples
    .find((entry) => entry.name === 'workflow_run')
    ?.examples.find((e) => e.action === 'completed')
  if (!example) throw new Error('no workflow_run completed example in @octokit/webhooks-examples')
  const payload = structuredClone(example) as {
    workflow_run: Record<string, unknown> & { head_repository: { full_name: string } }
    repository: { full_name: string }
  }
  const full = `${fake.state.owner}/${fake.state.repo}`
  Object.assign(payload.workflow_run, { id, name: workflow, head_sha: sha, head_branch: branch })
  payload.workflow_run.head_repository.full_name = full
  payload.repository.full_name = full
  return payload
}

async function eventsScene(): Promise<boolean> {
  const { program, branch, tmp, repo, artifact, fake } = await cartSpeedWorld({
    queuedSeconds: 1,
    runSeconds: 600,
    conclusion: 'success'
  })
  // The red check goes straight to the fixer run (no re-run first), so settle never waits.
  const gateInputs = { ...ghAwGateInputs(artifact), wait: 'false', 'rerun-failed': '0' }
  const settleInputs = { command: 'settle', 'state-branch': 'memory/autoloop' }
  /** Sleeps until the fake says `name` on `sha` has completed. */
  const completed = async (sha: string, name: string) => {
    while (!fake.checkRunsFor(sha).some((c) => c.name === name && c.status === 'completed'))
      await new Promise((done) => setTimeout(done, 200))
  }
  let events = 0
  /** The `workflow_run` completed event of `workflow` starts the settle workflow. */
  const onEvent = async (sha: string, workflow: string) => {
    events += 1
    const path = join(tmp, `event-${events}.json`)
    writeFileSync(
      path,
      JSON.stringify(workflowRunCompleted(fake, sha, branch, workflow, 8000 + events))
    )
    const writes = fake.writeRequests().length
    const step = await runBundle(fake, tmp, {
      cwd: tmp,
      runId: String(7100 + events),
      title: `settle, started by workflow_run completed (${workflow}) on ${sha.slice(0, 7)}`,
      inputs: settleInputs,
      env: { GITHUB_EVENT_NAME: 'workflow_run', GITHUB_EVENT_PATH: path }
    })
    const wrote = fake.writeRequests().length - writes
    console.log(
      `\n  status = ${step.outputs.status ?? ''}, verdict = ${step.outputs.verdict ?? ''}, dispatched = ${step.outputs.dispatched ?? ''}; API writes: ${wrote}\n`
    )
    return { ...step, wrote }
  }
  try {
    banner(
      'Scene 3, settling on events: the gate begins the attempt with `wait: false` and gives the runner back while CI runs'
    )
    const agent = repo.commit(
      FAST_BROKEN_CART,
      `[Autoloop: ${program}] Iteration 12: faster total()`
    )
    repo.git('push', '-q', 'origin', branch)
    handOver(artifact, program, {
      program,
      metric: 0.87,
      improved: true,
      change: 'faster total(): skip the first price'
    })
    // Three CI workflows: lint and build pass quickly, test fails last.
    fake.state.checkRuns.push(
      check(agent, 'lint', 2, 'success'),
      check(agent, 'build', 4, 'success'),
      check(agent, 'test', 7, 'failure', JEST_LOG)
    )
    const started = Date.now()
    const gate = await runBundle(fake, tmp, {
      cwd: tmp,
      runId: '7001',
      title: 'the ci_gate job, wait: false',
      inputs: gateInputs
    })
    const held = (Date.now() - started) / 1000
    const running = fake.checkRunsFor(agent).filter((c) => c.status !== 'completed').length
    console.log(
      `\n  status = ${gate.outputs.status ?? ''}, attempt = ${gate.outputs.attempt ?? ''}: the gate held its runner ${held.toFixed(1)} s; ${running} of 3 checks still running`
    )

    banner('lint completes: its workflow_run event starts settle, CI is still running')
    await completed(agent, 'lint')
    const early = await onEvent(agent, 'lint')

    banner('test completes last: its workflow_run event starts settle, which settles the attempt')
    await completed(agent, 'test')
    const red = await onEvent(agent, 'test')
    const dispatch = fake.state.dispatches[0]
    console.log(
      dispatch
        ? `  fixer run started: ${dispatch.workflow} on ${dispatch.ref} with ${JSON.stringify(dispatch.inputs)} (run ${dispatch.runId})`
        : '  no fixer run was started'
    )
    const brief = section(fake.readFile('memory/autoloop', `${program}.md`) ?? '', '## 🚦 CI Gate')
    console.log(indent(brief.split('\n').slice(0, 12).join('\n')))

    banner(
      `The fixer run ${dispatch?.runId ?? '?'} pushes a fix, gated with wait: false; its workflow_run events are lost`
    )
    const fix = repo.commit(FIXED_CART, `[Autoloop: ${program}] Iteration 12: fix total()`)
    repo.git('push', '-q', 'origin', branch)
    handOver(artifact, program, {
      program,
      metric: 0.91,
      improved: true,
      change: 'faster total(), first price kept'
    })
    fake.state.checkRuns.push(
      check(fix, 'lint', 2, 'success'),
      check(fix, 'build', 3, 'success'),
      check(fix, 'test', 4, 'success')
    )
    const fixGate = await runBundle(fake, tmp, {
      cwd: tmp,
      runId: String(dispatch?.runId ?? 7002),
      title: `the ci_gate job of the fixer run, wait: false`,
      inputs: { ...gateInputs, program }
    })
    console.log(
      `\n  status = ${fixGate.outputs.status ?? ''}, attempt = ${fixGate.outputs.attempt ?? ''}`
    )
    await completed(fix, 'test')
    console.log(`  CI on ${fix.slice(0, 7)} has completed; no event came`)

    banner('The scheduled reconcile (the safety net) finds the waiting attempt and settles it')
    const reconcile = await runBundle(fake, tmp, {
      cwd: tmp,
      runId: '7201',
      title: 'the scheduled ci_reconcile job',
      inputs: { command: 'reconcile', 'state-branch': 'memory/autoloop' }
    })
    const state = fake.readFile('memory/autoloop', `${program}.md`) ?? ''
    banner(`${program}.md after reconcile: Machine State (what the scheduler reads)`)
    console.log(indent(section(state, '## ⚙️ Machine State')))
    banner('Scene 3 result')
    console.log(
      `  branch history: ${fake
        .headsOf(branch)
        .map((sha) => sha.slice(0, 7))
        .join(' → ')}`
    )
    console.log(`  fixer runs started: ${fake.state.dispatches.length}`)
    const accepted =
      /\| Best Metric \| 0\.91 \|/.test(state) && /\| Recent Statuses \| accepted/.test(state)
    return result(
      fake,
      gate.outputs.status === 'waiting' &&
        early.outputs.status === 'waiting' &&
        early.wrote === 0 &&
        red.outputs.verdict === 'red' &&
        red.outputs.dispatched === 'true' &&
        fixGate.outputs.status === 'waiting' &&
        reconcile.exitCode === 0 &&
        accepted &&
        fake.state.dispatches.length === 1,
      'wait: false → the last workflow_run event settles red and starts the fixer run → its event lost, reconcile settles green: accepted with 0.91.'
    )
  } finally {
    await fake.close()
    rmSync(tmp, { recursive: true, force: true })
  }
}

let ok = true
for (const scene of scenes) {
  if (scene === 'plain') ok = (await plainScene()) && ok
  else if (scene === 'gh-aw') ok = (await ghawScene()) && (await skippedFixerRun()) && ok
  else if (scene === 'events') ok = (await eventsScene()) && ok
  else {
    console.error(`unknown scene "${scene}": use plain, gh-aw or events`)
    ok = false
  }
}
if (!ok) process.exitCode = 1
