/**
 * Settling on events (issue 26) against polling: what the gate holds per settled attempt in a
 * repository with 3 CI workflows, for a 20-minute and a 60-minute CI. Everything runs
 * in-process through `run(deps)` against the fake GitHub API on its virtual clock:
 *
 * - polling: the gate as today (`wait: true`), one run that polls until CI has finished;
 * - events: the gate with `wait: false`, then one `settle` run per `workflow_run` completed
 *   event of the 3 workflows (GitHub's documented example payload, `@octokit/webhooks-examples`,
 *   with this commit and branch), each started when its workflow completes; the first two find
 *   CI still running, the last settles;
 * - safety net: the gate with `wait: false`, no event ever comes, `reconcile` every 15 minutes.
 *
 * Runner time is measured twice: on the fake's virtual clock (what a runner would be held for
 * the simulated CI), and in real wall time of the in-process run (what the action's own work
 * costs, without a runner's start-up). Points are the requests the fake charged, as in the
 * polling and gate-budget benchmarks.
 *
 *   npx tsx scripts/bench/index.ts --only settle
 */
import { createRequire } from 'node:module'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { runActionInProcess, type InProcessRun } from '../../__fixtures__/run-in-process.js'
import {
  startFakeGitHub,
  type CheckRunPlan,
  type FakeGitHub
} from '../../__fixtures__/fake-github/index.js'
import {
  BUDGET_BRANCH,
  BUDGET_INPUTS,
  BUDGET_SHA,
  BUDGET_STATE_BRANCH,
  budgetScenario
} from '../../__fixtures__/gate-budget.js'
import { ledgerPath } from '../../src/core/ledger.js'
import { parseLedgerFile } from '../../src/statefile/ledger-file.js'

const JEST_LOG = join(import.meta.dirname, '../../__fixtures__/corpus/jest/assertion/job-log.log')
const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as {
  name: string
  examples: Record<string, unknown>[]
}[]
const RECONCILE_MINUTES = 15
const PROGRAM = 'bench'

/** The 3 CI workflows: when each completes, as a share of the CI's length (the last is CI). */
const WORKFLOWS = [
  { name: 'lint', share: 0.15 },
  { name: 'build', share: 0.55 },
  { name: 'test', share: 1 }
] as const

/** Seconds after the commit appeared at which `workflow` completes (7 s past the round figure). */
const completesAt = (ciMinutes: number, share: number) => Math.round(ciMinutes * 60 * share) + 7

function checks(ciMinutes: number, red: boolean): CheckRunPlan[] {
  return WORKFLOWS.map(({ name, share }) => {
    const failing = red && name === 'test'
    return {
      sha: BUDGET_SHA,
      name,
      timeline: [
        { at: 0, status: 'queued' as const },
        { at: 10, status: 'in_progress' as const },
        {
          at: completesAt(ciMinutes, share),
          status: 'completed' as const,
          conclusion: failing ? ('failure' as const) : ('success' as const)
        }
      ],
      ...(failing ? { log: { file: JEST_LOG } } : {})
    }
  })
}

/** GitHub's documented `workflow_run` completed payload, for this commit and workflow. */
function workflowRunCompleted(fake: FakeGitHub, workflow: string, id: number): unknown {
  const found = examples.find((entry) => entry.name === 'workflow_run')
  const example = found?.examples.find((e) => e.action === 'completed')
  if (!example) throw new Error('no workflow_run completed example in @octokit/webhooks-examples')
  const payload = structuredClone(example) as {
    workflow_run: Record<string, unknown> & { head_repository: { full_name: string } }
    repository: { full_name: string }
  }
  const full = `${fake.state.owner}/${fake.state.repo}`
  payload.workflow_run.id = id
  payload.workflow_run.name = workflow
  payload.workflow_run.head_sha = BUDGET_SHA
  payload.workflow_run.head_branch = BUDGET_BRANCH
  payload.workflow_run.head_repository.full_name = full
  payload.repository.full_name = full
  return payload
}

interface Timed {
  run: InProcessRun
  virtualMs: number
  wallMs: number
}

interface World {
  fake: FakeGitHub
  dir: string
  /** One action run: its virtual and real durations. */
  step(inputs: Record<string, string>, env?: Record<string, string>): Promise<Timed>
  /** Virtual time at which the last check on the commit (a re-run included) completed. */
  lastCompletion(): number
  settled(): boolean
  /** The state of the attempt in the ledger (`in-flight` until settled). */
  state(): string
}

async function world(ciMinutes: number, red: boolean): Promise<World> {
  const fake = await startFakeGitHub({
    scenario: budgetScenario(red, { checkRuns: checks(ciMinutes, red) })
  })
  const dir = mkdtempSync(join(tmpdir(), 'autoloop-bench-settle-'))
  let runs = 0
  const state = (): string => {
    const text = fake.readFile(BUDGET_STATE_BRANCH, ledgerPath(PROGRAM))
    if (text === undefined) return 'in-flight'
    return parseLedgerFile(text, ledgerPath(PROGRAM)).attempts[0]?.state ?? 'in-flight'
  }
  return {
    fake,
    dir,
    async step(inputs, env = {}) {
      runs += 1
      const virtualStart = fake.now()
      const wallStart = performance.now()
      const run = await runActionInProcess(fake, mkdtempSync(join(dir, 'run-')), {
        inputs,
        env: { GITHUB_RUN_ID: String(20_000 + runs), ...env }
      })
      const timed = {
        run,
        virtualMs: fake.now() - virtualStart,
        wallMs: performance.now() - wallStart
      }
      if (run.errors.length > 0) throw new Error(`run ${runs} failed: ${run.errors.join('; ')}`)
      return timed
    },
    lastCompletion: () =>
      Math.max(0, ...fake.checkRunsFor(BUDGET_SHA).map((c) => c.completedAt ?? 0)),
    settled: () => state() !== 'in-flight',
    state
  }
}

async function closing<T>(w: World, body: () => Promise<T>): Promise<T> {
  try {
    return await body()
  } finally {
    await w.fake.close()
    rmSync(w.dir, { recursive: true, force: true })
  }
}

interface Path {
  runs: number
  virtualSeconds: number
  wallSeconds: number
  points: number
  delaySeconds: number
  verdict: string
  dispatches: number
}

function pathOf(w: World, steps: Timed[], verdict: string): Path {
  const settledAt = w.fake.now()
  return {
    runs: steps.length,
    virtualSeconds: steps.reduce((sum, s) => sum + s.virtualMs, 0) / 1000,
    wallSeconds: steps.reduce((sum, s) => sum + s.wallMs, 0) / 1000,
    points: w.fake.rateLimit.pointsSpent,
    delaySeconds: Math.round((settledAt - w.lastCompletion()) / 1000),
    verdict,
    dispatches: w.fake.state.dispatches.length
  }
}

/** The gate's inputs; without `rerun`, a red check goes straight to the fixer (no re-run first). */
const inputsOf = (rerun: boolean): Record<string, string> =>
  rerun ? BUDGET_INPUTS : { ...BUDGET_INPUTS, 'rerun-failed': '0' }

const verdictOf = (run: InProcessRun) => run.outputs.verdict || run.outputs.status || '?'

async function polling(ciMinutes: number, red: boolean, rerun = false): Promise<Path> {
  const w = await world(ciMinutes, red)
  return closing(w, async () => {
    const gate = await w.step({ ...inputsOf(rerun), 'timeout-minutes': '120' })
    return pathOf(w, [gate], verdictOf(gate.run))
  })
}

async function events(ciMinutes: number, red: boolean, rerun = false): Promise<Path> {
  const w = await world(ciMinutes, red)
  return closing(w, async () => {
    const steps = [await w.step({ ...inputsOf(rerun), 'timeout-minutes': '120', wait: 'false' })]
    const seen = w.fake.state.shaSeenAt[BUDGET_SHA] ?? w.fake.now()
    let verdict = '?'
    for (const [index, workflow] of WORKFLOWS.entries()) {
      // The workflow completes; GitHub sends its workflow_run completed event; settle starts.
      w.fake.setNow(Math.max(w.fake.now(), seen + completesAt(ciMinutes, workflow.share) * 1000))
      const path = join(w.dir, `event-${index}.json`)
      writeFileSync(
        path,
        JSON.stringify(workflowRunCompleted(w.fake, workflow.name, 30_000 + index))
      )
      const settle = await w.step(
        { command: 'settle', 'state-branch': BUDGET_STATE_BRANCH },
        { GITHUB_EVENT_NAME: 'workflow_run', GITHUB_EVENT_PATH: path }
      )
      steps.push(settle)
      verdict = verdictOf(settle.run)
    }
    // A re-run of the failed check (the default `rerun-failed`) ends with its own event.
    for (let rerun = 0; !w.settled(); rerun += 1) {
      if (rerun > 3) throw new Error(`no workflow_run event settled the attempt (${w.state()})`)
      while (w.fake.checkRunsFor(BUDGET_SHA).some((c) => c.status !== 'completed'))
        w.fake.advance(1000)
      const path = join(w.dir, `event-rerun-${rerun}.json`)
      writeFileSync(path, JSON.stringify(workflowRunCompleted(w.fake, 'test', 31_000 + rerun)))
      const settle = await w.step(
        { command: 'settle', 'state-branch': BUDGET_STATE_BRANCH },
        { GITHUB_EVENT_NAME: 'workflow_run', GITHUB_EVENT_PATH: path }
      )
      steps.push(settle)
      verdict = verdictOf(settle.run)
    }
    return pathOf(w, steps, verdict)
  })
}

async function safetyNet(ciMinutes: number, red: boolean, rerun = false): Promise<Path> {
  const w = await world(ciMinutes, red)
  return closing(w, async () => {
    const gate = await w.step({ ...inputsOf(rerun), 'timeout-minutes': '120', wait: 'false' })
    const steps = [gate]
    const start = w.fake.now()
    for (let tick = 1; !w.settled(); tick += 1) {
      if (tick > 20) throw new Error('reconcile never settled the attempt')
      w.fake.setNow(start + tick * RECONCILE_MINUTES * 60_000)
      steps.push(await w.step({ command: 'reconcile', 'state-branch': BUDGET_STATE_BRANCH }))
    }
    const verdict = w.state()
    return pathOf(w, steps, verdict)
  })
}

const s = (seconds: number) => (seconds < 10 ? seconds.toFixed(2) : seconds.toFixed(0))

export async function runSettleBench(): Promise<string> {
  const rows: string[] = []
  for (const ciMinutes of [20, 60])
    for (const red of [false, true]) {
      const outcome = red ? 'red, fixer dispatched' : 'green'
      for (const [name, measure] of [
        ['polling gate (`wait: true`, poll 15 s)', polling],
        ['events: `wait: false` + settle per workflow_run completed', events],
        [`safety net: \`wait: false\` + reconcile every ${RECONCILE_MINUTES} min`, safetyNet]
      ] as const) {
        const p = await measure(ciMinutes, red)
        rows.push(
          `| ${ciMinutes} min | ${outcome} | ${name} | ${p.runs} | ${s(p.virtualSeconds)} s | ${s(p.wallSeconds)} s | ${p.points} | ${p.delaySeconds} s | ${p.verdict}, ${p.dispatches} dispatch |`
        )
      }
    }
  // The default `rerun-failed`: the red check is re-run once before the fixer is started.
  const rerunRows: string[] = []
  for (const [name, measure] of [
    ['polling gate', polling],
    ['events', events]
  ] as const) {
    const p = await measure(20, true, true)
    rerunRows.push(
      `| 20 min | red, default \`rerun-failed\` | ${name} | ${p.runs} | ${s(p.virtualSeconds)} s | ${s(p.wallSeconds)} s | ${p.points} | ${p.delaySeconds} s | ${p.verdict}, ${p.dispatches} dispatch |`
    )
  }
  return [
    `One attempt on a commit whose CI is 3 workflows (checks \`lint\`, \`build\`, \`test\`), completing at ${WORKFLOWS.map((w) => `${Math.round(w.share * 100)} %`).join(', ')} of the CI's length (+7 s); \`test\` fails in the red rows (jest's real log). Gate inputs as in "One gate run" with \`rerun-failed: 0\` (a red check goes straight to the fixer run), except the last rows (the default, one re-run of the failed check first). Virtual time is the fake's clock (what a runner would be held for); wall time is the in-process run's real duration (the action's own work, without a runner's start-up).`,
    '',
    '| CI | outcome | path | action runs | runner time held (virtual) | wall time of the runs | points in all | verdict after the last check completed | verdict |',
    '|---|---|---|---:|---:|---:|---:|---:|---|',
    ...rows,
    ...rerunRows,
    '',
    `"Action runs" on the events path: the \`wait: false\` gate, then one \`settle\` per workflow completed (the first two find CI still running and write nothing); the event is taken as delivered when its workflow completes, so the delay there is the settle run's own. On the safety net the runs are the gate and every scheduled \`reconcile\` up to the one that settles; a reconcile run serves every program of the repository, so its share per attempt is smaller where several programs run.`
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await runSettleBench())
}
