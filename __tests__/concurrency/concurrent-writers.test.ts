/**
 * Several writers of one program at once, for both stores (a `state-dir` folder, the
 * `state-branch` contents API): gates of the action running concurrently in-process against
 * one fake API, and, for the folder, another job writing the same file from a separate
 * process. No lost update, no attempt counted twice, the ledger and the state file valid and
 * read by the scheduler as meant, the human sections untouched. And a gate with a reconcile
 * running while it waits.
 */
import type { Clock } from '../../src/ports.js'
import { describe, expect, it } from '@jest/globals'
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { CheckRunPlan, FakeGitHub, Scenario } from '../../__fixtures__/fake-github/index.js'
import { withFake } from '../helpers/fake-run.js'
import { runInProcess, type InProcessRun } from '../helpers/in-process.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'
import { tempDir } from '../helpers/temp-dir.js'
import { ledgerPath, type Attempt } from '../../src/core/ledger.js'
import { parseLedgerFile } from '../../src/statefile/ledger-file.js'
import { seededStateFile } from '../../scripts/chaos/scenario.js'
import { withoutOwnedParts } from '../../scripts/chaos/harness.js'

const PROGRAM = 'perf'
const BRANCH = `autoloop/${PROGRAM}`
const STATE_BRANCH = 'memory/autoloop'
const GATE_RUN_ID = 9000
const sha = (n: number) => n.toString(16).padStart(2, '0').repeat(20)
const APPEND_LESSON = resolve(import.meta.dirname, 'children/append-lesson.ts')

type StoreKind = 'state-dir' | 'state-branch'

function red(commit: string, name: string, seconds: number): CheckRunPlan {
  return {
    sha: commit,
    name,
    timeline: [
      { at: 0, status: 'queued' },
      { at: seconds, status: 'completed', conclusion: 'failure' }
    ]
  }
}

/** The gate's own job, running for the whole test: its workflow run is in progress. */
function ownJob(commit: string): CheckRunPlan {
  return {
    sha: commit,
    name: 'autoloop',
    runId: GATE_RUN_ID,
    timeline: [{ at: 0, status: 'in_progress' }]
  }
}

interface Program {
  store: StoreKind
  stateDir: string
  inputs: Record<string, string>
  read(fake: FakeGitHub, path: string): string | null
}

function programIn(store: StoreKind): Program {
  const stateDir = tempDir('autoloop-concurrent-')
  if (store === 'state-dir') writeFileSync(join(stateDir, `${PROGRAM}.md`), seededStateFile(false))
  return {
    store,
    stateDir,
    inputs: store === 'state-dir' ? { 'state-dir': stateDir } : { 'state-branch': STATE_BRANCH },
    read: (fake, path) => {
      if (store === 'state-branch') return fake.readFile(STATE_BRANCH, path) ?? null
      return existsSync(join(stateDir, path)) ? readFileSync(join(stateDir, path), 'utf8') : null
    }
  }
}

function scenarioFor(program: Program, extra: Scenario): Scenario {
  return {
    issues: [{ number: 12, labels: ['autoloop-program'] }],
    ...(program.store === 'state-branch'
      ? { contents: { [STATE_BRANCH]: { [`${PROGRAM}.md`]: seededStateFile(false) } } }
      : {}),
    ...extra
  }
}

function gate(
  fake: FakeGitHub,
  program: Program,
  commit: string,
  runId: number,
  clock: Clock = fake.clock
): Promise<InProcessRun> {
  return runInProcess(fake, {
    inputs: { program: PROGRAM, push: 'false', sha: commit, issue: '12', ...program.inputs },
    env: { GITHUB_RUN_ID: String(runId) },
    clock
  })
}

/**
 * The fake's clock, but every wait also lets up to 100 real milliseconds pass: a writer in another
 * process runs on real time, and a compare-and-swap retry whose backoff took no real time would
 * meet it again at once (the action's backoff is real time against GitHub).
 */
function sharedWithRealTime(fake: FakeGitHub): Clock {
  return {
    now: () => fake.clock.now(),
    async sleep(ms) {
      await fake.clock.sleep(ms)
      await new Promise((resolve) => setTimeout(resolve, Math.min(ms, 100)))
    }
  }
}

const filesOf = (fake: FakeGitHub, program: Program): [string | null, string | null] => [
  program.read(fake, `${PROGRAM}.md`),
  program.read(fake, ledgerPath(PROGRAM))
]

/** The ledger's attempts, and the state file: valid, an active program, human text kept. */
function expectValidState(text: string | null, ledgerText: string | null): Attempt[] {
  expect(text).not.toBeNull()
  expect(ledgerText).not.toBeNull()
  const reading = readLikeScheduler(text as string)
  expect(reading.fields.paused).toBe('false')
  expect(reading.fields.iteration_count).toBe('17')
  expect(withoutOwnedParts(text as string)).toBe(withoutOwnedParts(seededStateFile(false)))
  const ledger = parseLedgerFile(ledgerText as string, ledgerPath(PROGRAM))
  // The file shows the ledger's latest revision: no projection was lost either.
  expect(text).toContain(`ci-gate:ledger ${ledgerPath(PROGRAM)} revision ${ledger.revision} -->`)
  return ledger.attempts
}

const COMMITS = [sha(1), sha(2), sha(3)]

/** Three commits, each with a failing check of its own, gated by three runs at once. */
function threeRedCommits(program: Program): Scenario {
  return scenarioFor(program, {
    branches: { [BRANCH]: sha(3) },
    checkRuns: COMMITS.map((commit, i) => red(commit, `check-${i}`, 120 + 30 * i))
  })
}

function gateThreeAtOnce(
  fake: FakeGitHub,
  program: Program,
  clock: Clock = fake.clock
): Promise<InProcessRun[]> {
  return Promise.all(COMMITS.map((commit, i) => gate(fake, program, commit, 700 + i, clock)))
}

const STORES: StoreKind[] = ['state-dir', 'state-branch']
const ROUNDS = 3

describe.each(STORES)('concurrent gates, %s store', (store) => {
  it(`three gates of three SHAs at once count three attempts, none lost (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const program = programIn(store)
      await withFake(threeRedCommits(program), async (fake) => {
        const runs = await gateThreeAtOnce(fake, program)
        for (const run of runs)
          expect(run.outputs).toMatchObject({ status: 'failure', verdict: 'red' })
        const reported = runs.map((run) => Number(run.outputs.attempt)).sort()
        expect(reported).toEqual([0, 1, 2])
        const attempts = expectValidState(...filesOf(fake, program))
        expect(attempts.map((a) => a.index)).toEqual([0, 1, 2])
        expect(attempts.map((a) => a.sha).sort()).toEqual([...COMMITS].sort())
        expect(attempts.map((a) => a.state)).toEqual(['red', 'red', 'red'])
        // Each run's attempt is the one it reported.
        for (const [i, run] of runs.entries())
          expect(attempts.find((a) => a.sha === COMMITS[i])?.index).toBe(
            Number(run.outputs.attempt)
          )
      })
    }
  })

  it(`two runs gating the same SHA at once: one attempt each, never one counted twice (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const program = programIn(store)
      await withFake(
        scenarioFor(program, {
          branches: { [BRANCH]: sha(1) },
          // Red only after 15 minutes: both runs begin long before either has a verdict.
          checkRuns: [red(sha(1), 'unit', 900)]
        }),
        async (fake) => {
          const runs = await Promise.all([
            gate(fake, program, sha(1), 701),
            gate(fake, program, sha(1), 702)
          ])
          // Whichever began second found the other's attempt in flight: re-used, not counted
          // again (and not taken for a fixer that pushed nothing).
          expect(runs.map((run) => run.outputs.attempt)).toEqual(['0', '0'])
          for (const run of runs) expect(run.outputs.status).toBe('failure')
          const attempts = expectValidState(...filesOf(fake, program))
          expect(attempts).toEqual([
            expect.objectContaining({ index: 0, sha: sha(1), state: 'red' })
          ])
        }
      )
    }
  })

  it('a reconcile while the gate waits leaves the live attempt alone; the gate records its verdict', async () => {
    const program = programIn(store)
    await withFake(
      scenarioFor(program, {
        branches: { [BRANCH]: sha(1) },
        checkRuns: [red(sha(1), 'unit', 3000), ownJob(sha(1))]
      }),
      async (fake) => {
        const gating = gate(fake, program, sha(1), GATE_RUN_ID)
        // Start the reconcile once the gate's attempt is in flight (each turn of the event
        // loop lets the gate take a step; its waits are on the fake's clock).
        let ledger: string | null = null
        for (let turn = 0; turn < 100_000 && !ledger?.includes('"in-flight"'); turn++) {
          await new Promise((resolve) => setImmediate(resolve))
          ledger = program.read(fake, ledgerPath(PROGRAM))
        }
        expect(ledger).toContain('"in-flight"')
        const reconcile = await runInProcess(fake, {
          inputs: { command: 'reconcile', 'github-token': 'reconcile-token', ...program.inputs },
          env: { GITHUB_RUN_ID: '555' }
        })
        // The reconcile found the attempt in flight: it asked whether the gate's run still runs.
        expect(
          fake.requests
            .filter((r) => r.headers.authorization === 'token reconcile-token')
            .filter((r) => r.path.endsWith(`/actions/runs/${GATE_RUN_ID}`))
            .map((r) => r.status)
        ).toEqual([200])
        const run = await gating
        expect(reconcile.exitCode).toBe(0)
        expect(reconcile.outputs).toMatchObject({
          status: 'reconciled',
          abandoned: '[]',
          errors: '[]'
        })
        expect(run.outputs).toMatchObject({ status: 'failure', verdict: 'red', attempt: '0' })
        const attempts = expectValidState(...filesOf(fake, program))
        expect(attempts).toEqual([expect.objectContaining({ index: 0, sha: sha(1), state: 'red' })])
      }
    )
  })
})

/**
 * Starts the child; resolves once it wrote its first lesson, with `stop()`: closes its stdin,
 * waits for its end and gives how many lessons it wrote.
 */
function anotherJob(dir: string): Promise<{ stop(): Promise<number> }> {
  return new Promise((resolveStarted, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', APPEND_LESSON, dir, PROGRAM], {
      stdio: ['pipe', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    const done = new Promise<number>((resolveDone, rejectDone) =>
      child.on('close', (code) => {
        const wrote = /^wrote (\d+)$/m.exec(stdout)
        if (code === 0 && wrote) resolveDone(Number(wrote[1]))
        else rejectDone(new Error(`exit ${code}: ${stderr}`))
      })
    )
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      if (stdout.includes('ready\n'))
        resolveStarted({
          stop: () => {
            child.stdin.end()
            return done
          }
        })
    })
    child.on('error', reject)
    done.catch(reject)
  })
}

describe('the state-dir store, another job writing the same file from its own process', () => {
  it('gates and the other job both keep every write', async () => {
    const program = programIn('state-dir')
    await withFake(threeRedCommits(program), async (fake) => {
      // The other job writes from before the gates start until after they end.
      const other = await anotherJob(program.stateDir)
      const runs = await gateThreeAtOnce(fake, program, sharedWithRealTime(fake))
      const wrote = await other.stop()
      // It wrote while the gates ran, not only before them.
      expect(wrote).toBeGreaterThan(1)
      for (const run of runs) expect(run.outputs).toMatchObject({ status: 'failure' })
      const text = program.read(fake, `${PROGRAM}.md`) as string
      const lessons = text.split('\n').filter((line) => / from another job$/.test(line))
      expect(lessons).toHaveLength(wrote)
      // Less the other job's lines (and the blank line each insert left), the gate's file.
      const gates = text.replace(/\n\n(- lesson .* from another job\n)+/, '\n\n')
      const attempts = expectValidState(gates, program.read(fake, ledgerPath(PROGRAM)))
      expect(attempts.map((a) => [a.index, a.state])).toEqual([
        [0, 'red'],
        [1, 'red'],
        [2, 'red']
      ])
    })
  })
})
