/**
 * The gh-aw autoloop workflow as the integration tests play it against the fake GitHub API
 * (README: "gh-aw autoloop"): the agent's push (its commit, pushed by `safe_outputs` with a
 * token that starts no CI, then gh-aw's empty "ci: trigger checks" commit on top), the
 * hand-over files the `ci_gate` job downloads from the agent artifact (the scheduler's
 * selection, the agent's iteration file), and the `ci_gate` job's step itself: `push: false`,
 * the program from the selection, the state on the `memory/autoloop` branch, the fixer started
 * with `dispatch-workflow`. Each call is one workflow run (its own GITHUB_RUN_ID).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type {
  CheckRunPlan,
  FakeGitHub,
  LogSource,
  Scenario
} from '../../__fixtures__/fake-github/index.js'
import type { Ledger } from '../../src/core/ledger.js'
import { prependHistoryEntry, renderHistoryEntry } from '../../src/statefile/history.js'
import type { MachineStatePatch } from '../../src/core/schema.js'
import { ISSUE, STATE_BRANCH, programFiles, stateText } from '../app/commands/lifecycle-helpers.js'
import { runInProcess, type InProcessRun } from './in-process.js'
import { tempDir } from './temp-dir.js'

const FIXTURES = resolve(import.meta.dirname, '../../__fixtures__')

/** The program of the scheduler's own selection files (`__fixtures__/handover`). */
export const PROGRAM = 'coverage'
export const BRANCH = `autoloop/${PROGRAM}`
export const WORKFLOW = 'autoloop.lock.yml'
/** `dispatch-inputs` of the gate job: merged over `{"program": …}`. */
export const DISPATCH_INPUTS = { mode: 'ci-fix' }
export const START = Date.parse('2026-03-01T12:00:00Z')
export const MINUTE = 60_000

/** A file the autoloop scheduler wrote (`__fixtures__/handover/selection-*.json`). */
export function selectionFixture(
  name: 'selected' | 'forced-paused' | 'none' | 'no-programs'
): string {
  return readFileSync(join(FIXTURES, 'handover', `selection-${name}.json`), 'utf8')
}

/** A real tool's output from the corpus (`__fixtures__/corpus/<tool>/<class>/<variant>`). */
export function corpusLog(path: string): LogSource {
  return { file: join(FIXTURES, 'corpus', path) }
}

/** jest's own output with 200 failing tests (`__fixtures__/many-failures/generate.sh`). */
export const MANY_FAILURES_LOG: LogSource = {
  file: join(FIXTURES, 'many-failures', 'jest-200-failures.txt')
}

/** What the agent hands over: `{"metric": …, "improved": …, "change": "…"}`. */
export interface IterationFile {
  metric: number | null
  improved: boolean
  change: string
  error?: string
}

/** Machine State of the program before the first gate: four iterations, one accepted last. */
export const INITIAL_ROWS: MachineStatePatch = {
  issue: ISSUE,
  iterationCount: 4,
  bestMetric: 0.81,
  targetMetric: 0.95,
  metricDirection: 'higher',
  recentStatuses: ['accepted', 'rejected']
}

export interface GhAwScenarioOptions {
  patch?: MachineStatePatch
  ledger?: Ledger
  /** `<program>.md` as stored, instead of one made from the template with `patch`. */
  stateFile?: string
  extra?: Partial<Scenario>
}

/** The program's state on the memory branch, its branch with one commit, and its issue. */
export function ghAwScenario(options: GhAwScenarioOptions = {}): Scenario {
  const { extra = {} } = options
  const files = programFiles(PROGRAM, { ...INITIAL_ROWS, ...options.patch }, options.ledger)
  if (options.stateFile !== undefined) files[`${PROGRAM}.md`] = options.stateFile
  return {
    startTime: START,
    ...extra,
    contents: {
      [STATE_BRANCH]: files,
      [BRANCH]: { 'src/ranges.js': 'module.exports = {}\n' },
      ...extra.contents
    },
    issues: [{ number: ISSUE, labels: ['autoloop-program'] }, ...(extra.issues ?? [])],
    dispatchedRuns: { queuedSeconds: 5, runSeconds: 3600 },
    ...(extra.dispatchedRuns ? { dispatchedRuns: extra.dispatchedRuns } : {})
  }
}

/**
 * `<program>.md` grown by earlier iterations' history entries (as `record` writes them) to at
 * least `bytes` UTF-8 bytes.
 */
export function stateFileWithHistory(bytes: number): string {
  let text = stateText(PROGRAM, INITIAL_ROWS)
  for (let iteration = 1; Buffer.byteLength(text, 'utf8') < bytes; iteration += 1) {
    const lines = renderHistoryEntry({
      iteration,
      outcome: iteration % 3 === 0 ? 'rejected' : 'accepted',
      at: START - (1000 - iteration) * 6 * 60 * MINUTE,
      metric: 0.5 + iteration / 1000,
      previousBest: 0.5 + (iteration - 1) / 1000,
      change: `iteration ${iteration}: tests for another corner of the range parser`,
      reason: null,
      commit: null,
      runUrl: `https://github.com/octo-org/demo/actions/runs/${18_000_000_000 + iteration}`,
      runKey: String(18_000_000_000 + iteration),
      fixAttempts: 0
    })
    text = prependHistoryEntry(text, { lines, runKey: String(18_000_000_000 + iteration) })
  }
  return text
}

/** The heads gh-aw leaves on the program branch after one push. */
export interface AgentPush {
  /** The agent's own commit (pushed by `safe_outputs` with GITHUB_TOKEN: it starts no CI). */
  agentSha: string
  /** gh-aw's empty CI-trigger commit on top of it (same tree), the branch head CI runs on. */
  head: string
}

/** `safe_outputs` pushing the agent's change, then gh-aw's empty CI-trigger commit. */
export function agentPush(
  fake: FakeGitHub,
  files: Record<string, string>,
  change: string
): AgentPush {
  const agentSha = fake.commit(BRANCH, files, change)
  const head = fake.commit(BRANCH, {}, 'ci: trigger checks')
  return { agentSha, head }
}

/**
 * The agent's push (`agentPush`) and the check runs CI then starts on its head, gh-aw's
 * CI-trigger commit: `checks(head)` plans them.
 */
export function agentPushWithChecks(
  fake: FakeGitHub,
  files: Record<string, string>,
  change: string,
  checks: (head: string) => CheckRunPlan[]
): AgentPush {
  const push = agentPush(fake, files, change)
  planChecks(fake, ...checks(push.head))
  return push
}

const completedAfter = (seconds: number, conclusion: 'success' | 'failure' | 'cancelled') => [
  { at: 0, status: 'queued' as const },
  { at: Math.min(10, seconds), status: 'in_progress' as const },
  { at: seconds, status: 'completed' as const, conclusion }
]

/** An Actions job on `sha` that fails after `seconds`, with its job log. */
export function failingCheck(
  sha: string,
  name: string,
  log: LogSource,
  extra: Partial<CheckRunPlan> = {}
): CheckRunPlan {
  return { sha, name, timeline: completedAfter(300, 'failure'), log, ...extra }
}

export function passingCheck(
  sha: string,
  name: string,
  extra: Partial<CheckRunPlan> = {}
): CheckRunPlan {
  return { sha, name, timeline: completedAfter(240, 'success'), ...extra }
}

/** Check runs for commits pushed after the fake started. */
export function planChecks(fake: FakeGitHub, ...plans: CheckRunPlan[]): void {
  fake.state.checkRuns.push(...plans)
}

export interface GateJob {
  /** GITHUB_RUN_ID of the workflow run. */
  runId: number
  runAttempt?: number
  /** The iteration file's contents (an object is written as JSON); null: the agent wrote none. */
  iteration?: IterationFile | string | null
  /** The selection file's text; null: none was handed over. Default: the scheduler's pick. */
  selection?: string | null
  inputs?: Record<string, string>
  env?: Record<string, string | undefined>
}

export interface GateJobRun extends InProcessRun {
  /** The folder the agent artifact was downloaded to. */
  artifactDir: string
  selectionPath: string
  iterationPath: string
}

/**
 * One `ci_gate` job: the agent artifact downloaded to a temp folder (the scheduler's
 * selection and the agent's iteration file, when there are any), then the gate step.
 */
export async function ciGateJob(fake: FakeGitHub, job: GateJob): Promise<GateJobRun> {
  const artifactDir = tempDir('autoloop-artifact-')
  const selectionPath = join(artifactDir, 'autoloop.json')
  const iterationPath = join(artifactDir, 'iteration.json')
  const selection = job.selection === undefined ? selectionFixture('selected') : job.selection
  if (selection !== null) writeFileSync(selectionPath, selection)
  const iteration = job.iteration
  if (iteration !== undefined && iteration !== null)
    writeFileSync(
      iterationPath,
      typeof iteration === 'string' ? iteration : `${JSON.stringify(iteration)}\n`
    )
  const run = await runInProcess(fake, {
    inputs: {
      push: 'false',
      'selection-file': selectionPath,
      'iteration-file': iterationPath,
      'state-branch': STATE_BRANCH,
      'dispatch-workflow': WORKFLOW,
      'dispatch-inputs': JSON.stringify(DISPATCH_INPUTS),
      'create-pr': 'false',
      ...job.inputs
    },
    env: {
      GITHUB_RUN_ID: String(job.runId),
      GITHUB_RUN_ATTEMPT: String(job.runAttempt ?? 1),
      ...job.env
    }
  })
  return { ...run, artifactDir, selectionPath, iterationPath }
}

/** The `reconcile` command as gh-aw's `ci_reconcile` job (or a schedule) runs it. */
export function reconcileJob(
  fake: FakeGitHub,
  runId: number,
  inputs: Record<string, string> = {}
): Promise<InProcessRun> {
  return runInProcess(fake, {
    inputs: { command: 'reconcile', 'state-branch': STATE_BRANCH, ...inputs },
    env: { GITHUB_RUN_ID: String(runId) }
  })
}

/** The `## 🚦 CI Gate` section of a state file (up to the next `## ` heading or the end). */
export function ciGateSection(text: string): string {
  const start = text.indexOf('## 🚦 CI Gate')
  if (start === -1) return ''
  const next = text.indexOf('\n## ', start + 1)
  return next === -1 ? text.slice(start) : text.slice(start, next)
}

/** API requests that wrote something (anything but GET). */
export function writeRequests(fake: FakeGitHub): string[] {
  return fake.writeRequests().map((r) => `${r.method} ${r.path}`)
}
