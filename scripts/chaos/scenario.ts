/**
 * One seeded chaos case: a random scenario for the fake GitHub API (check-run timelines with
 * every conclusion, commit statuses, re-runs, the gate's own job, required checks, no checks
 * at all), the gate's inputs, and a random fault schedule (5xx bursts, dropped connections,
 * slow answers, rate limits, 409 on state writes, expired logs, malformed JSON, a kill).
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type {
  CheckConclusion,
  CheckRunPlan,
  FaultSpec,
  Scenario,
  StatusPlan
} from '../../__fixtures__/fake-github/index.js'
import { createRng, type Rng } from './prng.js'
import type { OraclePolicy } from './oracle.js'

export const PROGRAM = 'perf'
export const BRANCH = `autoloop/${PROGRAM}`
export const SHA = 'c4a05'.padEnd(40, '7')
export const ISSUE = 12
export const OWN_RUN_ID = 9000
export const STATE_BRANCH = 'memory/autoloop'
export const NEVER_REPORTED = 'deploy-preview'

export type StoreKind = 'state-dir' | 'state-branch'

export interface KillPlan {
  /** Virtual ms after the first launch started when the process is killed (SIGKILL). */
  afterMs: number
}

export interface ChaosCase {
  seed: number
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

const STATE_FIXTURE = resolve(import.meta.dirname, '../../__fixtures__/state/coverage.md')

/** A real-looking state file of the program (the fixture, renamed), LF or CRLF. */
export function seededStateFile(crlf: boolean): string {
  const text = readFileSync(STATE_FIXTURE, 'utf8').replaceAll('coverage', PROGRAM)
  return crlf ? text.replace(/\r?\n/g, '\r\n') : text
}

function failingLog(name: string): string {
  return [
    '2026-03-01T12:00:01.0000000Z ##[group]Run npm test',
    `2026-03-01T12:00:02.0000000Z src/${name.replace(/\W+/g, '-')}.ts(12,5): error TS2339: Property 'x' does not exist on type 'Y'.`,
    '2026-03-01T12:00:03.0000000Z ##[error]Process completed with exit code 1.',
    ''
  ].join('\n')
}

function checkRunPlan(rng: Rng, name: string): CheckRunPlan {
  const queued = rng.weighted([
    [rng.int(0, 30), 6],
    [rng.int(30, 170), 3],
    [rng.int(170, 260), 1]
  ] as const)
  const timeline: CheckRunPlan['timeline'] = [{ at: queued, status: 'queued' }]
  const started = queued + rng.int(0, 60)
  if (rng.chance(0.8)) timeline.push({ at: started, status: 'in_progress' })
  const conclusion = rng.weighted(CONCLUSIONS)
  if (!rng.chance(0.08)) {
    timeline.push({ at: started + rng.int(5, 1500), status: 'completed', conclusion })
  }
  const plan: CheckRunPlan = { sha: SHA, name, timeline }
  if (conclusion !== 'success' && rng.chance(0.8)) plan.log = failingLog(name)
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

/** A re-run of `plan`: attempt 2, appearing after the first attempt ended (or while it runs). */
function rerunOf(rng: Rng, plan: CheckRunPlan): CheckRunPlan {
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
    ...(conclusion === 'success' ? {} : { log: failingLog(plan.name) })
  }
}

function statusPlan(rng: Rng, context: string): StatusPlan {
  const start = rng.int(0, 120)
  const timeline: StatusPlan['timeline'] = [{ at: start, state: 'pending', description: 'queued' }]
  if (!rng.chance(0.08)) {
    timeline.push({
      at: start + rng.int(5, 1200),
      state: rng.weighted([
        ['success', 70],
        ['failure', 15],
        ['error', 15]
      ] as const),
      description: 'finished'
    })
  }
  return { sha: SHA, context, timeline }
}

const ROUTES = {
  checkRuns: 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
  status: 'GET /repos/{owner}/{repo}/commits/{ref}/status',
  run: 'GET /repos/{owner}/{repo}/actions/runs/{run_id}',
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

export function generateCase(seed: number): ChaosCase {
  const rng = createRng(seed)
  const noChecks = rng.chance(0.08)
  const checkRuns: CheckRunPlan[] = []
  const statuses: StatusPlan[] = []
  if (!noChecks) {
    const names = rng.shuffle(CHECK_NAMES).slice(0, rng.int(1, 5))
    for (const name of names) {
      const plan = checkRunPlan(rng, name)
      checkRuns.push(plan)
      if (rng.chance(0.15)) checkRuns.push(rerunOf(rng, plan))
    }
    for (const context of STATUS_CONTEXTS)
      if (rng.chance(0.25)) statuses.push(statusPlan(rng, context))
  }
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
  const reported = [...new Set(checkRuns.filter((p) => p.runId !== OWN_RUN_ID).map((p) => p.name))]
  const requiredChecks: string[] = []
  if (rng.chance(0.25)) {
    requiredChecks.push(
      reported.length > 0 && rng.chance(0.7) ? rng.pick(reported) : NEVER_REPORTED
    )
  }
  const failFast = rng.chance(0.3)
  const timeoutMinutes = rng.pick([20, 30, 60])
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
    ...(requiredChecks.length > 0 ? { 'required-checks': requiredChecks.join(',') } : {}),
    ...(store === 'state-branch' ? { 'state-branch': STATE_BRANCH } : {})
  }
  const scenario: Scenario = {
    // No startTime: the virtual clock starts at the real time, so that rate-limit reset
    // headers make sense to the throttling plugin, which compares them with the real clock.
    branches: { [BRANCH]: SHA },
    checkRuns,
    statuses,
    pulls: rng.chance(0.5) ? [{ number: 5, head: BRANCH, draft: true }] : [],
    issues: [{ number: ISSUE, labels: ['autoloop-program'], comments: ['A human comment'] }],
    ...(store === 'state-branch'
      ? { contents: { [STATE_BRANCH]: initialState ? { [`${PROGRAM}.md`]: initialState } : {} } }
      : {})
  }
  return {
    seed,
    scenario,
    inputs,
    store,
    initialState,
    faults,
    kill,
    policy: { requiredChecks, failFast, ownRunId: OWN_RUN_ID },
    timeoutMinutes
  }
}
