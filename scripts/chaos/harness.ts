/**
 * Runs one chaos case: the fake GitHub API with the case's scenario and faults, the action run
 * in-process on the fake's clock (the same `run(deps)` the bundle runs), then the oracle's
 * checks. A case that crashes its job does it at a virtual moment: from then on the run's
 * clock never returns from a wait (the job is gone, its state as it left it), and the job is
 * run again, as GitHub re-runs a failed job: the same run id, the next run attempt. Returns
 * every violated invariant as a line.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startFakeGitHub, type FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { readLikeScheduler } from '../../__tests__/helpers/scheduler-rule.js'
import { GATE_OWNED_KEYS } from '../../__tests__/statefile/helpers.js'
import { runActionInProcess, type InProcessRun } from '../../__fixtures__/run-in-process.js'
import type { Clock } from '../../src/ports.js'
import { ledgerPath, type Ledger } from '../../src/core/ledger.js'
import { parseLedgerFile } from '../../src/statefile/ledger-file.js'
import { readMachineState } from '../../src/statefile/machine-state.js'
import {
  countedChecks,
  mayBeGreenExceptPreExisting,
  rerunTruth,
  verdictOf,
  type RerunTruth,
  type TrueVerdict
} from './oracle.js'
import { ISSUE, OWN_RUN_ID, PROGRAM, SHA, STATE_BRANCH, type ChaosCase } from './scenario.js'

/** Machine State rows the gate owns; every other row and byte must stay as it was. */
const OWNED_KEYS: readonly string[] = GATE_OWNED_KEYS
const CI_GATE_HEADING = '## 🚦 CI Gate'
const POINTER = /<!-- autoloop-ci-gate:ledger (\S+) revision (\d+) -->/
const VERDICTS = ['green', 'red', 'no-checks', 'ci-timeout', 'green-except-pre-existing', 'blocked']

export interface Launch {
  /** The job crashed at its virtual moment (its run never finished). */
  killed: boolean
  /** The run took longer than the real-time bound (a hang: a defect). */
  timedOut: boolean
  run: InProcessRun | null
  realMs: number
}

export interface CaseReport {
  seed: number
  kind: ChaosCase['kind']
  violations: string[]
  launches: Launch[]
  /** The last launch's `status` output, or `error`/`no-output`. */
  outcome: string
  verdict: string
  trueVerdict: TrueVerdict | null
  /** The step's error message when it failed, else null. */
  error: string | null
  /** Checks the gate reported flaky (failed, then passed on its re-run). */
  flaky: string[]
  /** Faults that fired, by kind (plus `kill` for a crashed job). */
  faultsFired: Record<string, number>
  virtualMs: number
  realMs: number
}

export interface RunCaseOptions {
  /** A launch taking longer than this (real ms) is abandoned and reported. */
  realTimeoutMs?: number
}

/**
 * The fake's clock for a job that crashes at `killAt`: its first wait that would reach that
 * moment never returns, so the job does nothing more, whatever it was doing.
 */
function crashingClock(clock: Clock, killAt: number): { clock: Clock; crashed: Promise<void> } {
  let crash = (): void => {}
  const crashed = new Promise<void>((resolve) => (crash = resolve))
  return {
    crashed,
    clock: {
      now: () => clock.now(),
      sleep(ms) {
        if (clock.now() + Math.max(0, ms) < killAt) return clock.sleep(ms)
        crash()
        return new Promise<void>(() => {})
      }
    }
  }
}

async function launch(
  fake: FakeGitHub,
  c: ChaosCase,
  options: { dir: string; runAttempt: number; killAt: number | null; realTimeoutMs: number }
): Promise<Launch> {
  const started = Date.now()
  const crashing = options.killAt === null ? null : crashingClock(fake.clock, options.killAt)
  const workspace = mkdtempSync(join(options.dir, 'run-'))
  const running = runActionInProcess(fake, workspace, {
    inputs: {
      'github-token': 'chaos-token-0123456789',
      ...c.inputs,
      ...(c.store === 'state-dir' ? { 'state-dir': join(options.dir, 'state') } : {})
    },
    env: { GITHUB_RUN_ID: String(OWN_RUN_ID), GITHUB_RUN_ATTEMPT: String(options.runAttempt) },
    ...(crashing ? { clock: crashing.clock } : {})
  })
  let timer: NodeJS.Timeout | undefined
  const outcome = await Promise.race([
    running.then((run) => ({ run })),
    ...(crashing ? [crashing.crashed.then(() => 'killed' as const)] : []),
    new Promise<'timed-out'>((resolve) => {
      timer = setTimeout(() => resolve('timed-out'), options.realTimeoutMs)
    })
  ])
  clearTimeout(timer)
  return {
    killed: outcome === 'killed',
    timedOut: outcome === 'timed-out',
    run: typeof outcome === 'object' ? outcome.run : null,
    realMs: Date.now() - started
  }
}

/** A file of the program's store (`<program>.md`, the ledger) as it is now, or null. */
export function storedFile(
  fake: FakeGitHub,
  c: ChaosCase,
  dir: string,
  path: string
): string | null {
  if (c.store === 'state-branch') return fake.readFile(STATE_BRANCH, path) ?? null
  const file = join(dir, 'state', path)
  return existsSync(file) ? readFileSync(file, 'utf8') : null
}

/**
 * The text with what the gate owns taken out: its Machine State rows and
 * its own `## 🚦 CI Gate` section (with the `---` separator the writer puts after it).
 */
export function withoutOwnedParts(text: string): string {
  const lines = text.split(/(?<=\n)/)
  const kept: string[] = []
  let inGate = false
  let inMachine = false
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    const bare = line.replace(/\r?\n$/, '')
    if (bare === CI_GATE_HEADING) {
      inGate = true
      continue
    }
    if (inGate) {
      if (bare.trim() === '---') {
        inGate = false
        if ((lines[i + 1] ?? '').trim() === '') i++
      } else if (bare.startsWith('## ')) {
        inGate = false
        kept.push(line)
      }
      continue
    }
    if (bare.startsWith('## ')) inMachine = bare.startsWith('## ⚙️ Machine State')
    const row = inMachine ? /^(\s*\|\s*)([^|]*?)(\s*\|)/.exec(bare) : null
    const key = row?.[2]?.trim().toLowerCase().split(' ').join('_')
    // Owned rows go entirely: the gate may add a missing one after the table.
    if (row && key && OWNED_KEYS.includes(key)) continue
    kept.push(line)
  }
  // The writer puts its section after Machine State's separator: drop a doubled separator.
  return kept.join('').replace(/(\r?\n---\r?\n\r?\n)(---\r?\n\r?\n)+/g, '$1')
}

const CHECK_RUNS_ROUTE = 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs'
const STATUS_ROUTE = 'GET /repos/{owner}/{repo}/commits/{ref}/status'

/** The virtual moments of the last poll of the head whose two reads both got a usable answer. */
function lastGoodPoll(
  fake: FakeGitHub,
  fromSeq: number
): { checkRunsAt: number; statusesAt: number } | null {
  const good = fake.requests.filter(
    (r) =>
      r.seq >= fromSeq &&
      r.path.includes(`/commits/${SHA}/`) &&
      (r.status === 200 || r.status === 304) &&
      (r.fault === undefined || r.fault === 'slow')
  )
  const status = good.filter((r) => r.route === STATUS_ROUTE).at(-1)
  if (!status) return null
  const runs = good.filter((r) => r.route === CHECK_RUNS_ROUTE && r.seq < status.seq).at(-1)
  return runs ? { checkRunsAt: runs.at, statusesAt: status.at } : null
}

/** The verdict the gate gave, against what the checks were when it decided. */
function verdictViolations(
  c: ChaosCase,
  fake: FakeGitHub,
  fromSeq: number,
  outputs: Record<string, string>
): { violations: string[]; truth: TrueVerdict | null } {
  const violations: string[] = []
  const verdict = outputs.verdict ?? ''
  const seenAt = fake.state.shaSeenAt[SHA]
  const poll = lastGoodPoll(fake, fromSeq)
  const headPlans = {
    // The scenario's plans and the re-run attempts the fake started for the gate.
    checkRuns: fake.state.checkRuns.filter((plan) => plan.sha === SHA),
    statuses: c.scenario.statuses ?? []
  }
  const counted =
    poll && seenAt !== undefined
      ? countedChecks(headPlans, seenAt, poll.checkRunsAt, poll.statusesAt, OWN_RUN_ID)
      : null
  const truth = counted ? verdictOf(counted, c.policy) : null
  const pauseReason = outputs['pause-reason'] ?? ''
  const approvalGate = (c.scenario.workflowRuns ?? []).some((run) =>
    run.timeline.some((event) => event.conclusion === 'action_required')
  )
  const wrong = (why: string) => violations.push(`WRONG VERDICT: ${why}`)
  switch (verdict) {
    case 'green':
    case 'red':
    case 'blocked':
      if (truth === null) wrong(`${verdict} without any successful read of the checks`)
      else if (truth !== verdict) wrong(`the action said ${verdict}, the checks were ${truth}`)
      break
    case 'no-checks':
      if (truth !== null && truth !== 'no-checks')
        wrong(`the action said no-checks, the checks were ${truth}`)
      if (!pauseReason.startsWith('ci-blocked: '))
        wrong(`no-checks without a ci-blocked pause (${JSON.stringify(pauseReason)})`)
      if (approvalGate && !/wait for approval/.test(pauseReason))
        wrong(`a run waits for approval, the pause reason does not say so: ${pauseReason}`)
      break
    case 'green-except-pre-existing':
      if (truth !== 'red' || !counted || !mayBeGreenExceptPreExisting(counted, c.policy))
        wrong(
          `green except pre-existing failures, but the checks were ${truth} and not every failure is the base branch's (pre-existing-failures: ${c.policy.preExisting})`
        )
      else if ((JSON.parse(outputs['pre-existing'] || '[]') as string[]).length === 0)
        wrong('green except pre-existing failures with an empty `pre-existing` output')
      break
    case 'ci-timeout':
      if (truth !== null && truth !== 'pending')
        wrong(`ci-timeout although the checks had a verdict (${truth})`)
      break
    case '':
      break
    default:
      violations.push(`unknown verdict output ${JSON.stringify(verdict)}`)
  }
  if (verdict === 'blocked' && !pauseReason.startsWith('ci-blocked: '))
    wrong(`blocked without a ci-blocked pause (${JSON.stringify(pauseReason)})`)
  if (
    pauseReason.startsWith('ci-base-red') &&
    (!counted || !mayBeGreenExceptPreExisting(counted, { ...c.policy, preExisting: 'allow' }))
  )
    wrong(`paused ${pauseReason} although not every failure is the base branch's`)
  return { violations, truth }
}

function faultFired(fake: FakeGitHub, kind: string): boolean {
  return fake.requests.some((r) => r.fault === kind)
}

/** The ledger's latest attempt: one SHA gated once, flaky checks reported as they were. */
function ledgerViolations(ledger: Ledger, reruns: RerunTruth, crashed: boolean): string[] {
  const violations: string[] = []
  const attempts = ledger.attempts
  if (attempts.length > 1) violations.push(`the one SHA was counted as ${attempts.length} attempts`)
  if (attempts.some((a) => a.sha !== SHA)) violations.push('an attempt of another SHA')
  const latest = attempts.at(-1)
  if (!latest || latest.state === 'in-flight') return violations
  const flaky = (latest.classification?.flaky ?? []).map((f) => f.check).sort()
  for (const name of flaky)
    if (!reruns.notFailingAfterFailure.includes(name))
      violations.push(`FLAKY CLAIMED: ${name} is reported flaky, but no re-run of it passed`)
  // A crashed job's re-run may find the re-run already green: it keeps the evidence instead.
  const evidence = new Set([...flaky, ...(latest.reruns ?? []).flatMap((r) => r.checks)])
  for (const name of reruns.passedOnGateRerun)
    if (!(crashed ? evidence : new Set(flaky)).has(name))
      violations.push(
        `FLAKY HIDDEN: ${name} failed, then passed on the gate's re-run, and is not reported`
      )
  return violations
}

export async function runCase(c: ChaosCase, options: RunCaseOptions = {}): Promise<CaseReport> {
  const realTimeoutMs = options.realTimeoutMs ?? 60_000
  const violations: string[] = []
  const dir = mkdtempSync(join(tmpdir(), `autoloop-chaos-${c.seed}-`))
  if (c.store === 'state-dir') {
    mkdirSync(join(dir, 'state'), { recursive: true })
    if (c.initialState !== null) writeFileSync(join(dir, 'state', `${PROGRAM}.md`), c.initialState)
  }
  const fake = await startFakeGitHub({ scenario: { ...c.scenario, faults: [...c.faults] } })
  const realStart = Date.now()
  const virtualStart = fake.now()
  const launches: Launch[] = []
  try {
    let fromSeq = fake.requests.length + 1
    const first = await launch(fake, c, {
      dir,
      runAttempt: 1,
      killAt: c.kill ? virtualStart + c.kill.afterMs : null,
      realTimeoutMs
    })
    launches.push(first)
    if (first.killed) {
      // GitHub re-runs the failed job: same workflow run, next attempt.
      fromSeq = (fake.requests.at(-1)?.seq ?? 0) + 1
      launches.push(await launch(fake, c, { dir, runAttempt: 2, killAt: null, realTimeoutMs }))
    }
    const last = launches.at(-1) as Launch
    const outputs = last.run?.outputs ?? {}
    const outcome = outputs.status || (last.run?.exitCode === 0 ? 'no-output' : 'error')
    const verdict = outputs.verdict ?? ''
    for (const run of launches)
      if (run.timedOut) violations.push(`a launch ran longer than ${realTimeoutMs} ms (real)`)
    if (outcome === 'no-output') violations.push('the action ended without a status output')
    if (outcome === 'success' && verdict !== 'green' && verdict !== 'green-except-pre-existing')
      violations.push(`status success with verdict ${verdict}`)
    if ((outcome === 'success' || outcome === 'failure') && last.run?.exitCode !== 0)
      violations.push(`status ${outcome} but the step failed`)
    if (!VERDICTS.includes(verdict) && verdict !== '')
      violations.push(`unknown verdict ${JSON.stringify(verdict)}`)

    const judged = verdictViolations(c, fake, fromSeq, outputs)
    violations.push(...judged.violations)

    // The state: present, parseable, read by the scheduler as meant, other bytes kept.
    const finalState = storedFile(fake, c, dir, `${PROGRAM}.md`)
    const ledgerText = storedFile(fake, c, dir, ledgerPath(PROGRAM))
    let flaky: string[] = []
    if (finalState === null) {
      if (c.initialState !== null) violations.push('STATE LOST: the state file is gone')
      else if (outcome !== 'error')
        violations.push(`status ${outcome} but no state file was written`)
    } else {
      let ledger: Ledger | null = null
      try {
        readMachineState(finalState)
        ledger = ledgerText === null ? null : parseLedgerFile(ledgerText, ledgerPath(PROGRAM))
      } catch (error) {
        violations.push(`STATE CORRUPTED: ${(error as Error).message.split('\n')[0]}`)
      }
      if (ledgerText === null && c.initialState === null)
        violations.push('STATE LOST: a state file the gate wrote, without its ledger')
      const reading = readLikeScheduler(finalState)
      const pausedInFile = reading.fields.paused?.toLowerCase() === 'true'
      if (outcome === 'paused' && !pausedInFile)
        violations.push('status paused but the scheduler does not read the program as paused')
      if (pausedInFile && !['paused', 'skipped', 'error'].includes(outcome))
        violations.push(`the scheduler reads the program as paused, the status is ${outcome}`)
      if (ledger) {
        const pointer = POINTER.exec(finalState)
        if (outcome !== 'error' && Number(pointer?.[2]) !== ledger.revision)
          violations.push(
            `STATE STALE: ${PROGRAM}.md shows ledger revision ${pointer?.[2]}, the ledger is at ${ledger.revision}`
          )
        if (ledger.iteration?.outcome === 'paused' && !pausedInFile && outcome !== 'error')
          violations.push(
            'the ledger paused the iteration, the scheduler reads the program as active'
          )
        const reruns = rerunTruth(
          fake.state.checkRuns.filter((plan) => plan.sha === SHA),
          fake.state.shaSeenAt[SHA] ?? virtualStart,
          fake.now()
        )
        if (outcome !== 'error')
          violations.push(...ledgerViolations(ledger, reruns, launches.length > 1))
        flaky = (ledger.attempts.at(-1)?.classification?.flaky ?? []).map((f) => f.check)
      }
      if (c.initialState !== null) {
        const before = readLikeScheduler(c.initialState)
        for (const [key, value] of Object.entries(before.fields)) {
          if (!OWNED_KEYS.includes(key) && reading.fields[key] !== value)
            violations.push(
              `STATE CORRUPTED: the scheduler reads ${key} as ${reading.fields[key]}, was ${value}`
            )
        }
        if (withoutOwnedParts(finalState) !== withoutOwnedParts(c.initialState))
          violations.push('STATE CORRUPTED: bytes outside the owned rows and section changed')
      }
    }
    if (outputs.sha && outputs.sha !== SHA) violations.push(`gated ${outputs.sha}, not ${SHA}`)

    // Comments: one per marker, one status comment.
    const bodies = fake.state.comments.filter((x) => x.issue === ISSUE).map((x) => x.body)
    const byMarker = new Map<string, number>()
    for (const body of bodies) {
      const marker = /^<!--[^\n]*?-->/.exec(body)?.[0]
      if (marker) byMarker.set(marker, (byMarker.get(marker) ?? 0) + 1)
    }
    for (const [marker, count] of byMarker)
      if (count > 1) violations.push(`DUPLICATED COMMENT: ${count} comments with ${marker}`)

    // Time bound: the iteration cap plus slack for rate-limit waits and re-runs. The throttling
    // plugin measures a primary rate limit's reset against the real clock, which the virtual
    // clock runs ahead of: such a wait may last that much longer here (not in a real job).
    const virtualMs = fake.now() - virtualStart
    const skew = faultFired(fake, 'primary-rate-limit')
      ? Math.max(0, virtualMs - (Date.now() - realStart))
      : 0
    const virtualBound = (c.timeoutMinutes + 30) * 60_000 + skew
    if (virtualMs > virtualBound)
      violations.push(
        `ran ${Math.round(virtualMs / 60_000)} virtual minutes (bound ${Math.round(virtualBound / 60_000)})`
      )

    // Every request valid against the OpenAPI description.
    for (const r of fake.invalidRequests())
      violations.push(`invalid request ${r.method} ${r.path}: ${r.openapi.errors.join('; ')}`)
    for (const r of fake.unimplementedRequests())
      violations.push(`unimplemented route ${r.method} ${r.path}`)

    const faultsFired: Record<string, number> = {}
    for (const r of fake.requests) {
      const kind =
        r.fault ??
        (r.route === 'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs' &&
        (r.status === 410 || r.status === 404)
          ? 'expired-log'
          : undefined)
      if (kind) faultsFired[kind] = (faultsFired[kind] ?? 0) + 1
    }
    if (launches.some((run) => run.killed)) faultsFired.kill = 1

    return {
      seed: c.seed,
      kind: c.kind,
      violations,
      launches,
      outcome,
      verdict,
      trueVerdict: judged.truth,
      error: last.run?.errors[0] ?? null,
      flaky,
      faultsFired,
      virtualMs,
      realMs: Date.now() - realStart
    }
  } finally {
    await fake.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
