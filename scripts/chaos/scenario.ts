/**
 * One seeded chaos case: a scenario for the fake GitHub API, the gate's inputs, and a random
 * fault schedule (5xx bursts, dropped connections, slow answers, rate limits, 409 on state
 * writes, expired logs, malformed JSON, refused re-runs, a crash of the job and its re-run).
 *
 * Most cases are a random mix of check runs with every conclusion, commit statuses, re-runs
 * planned up front, the gate's own job, required checks, or no checks at all. The rest are the
 * cases of "whose failure it is" (docs/decisions.md): failures that also fail on a red base branch, a run
 * waiting for approval, a runner lost then green on re-run, a flaky test that passes on
 * re-run, and one that fails again. Failing jobs print real tool output from the corpus.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type {
  CheckConclusion,
  CheckRunPlan,
  FaultSpec,
  LogSource,
  Scenario,
  StatusPlan,
  WorkflowRunPlan
} from '../../__fixtures__/fake-github/index.js'
import { createRng, type Rng } from './prng.js'
import type { OraclePolicy } from './oracle.js'

export const PROGRAM = 'perf'
export const BRANCH = `autoloop/${PROGRAM}`
export const BASE_BRANCH = 'main'
export const SHA = 'c4a05'.padEnd(40, '7')
export const ISSUE = 12
export const OWN_RUN_ID = 9000
export const STATE_BRANCH = 'memory/autoloop'
export const NEVER_REPORTED = 'deploy-preview'

export type StoreKind = 'state-dir' | 'state-branch'

export const CASE_KINDS = [
  'mixed',
  'red-base',
  'approval-gate',
  'runner-lost-then-green',
  'flaky-then-green',
  'flaky-then-red'
] as const
export type CaseKind = (typeof CASE_KINDS)[number]

export interface KillPlan {
  /** Virtual ms after the first launch started: its next wait after this never returns. */
  afterMs: number
}

export interface ChaosCase {
  seed: number
  kind: CaseKind
  scenario: Scenario
  /** Inputs of the gate, without `state-dir` (the harness makes the folder). */
  inputs: Record<string, string>
  store: StoreKind
  /** The program's state file before the gate, or null when there is none. */
  initialState: string | null
  faults: FaultSpec[]
  kill: KillPlan | null
  policy: OraclePolicy
  timeoutMinutes: number
}

const CHECK_NAMES = ['build', 'test', 'lint', 'typecheck', 'e2e', 'unit / node 20', 'docs']
const STATUS_CONTEXTS = ['ci/legacy', 'security/scan']

const CONCLUSIONS: ReadonlyArray<readonly [CheckConclusion, number]> = [
  ['success', 50],
  ['failure', 12],
  ['neutral', 6],
  ['skipped', 6],
  ['cancelled', 5],
  ['timed_out', 3],
  ['stale', 3],
  ['startup_failure', 3],
  ['action_required', 3]
]

const FIXTURES = resolve(import.meta.dirname, '../../__fixtures__')
const STATE_FIXTURE = resolve(FIXTURES, 'state/coverage.md')

/** Job logs printed by the real tools (the corpus records how each was made). */
const BUILD_LOGS = [
  'tsc/unknown-name',
  'tsc/missing-property',
  'eslint/unused-var',
  'pytest/collection-error'
].map((path) => ({ file: resolve(FIXTURES, 'corpus', path, 'job-log.log') }))
const TEST_LOGS = ['jest/assertion', 'jest/snapshot-ci'].map((path) => ({
  file: resolve(FIXTURES, 'corpus', path, 'job-log.log')
}))

/**
 * A job log of a runner that was shut down mid-job, quoted from the job log output in
 * https://github.com/actions/runner/issues/2427.
 */
const RUNNER_SHUT_DOWN = [
  '2023-02-09T20:11:49.9484027Z ##[error]The runner has received a shutdown signal. This can happen when the runner service is stopped, or a manually started runner is canceled.',
  '2023-02-09T20:11:49.9966268Z ##[error]The operation was canceled.',
  ''
].join('\n')

/** A real-looking state file of the program (the fixture, renamed), LF or CRLF. */
export function seededStateFile(crlf: boolean): string {
  const text = readFileSync(STATE_FIXTURE, 'utf8').replaceAll('coverage', PROGRAM)
  return crlf ? text.replace(/\r?\n/g, '\r\n') : text
}

function timeline(
  rng: Rng,
  conclusion: CheckConclusion,
  completes = true
): CheckRunPlan['timeline'] {
  const queued = rng.weighted([
    [rng.int(0, 30), 6],
    [rng.int(30, 170), 3],
    [rng.int(170, 260), 1]
  ] as const)
  const events: CheckRunPlan['timeline'] = [{ at: queued, status: 'queued' }]
  const started = queued + rng.int(0, 60)
  if (rng.chance(0.8)) events.push({ at: started, status: 'in_progress' })
  if (completes) events.push({ at: started + rng.int(5, 900), status: 'completed', conclusion })
  return events
}

function randomCheckRun(rng: Rng, name: string): CheckRunPlan {
  const conclusion = rng.weighted(CONCLUSIONS)
  const plan: CheckRunPlan = {
    sha: SHA,
    name,
    timeline: timeline(rng, conclusion, !rng.chance(0.08))
  }
  if (conclusion !== 'success' && rng.chance(0.8))
    plan.log = rng.chance(0.25) ? rng.pick(TEST_LOGS) : rng.pick(BUILD_LOGS)
  if (rng.chance(0.15)) plan.logExpired = rng.pick([410, 404] as const)
  if (rng.chance(0.2)) {
    plan.annotations = [
      {
        path: `src/${name.replace(/\W+/g, '-')}.ts`,
        start_line: rng.int(1, 99),
        end_line: 1,
        annotation_level: 'failure',
        message: `expected ${rng.int(1, 9)} to be ${rng.int(1, 9)}`
      }
    ]
  }
  return plan
}

/** A re-run planned up front: attempt 2, appearing after the first attempt ended (or while it runs). */
function plannedRerunOf(rng: Rng, plan: CheckRunPlan): CheckRunPlan {
  const last = plan.timeline[plan.timeline.length - 1]?.at ?? 0
  const first = plan.timeline[0]?.at ?? 0
  const appears = Math.max(first + 1, last + rng.int(-30, 90))
  const conclusion = rng.weighted(CONCLUSIONS)
  return {
    sha: SHA,
    name: plan.name,
    runAttempt: 2,
    timeline: [
      { at: appears, status: 'queued' },
      { at: appears + rng.int(10, 600), status: 'completed', conclusion }
    ],
    ...(conclusion === 'success' ? {} : { log: rng.pick(BUILD_LOGS) })
  }
}

function statusPlan(rng: Rng, context: string): StatusPlan {
  const start = rng.int(0, 120)
  const events: StatusPlan['timeline'] = [{ at: start, state: 'pending', description: 'queued' }]
  if (!rng.chance(0.08)) {
    events.push({
      at: start + rng.int(5, 1200),
      state: rng.weighted([
        ['success', 70],
        ['failure', 15],
        ['error', 15]
      ] as const),
      description: 'finished'
    })
  }
  return { sha: SHA, context, timeline: events }
}

/** A check that passes, for the cases whose point is another check. */
function passing(rng: Rng, name: string): CheckRunPlan {
  return { sha: SHA, name, timeline: timeline(rng, 'success') }
}

/** A check failing with `log` whose re-runs go as `rerun` says. */
function failing(rng: Rng, name: string, log: LogSource, rerun?: CheckRunPlan['rerun']) {
  const plan: CheckRunPlan = { sha: SHA, name, timeline: timeline(rng, 'failure'), log }
  if (rerun) plan.rerun = rerun
  return plan
}

interface Checks {
  checkRuns: CheckRunPlan[]
  statuses: StatusPlan[]
  workflowRuns: WorkflowRunPlan[]
  /** Head checks whose failure also fails, the same way, on the base branch head. */
  baseTwins: string[]
}

function mixedChecks(rng: Rng): Checks {
  const checks: Checks = { checkRuns: [], statuses: [], workflowRuns: [], baseTwins: [] }
  if (rng.chance(0.08)) return checks
  for (const name of rng.shuffle(CHECK_NAMES).slice(0, rng.int(1, 5))) {
    const plan = randomCheckRun(rng, name)
    checks.checkRuns.push(plan)
    if (rng.chance(0.15)) checks.checkRuns.push(plannedRerunOf(rng, plan))
  }
  for (const context of STATUS_CONTEXTS)
    if (rng.chance(0.25)) checks.statuses.push(statusPlan(rng, context))
  return checks
}

/** The base branch head fails some checks exactly as the head does (the same log). */
function redBaseChecks(rng: Rng): Checks {
  const names = rng.shuffle(CHECK_NAMES)
  const twins = names.slice(0, rng.int(1, 2))
  const checks: Checks = { checkRuns: [], statuses: [], workflowRuns: [], baseTwins: twins }
  for (const name of twins) {
    const log = rng.pick(BUILD_LOGS)
    checks.checkRuns.push(failing(rng, name, log), {
      branch: BASE_BRANCH,
      head: 0,
      name,
      timeline: [
        { at: 0, status: 'queued' },
        { at: rng.int(30, 600), status: 'completed', conclusion: 'failure' }
      ],
      log
    })
  }
  for (const name of names.slice(2, 2 + rng.int(0, 2))) checks.checkRuns.push(passing(rng, name))
  // Sometimes the iteration broke something of its own too.
  if (rng.chance(0.4)) checks.checkRuns.push(failing(rng, names[5] as string, rng.pick(BUILD_LOGS)))
  return checks
}

/** Runs waiting for a maintainer's approval: a job-less run, or a check asking for an action. */
function approvalChecks(rng: Rng): Checks {
  const checks: Checks = { checkRuns: [], statuses: [], workflowRuns: [], baseTwins: [] }
  if (rng.chance(0.7)) {
    checks.workflowRuns.push({
      sha: SHA,
      workflow: 'CI',
      event: 'push',
      timeline: [{ at: 0, status: 'completed', conclusion: 'action_required' }]
    })
  } else {
    checks.checkRuns.push(
      { sha: SHA, name: 'deploy', app: 'vercel', timeline: timeline(rng, 'action_required') },
      passing(rng, 'build')
    )
  }
  return checks
}

function rerunChecks(rng: Rng, kind: CaseKind): Checks {
  const checks: Checks = { checkRuns: [], statuses: [], workflowRuns: [], baseTwins: [] }
  const names = rng.shuffle(CHECK_NAMES)
  if (kind === 'runner-lost-then-green')
    checks.checkRuns.push(
      failing(rng, names[0] as string, RUNNER_SHUT_DOWN, [{ conclusion: 'success' }])
    )
  else {
    const log = rng.pick(TEST_LOGS)
    checks.checkRuns.push(
      failing(rng, names[0] as string, log, [
        kind === 'flaky-then-green' ? { conclusion: 'success' } : { conclusion: 'failure', log }
      ])
    )
  }
  for (const name of names.slice(1, 1 + rng.int(0, 2))) checks.checkRuns.push(passing(rng, name))
  return checks
}

const ROUTES = {
  checkRuns: 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
  status: 'GET /repos/{owner}/{repo}/commits/{ref}/status',
  run: 'GET /repos/{owner}/{repo}/actions/runs/{run_id}',
  runs: 'GET /repos/{owner}/{repo}/actions/runs',
  rerun: 'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs',
  pulls: 'GET /repos/{owner}/{repo}/pulls',
  createPull: 'POST /repos/{owner}/{repo}/pulls',
  readFile: 'GET /repos/{owner}/{repo}/contents/{path}',
  writeFile: 'PUT /repos/{owner}/{repo}/contents/{path}',
  listComments: 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
  createComment: 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
  editComment: 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
  jobLogs: 'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs',
  annotations: 'GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations',
  checkRun: 'GET /repos/{owner}/{repo}/check-runs/{check_run_id}'
} as const

const ROUTE_WEIGHTS: ReadonlyArray<readonly [string, number]> = [
  [ROUTES.checkRuns, 8],
  [ROUTES.status, 5],
  [ROUTES.run, 2],
  [ROUTES.runs, 1],
  [ROUTES.rerun, 2],
  [ROUTES.pulls, 2],
  [ROUTES.createPull, 1],
  [ROUTES.readFile, 3],
  [ROUTES.writeFile, 4],
  [ROUTES.listComments, 2],
  [ROUTES.createComment, 2],
  [ROUTES.editComment, 1],
  [ROUTES.jobLogs, 2],
  [ROUTES.annotations, 1],
  [ROUTES.checkRun, 1]
]

function isWrite(route: string): boolean {
  return !route.startsWith('GET ')
}

function randomFault(rng: Rng): FaultSpec {
  const route = rng.weighted(ROUTE_WEIGHTS)
  const afterRequests = rng.weighted([
    [0, 3],
    [rng.int(1, 5), 3],
    [rng.int(5, 40), 2]
  ] as const)
  const kinds: Array<readonly [FaultSpec['kind'], number]> = [
    ['status', 6],
    ['drop-connection', 3],
    ['slow', 2],
    ['secondary-rate-limit', 2],
    ['too-many-requests', 2],
    ['primary-rate-limit', 1]
  ]
  if (!isWrite(route)) kinds.push(['malformed-json', 2])
  if (route === ROUTES.writeFile) kinds.push(['contents-conflict', 6])
  if (route === ROUTES.jobLogs) kinds.push(['expired-log', 4])
  const kind = rng.weighted(kinds)
  const fault: FaultSpec = { kind, route, afterRequests }
  switch (kind) {
    case 'status':
      // A token without `actions: write` is refused every re-run.
      if (route === ROUTES.rerun && rng.chance(0.5)) {
        fault.status = 403
        fault.message = 'Resource not accessible by integration'
        fault.count = 'always'
        break
      }
      fault.status = rng.pick([500, 502, 503, 504])
      fault.count = rng.weighted([
        [1, 4],
        [rng.int(2, 4), 3],
        [rng.int(5, 8), 1]
      ] as const)
      break
    case 'drop-connection':
      fault.count = rng.int(1, 3)
      break
    case 'slow':
      fault.delayMs = rng.int(1, 15)
      fault.count = rng.int(1, 5)
      break
    case 'secondary-rate-limit':
      fault.retryAfterSeconds = rng.int(1, 120)
      fault.count = rng.int(1, 3)
      break
    case 'too-many-requests':
      fault.retryAfterSeconds = rng.int(1, 60)
      fault.count = rng.int(1, 3)
      break
    case 'primary-rate-limit':
      fault.resetInSeconds = rng.int(5, 300)
      break
    case 'malformed-json':
      fault.count = rng.int(1, 3)
      break
    case 'contents-conflict':
      fault.count = rng.int(1, 3)
      break
    case 'expired-log':
      fault.status = rng.pick([410, 404])
      fault.count = rng.int(1, 4)
      break
  }
  // A write that happened although its answer was lost (the real handler runs first).
  if (isWrite(route) && (kind === 'status' || kind === 'drop-connection') && rng.chance(0.4))
    fault.applyFirst = true
  return fault
}

function checksOf(rng: Rng, kind: CaseKind): Checks {
  switch (kind) {
    case 'mixed':
      return mixedChecks(rng)
    case 'red-base':
      return redBaseChecks(rng)
    case 'approval-gate':
      return approvalChecks(rng)
    default:
      return rerunChecks(rng, kind)
  }
}

export function generateCase(seed: number): ChaosCase {
  const rng = createRng(seed)
  const kind = rng.weighted<CaseKind>([
    ['mixed', 12],
    ['red-base', 2],
    ['approval-gate', 2],
    ['runner-lost-then-green', 1],
    ['flaky-then-green', 2],
    ['flaky-then-red', 1]
  ])
  const checks = checksOf(rng, kind)
  const { checkRuns } = checks
  if (rng.chance(0.5)) {
    // The gate's own job: never waited on, whatever it shows.
    checkRuns.push({
      sha: SHA,
      name: 'autoloop / gate',
      runId: OWN_RUN_ID,
      timeline: rng.chance(0.5)
        ? [{ at: 0, status: 'in_progress' }]
        : [
            { at: 0, status: 'in_progress' },
            { at: rng.int(1, 900), status: 'completed', conclusion: 'failure' }
          ]
    })
  }
  const reported = [
    ...new Set(checkRuns.filter((p) => p.sha === SHA && p.runId !== OWN_RUN_ID).map((p) => p.name))
  ]
  const requiredChecks: string[] = []
  if (kind === 'mixed' && rng.chance(0.25)) {
    requiredChecks.push(
      reported.length > 0 && rng.chance(0.7) ? rng.pick(reported) : NEVER_REPORTED
    )
  }
  const failFast = kind === 'mixed' && rng.chance(0.3)
  const timeoutMinutes = rng.pick([20, 30, 60])
  const preExisting = rng.chance(0.6) ? 'allow' : 'block'
  const rerunFailed = rng.weighted([
    [1, 6],
    [0, 1],
    [2, 1]
  ] as const)
  const store: StoreKind = rng.chance(0.5) ? 'state-dir' : 'state-branch'
  const initialState = rng.chance(0.7) ? seededStateFile(rng.chance(0.3)) : null
  const faults = Array.from({ length: rng.int(0, 6) }, () => randomFault(rng))
  const kill = rng.chance(0.25) ? { afterMs: rng.int(1, 20 * 60) * 1000 } : null

  const inputs: Record<string, string> = {
    program: PROGRAM,
    push: 'false',
    sha: SHA,
    issue: String(ISSUE),
    'poll-interval-seconds': String(rng.pick([10, 15, 30])),
    'checks-grace-seconds': '180',
    'timeout-minutes': String(timeoutMinutes),
    'fail-fast': String(failFast),
    'pre-existing-failures': preExisting,
    'rerun-failed': String(rerunFailed),
    ...(requiredChecks.length > 0 ? { 'required-checks': requiredChecks.join(',') } : {}),
    ...(store === 'state-branch' ? { 'state-branch': STATE_BRANCH } : {})
  }
  const scenario: Scenario = {
    // No startTime: the virtual clock starts at the real time, so that rate-limit reset
    // headers make sense to the throttling plugin, which compares them with the real clock.
    branches: { [BRANCH]: SHA },
    checkRuns,
    statuses: checks.statuses,
    workflowRuns: checks.workflowRuns,
    pulls: rng.chance(0.5) ? [{ number: 5, head: BRANCH, draft: true }] : [],
    issues: [{ number: ISSUE, labels: ['autoloop-program'], comments: ['A human comment'] }],
    ...(store === 'state-branch'
      ? { contents: { [STATE_BRANCH]: initialState ? { [`${PROGRAM}.md`]: initialState } : {} } }
      : {})
  }
  return {
    seed,
    kind,
    scenario,
    inputs,
    store,
    initialState,
    faults,
    kill,
    policy: {
      requiredChecks,
      failFast,
      ownRunId: OWN_RUN_ID,
      preExisting,
      baseTwins: checks.baseTwins
    },
    timeoutMinutes
  }
}
