/**
 * Runs one chaos case: the fake GitHub API with the case's scenario and faults, the bundled
 * action as a child process (killed with SIGKILL at a virtual moment and started again when
 * the case says so), then the oracle's checks. Returns every violated invariant as a line.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startFakeGitHub, type FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { readLikeScheduler } from '../../__tests__/helpers/scheduler-rule.js'
import { inputEnv, parseOutputFile } from '../../__tests__/helpers/run-action.js'
import { readMachineState } from '../../src/state/markdown.js'
import { readLedger } from '../../src/loop/ledger.js'
import { trueVerdict, type TrueVerdict } from './oracle.js'
import { ISSUE, OWN_RUN_ID, PROGRAM, SHA, STATE_BRANCH, type ChaosCase } from './scenario.js'

export const DIST_ENTRY = resolve(import.meta.dirname, '../../dist/index.js')

/** Machine State rows the gate owns; every other row and byte must stay as it was. */
export const OWNED_KEYS = [
  'branch',
  'pr',
  'issue',
  'paused',
  'pause_reason',
  'recent_statuses',
  'last_run'
]
const CI_GATE_HEADING = '## 🚦 CI Gate'

export interface Launch {
  exitCode: number | null
  signal: string | null
  killed: boolean
  stdout: string
  stderr: string
  outputs: Record<string, string>
  summary: string
  realMs: number
  timedOut: boolean
}

export interface CaseReport {
  seed: number
  violations: string[]
  launches: Launch[]
  /** The last launch's `status` output, or `error`/`no-output`. */
  outcome: string
  verdict: string
  trueVerdict: TrueVerdict | null
  /** The step's error message when it failed (its `::error::` line), else null. */
  error: string | null
  /** Faults that fired, by kind (plus `kill` for a killed process). */
  faultsFired: Record<string, number>
  virtualMs: number
  realMs: number
}

export interface RunCaseOptions {
  entry?: string
  /** A launch taking longer than this (real ms) is killed and reported. */
  realTimeoutMs?: number
  /** Kept for `--keep`: where the state folder and the outputs are. */
  keepFiles?: boolean
}

interface Spawned {
  child: ReturnType<typeof spawn>
  done: Promise<Launch>
}

function launch(
  entry: string,
  env: Record<string, string>,
  dir: string,
  realTimeoutMs: number
): Spawned {
  const outputFile = join(dir, `output-${Date.now()}-${Math.random()}`)
  const summaryFile = `${outputFile}.summary`
  writeFileSync(outputFile, '')
  writeFileSync(summaryFile, '')
  const started = Date.now()
  const child = spawn(process.execPath, [entry], {
    cwd: dir,
    env: { ...env, GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    child.kill('SIGKILL')
  }, realTimeoutMs)
  const done = new Promise<Launch>((resolveLaunch) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolveLaunch({
        exitCode: code,
        signal,
        killed: signal === 'SIGKILL' && !timedOut,
        stdout,
        stderr,
        outputs: parseOutputFile(readFileSync(outputFile, 'utf8')),
        summary: readFileSync(summaryFile, 'utf8'),
        realMs: Date.now() - started,
        timedOut
      })
    })
  })
  return { child, done }
}

/** The program's state file as the store holds it now. */
export function storedState(fake: FakeGitHub, c: ChaosCase, stateDir: string): string | null {
  if (c.store === 'state-dir') {
    const path = join(stateDir, `${PROGRAM}.md`)
    return existsSync(path) ? readFileSync(path, 'utf8') : null
  }
  const head = fake.state.branches[STATE_BRANCH]
  const files = head ? fake.state.commits[head]?.files : undefined
  return files?.[`${PROGRAM}.md`] ?? null
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

interface Snapshot {
  checkRunsAt: number
  statusesAt: number
}

const CHECK_RUNS_ROUTE = 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs'
const STATUS_ROUTE = 'GET /repos/{owner}/{repo}/commits/{ref}/status'

/** The virtual moments of the last poll whose two reads both got a usable answer. */
function lastGoodPoll(fake: FakeGitHub, fromSeq: number): Snapshot | null {
  const good = fake.requests.filter(
    (r) =>
      r.seq >= fromSeq &&
      (r.status === 200 || r.status === 304) &&
      (r.fault === undefined || r.fault === 'slow')
  )
  const status = good.filter((r) => r.route === STATUS_ROUTE).at(-1)
  if (!status) return null
  const runs = good.filter((r) => r.route === CHECK_RUNS_ROUTE && r.seq < status.seq).at(-1)
  return runs ? { checkRunsAt: runs.at, statusesAt: status.at } : null
}

function ledgerJson(text: string): { attempts?: Array<{ sha?: string }> } | null {
  const at = text.indexOf(CI_GATE_HEADING)
  if (at < 0) return null
  const block = /```json\r?\n([\s\S]*?)\r?\n```/.exec(text.slice(at))
  if (!block?.[1]) return null
  return JSON.parse(block[1]) as { attempts?: Array<{ sha?: string }> }
}

export async function runCase(c: ChaosCase, options: RunCaseOptions = {}): Promise<CaseReport> {
  const entry = options.entry ?? DIST_ENTRY
  const realTimeoutMs = options.realTimeoutMs ?? 60_000
  const violations: string[] = []
  const dir = mkdtempSync(join(tmpdir(), `autoloop-chaos-${c.seed}-`))
  const stateDir = join(dir, 'state')
  if (c.store === 'state-dir' && c.initialState !== null) {
    mkdirSync(stateDir, { recursive: true })
    writeFileSync(join(stateDir, `${PROGRAM}.md`), c.initialState)
  }
  const fake = await startFakeGitHub({ scenario: { ...c.scenario, faults: [...c.faults] } })
  const realStart = Date.now()
  const virtualStart = fake.now()
  const launches: Launch[] = []
  let lastLaunchSeq: number
  try {
    const baseEnv: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      GITHUB_ACTIONS: 'true',
      GITHUB_API_URL: fake.apiUrl,
      GITHUB_SERVER_URL: fake.serverUrl,
      GITHUB_REPOSITORY: `${fake.state.owner}/${fake.state.repo}`,
      GITHUB_RUN_ID: String(OWN_RUN_ID),
      GITHUB_RUN_ATTEMPT: '1',
      RUNNER_TEMP: dir,
      AUTOLOOP_CLOCK_URL: fake.clockUrl,
      ...inputEnv({
        'github-token': 'chaos-token-0123456789',
        ...c.inputs,
        ...(c.store === 'state-dir' ? { 'state-dir': stateDir } : {})
      })
    }
    // First launch, killed at a virtual moment when the case says so.
    lastLaunchSeq = fake.requests.length + 1
    const first = launch(entry, baseEnv, dir, realTimeoutMs)
    let watcher: NodeJS.Timeout | undefined
    if (c.kill) {
      const killAt = virtualStart + c.kill.afterMs
      watcher = setInterval(() => {
        if (fake.now() >= killAt) {
          clearInterval(watcher)
          first.child.kill('SIGKILL')
        }
      }, 1)
    }
    const firstRun = await first.done
    if (watcher) clearInterval(watcher)
    launches.push(firstRun)
    if (firstRun.killed) {
      // The job is re-run: same workflow run, next attempt.
      lastLaunchSeq = (fake.requests.at(-1)?.seq ?? 0) + 1
      const again = launch(entry, { ...baseEnv, GITHUB_RUN_ATTEMPT: '2' }, dir, realTimeoutMs)
      launches.push(await again.done)
    }

    const last = launches[launches.length - 1] as Launch
    const outputs = last.outputs
    const outcome = outputs.status || (last.exitCode === 0 ? 'no-output' : 'error')
    const verdict = outputs.verdict ?? ''
    for (const run of launches)
      if (run.timedOut) violations.push(`a launch ran longer than ${realTimeoutMs} ms (real)`)
    if (outcome === 'no-output') violations.push('the action exited 0 without a status output')
    if (outcome === 'success' && verdict !== 'green')
      violations.push(`status success with verdict ${verdict}`)
    if ((outcome === 'success' || outcome === 'failure') && last.exitCode !== 0)
      violations.push(`status ${outcome} but exit code ${last.exitCode}`)

    // Verdict against the oracle, at the moment of the poll that decided it.
    let truth: TrueVerdict | null = null
    const seenAt = fake.state.shaSeenAt[SHA]
    const poll = lastGoodPoll(fake, lastLaunchSeq)
    if (poll && seenAt !== undefined) {
      truth = trueVerdict(
        { checkRuns: c.scenario.checkRuns ?? [], statuses: c.scenario.statuses ?? [] },
        seenAt,
        poll.checkRunsAt,
        poll.statusesAt,
        c.policy
      )
    }
    if (verdict === 'green' || verdict === 'red' || verdict === 'no-checks') {
      if (truth === null)
        violations.push(`verdict ${verdict} without any successful read of the checks`)
      else if (truth !== verdict)
        violations.push(`WRONG VERDICT: the action said ${verdict}, the checks were ${truth}`)
    } else if (verdict === 'ci-timeout') {
      if (truth !== null && truth !== 'pending')
        violations.push(`ci-timeout although the checks had a verdict (${truth})`)
    } else if (verdict !== '') {
      violations.push(`unknown verdict output ${JSON.stringify(verdict)}`)
    }
    if (outputs.sha && outputs.sha !== SHA) violations.push(`gated ${outputs.sha}, not ${SHA}`)

    // State file: present, parseable, read by the scheduler as meant, other bytes kept.
    const finalState = storedState(fake, c, stateDir)
    if (finalState === null) {
      if (c.initialState !== null) violations.push('STATE LOST: the state file is gone')
      else if (outcome !== 'error')
        violations.push(`status ${outcome} but no state file was written`)
    } else {
      try {
        readMachineState(finalState)
        readLedger(finalState)
      } catch (error) {
        violations.push(`STATE CORRUPTED: ${(error as Error).message.split('\n')[0]}`)
      }
      const reading = readLikeScheduler(finalState)
      const pausedInFile = reading.fields.paused?.toLowerCase() === 'true'
      if (outcome === 'paused' && !pausedInFile)
        violations.push('status paused but the scheduler does not read the program as paused')
      if (pausedInFile && !['paused', 'skipped', 'error'].includes(outcome))
        violations.push(`the scheduler reads the program as paused, the status is ${outcome}`)
      if (c.initialState !== null) {
        const before = readLikeScheduler(c.initialState)
        for (const [key, value] of Object.entries(before.fields)) {
          if (!OWNED_KEYS.includes(key) && reading.fields[key] !== value)
            violations.push(
              `STATE CORRUPTED: the scheduler reads ${key} as ${reading.fields[key]}, was ${value}`
            )
        }
        if (withoutOwnedParts(finalState) !== withoutOwnedParts(c.initialState)) {
          if (process.env.CHAOS_DEBUG) {
            writeFileSync(`${process.env.CHAOS_DEBUG}.before`, c.initialState)
            writeFileSync(`${process.env.CHAOS_DEBUG}.after`, finalState)
          }
          violations.push('STATE CORRUPTED: bytes outside the owned rows and section changed')
        }
      }
      try {
        const ledger = ledgerJson(finalState)
        const attempts = ledger?.attempts ?? []
        if (attempts.length > 1)
          violations.push(`the one SHA was counted as ${attempts.length} attempts`)
        if (attempts.some((a) => a.sha !== SHA)) violations.push('an attempt of another SHA')
      } catch (error) {
        violations.push(
          `STATE CORRUPTED: the CI Gate block is not JSON: ${(error as Error).message}`
        )
      }
    }

    // Comments: one per marker, one status comment.
    const bodies = fake.state.comments.filter((x) => x.issue === ISSUE).map((x) => x.body)
    const byMarker = new Map<string, number>()
    for (const body of bodies) {
      const marker = /^<!--[^\n]*?-->/.exec(body)?.[0]
      if (marker) byMarker.set(marker, (byMarker.get(marker) ?? 0) + 1)
    }
    for (const [marker, count] of byMarker)
      if (count > 1) violations.push(`DUPLICATED COMMENT: ${count} comments with ${marker}`)
    const statusComments = bodies.filter((b) => b.includes('<!-- AUTOLOOP:STATUS -->')).length
    if (statusComments > 1) violations.push(`DUPLICATED COMMENT: ${statusComments} status comments`)

    // Time bounds: virtual (the iteration cap plus slack for rate-limit waits) and real.
    const virtualMs = fake.now() - virtualStart
    const virtualBound = (c.timeoutMinutes + 30) * 60_000
    if (virtualMs > virtualBound)
      violations.push(
        `ran ${Math.round(virtualMs / 60_000)} virtual minutes (bound ${virtualBound / 60_000})`
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
      violations,
      launches,
      outcome,
      verdict,
      trueVerdict: truth,
      error:
        last.stdout
          .split('\n')
          .find((line) => line.startsWith('::error'))
          ?.replace(/^::error[^:]*::/, '') ?? null,
      faultsFired,
      virtualMs,
      realMs: Date.now() - realStart
    }
  } finally {
    await fake.close()
    if (!options.keepFiles) rmSync(dir, { recursive: true, force: true })
  }
}
