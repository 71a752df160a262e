/**
 * Two (or three) writers of one program at once, as separate processes of the bundled action
 * against one fake API, for both stores (a `state-dir` folder, the `state-branch` contents
 * API): no lost update, no attempt counted twice, the state file valid and read by the
 * scheduler as meant, the human sections untouched. And a gate with a reconcile running
 * while it waits.
 */
import { describe, expect, it } from '@jest/globals'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CheckRunPlan, FakeGitHub, Scenario } from '../../__fixtures__/fake-github/index.js'
import { actionEnv, withFake } from '../helpers/fake-run.js'
import { runAction, type ActionRun } from '../helpers/run-action.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'
import { seededStateFile } from '../../scripts/chaos/scenario.js'
import { withoutOwnedParts } from '../../scripts/chaos/harness.js'

const PROGRAM = 'perf'
const BRANCH = `autoloop/${PROGRAM}`
const STATE_BRANCH = 'memory/autoloop'
const GATE_RUN_ID = 9000
const sha = (n: number) => n.toString(16).padStart(2, '0').repeat(20)

type StoreKind = 'state-dir' | 'state-branch'

interface Attempt {
  index: number
  sha: string
  state: string
}

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
  read(fake: FakeGitHub): string | null
}

function programIn(store: StoreKind): Program {
  const stateDir = mkdtempSync(join(tmpdir(), 'autoloop-concurrent-'))
  const path = join(stateDir, `${PROGRAM}.md`)
  if (store === 'state-dir') writeFileSync(path, seededStateFile(false))
  return {
    store,
    stateDir,
    inputs: store === 'state-dir' ? { 'state-dir': stateDir } : { 'state-branch': STATE_BRANCH },
    read: (fake) => {
      if (store === 'state-dir') return existsSync(path) ? readFileSync(path, 'utf8') : null
      const head = fake.state.branches[STATE_BRANCH]
      return (head ? fake.state.commits[head]?.files?.[`${PROGRAM}.md`] : undefined) ?? null
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
  runId: number
): Promise<ActionRun> {
  return runAction({
    inputs: { program: PROGRAM, push: 'false', sha: commit, issue: '12', ...program.inputs },
    env: actionEnv(fake, { GITHUB_RUN_ID: String(runId) })
  })
}

function attemptsIn(text: string): Attempt[] {
  const block = /## 🚦 CI Gate[\s\S]*?```json\n([\s\S]*?)\n```/.exec(text)
  if (!block?.[1]) throw new Error('no CI Gate block in the state file')
  return (JSON.parse(block[1]) as { attempts: Attempt[] }).attempts
}

/** Valid, read by the scheduler as an active program, human text kept. */
function expectValidState(text: string | null): Attempt[] {
  expect(text).not.toBeNull()
  const reading = readLikeScheduler(text as string)
  expect(reading.fields.paused).toBe('false')
  expect(reading.fields.iteration_count).toBe('17')
  expect(withoutOwnedParts(text as string)).toBe(withoutOwnedParts(seededStateFile(false)))
  return attemptsIn(text as string)
}

const STORES: StoreKind[] = ['state-dir', 'state-branch']
const ROUNDS = 3

describe.each(STORES)('concurrent gates, %s store', (store) => {
  it(`three gates of three SHAs at once count three attempts, none lost (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const program = programIn(store)
      const commits = [sha(1), sha(2), sha(3)]
      await withFake(
        scenarioFor(program, {
          branches: { [BRANCH]: sha(3) },
          checkRuns: commits.map((commit, i) => red(commit, `check-${i}`, 120 + 30 * i))
        }),
        async (fake) => {
          const runs = await Promise.all(
            commits.map((commit, i) => gate(fake, program, commit, 700 + i))
          )
          for (const run of runs)
            expect(run.outputs).toMatchObject({ status: 'failure', verdict: 'red' })
          const reported = runs.map((run) => Number(run.outputs.attempt)).sort()
          expect(reported).toEqual([0, 1, 2])
          const attempts = expectValidState(program.read(fake))
          expect(attempts.map((a) => a.index).sort()).toEqual([0, 1, 2])
          expect(attempts.map((a) => a.sha).sort()).toEqual([...commits].sort())
          expect(attempts.map((a) => a.state)).toEqual(['red', 'red', 'red'])
          // Each process's attempt is the one it reported.
          for (const [i, run] of runs.entries())
            expect(attempts.find((a) => a.sha === commits[i])?.index).toBe(
              Number(run.outputs.attempt)
            )
        }
      )
    }
  }, 120_000)

  it(`two gates of the same SHA at once share one attempt (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const program = programIn(store)
      await withFake(
        scenarioFor(program, {
          branches: { [BRANCH]: sha(1) },
          checkRuns: [red(sha(1), 'unit', 200)]
        }),
        async (fake) => {
          const runs = await Promise.all([
            gate(fake, program, sha(1), 701),
            gate(fake, program, sha(1), 702)
          ])
          expect(runs.map((run) => run.outputs.attempt)).toEqual(['0', '0'])
          const attempts = expectValidState(program.read(fake))
          expect(attempts).toHaveLength(1)
          expect(attempts[0]).toMatchObject({ index: 0, sha: sha(1), state: 'red' })
        }
      )
    }
  }, 120_000)

  it('a reconcile while the gate waits leaves the live attempt alone; the gate records its verdict', async () => {
    const program = programIn(store)
    await withFake(
      scenarioFor(program, {
        branches: { [BRANCH]: sha(1) },
        checkRuns: [red(sha(1), 'unit', 600), ownJob(sha(1))]
      }),
      async (fake) => {
        const gating = gate(fake, program, sha(1), GATE_RUN_ID)
        // Start the reconcile once the gate's attempt is in flight.
        let text: string | null = null
        for (let i = 0; i < 2000 && !text?.includes('"in-flight"'); i++) {
          await new Promise((resolve) => setImmediate(resolve))
          text = program.read(fake)
          if (!text?.includes('"in-flight"')) await new Promise((resolve) => setTimeout(resolve, 5))
        }
        expect(text).toContain('"in-flight"')
        const reconcile = await runAction({
          inputs: { command: 'reconcile', ...program.inputs },
          env: actionEnv(fake, { GITHUB_RUN_ID: '555' })
        })
        const run = await gating
        expect(reconcile.exitCode).toBe(0)
        expect(reconcile.outputs).toMatchObject({
          status: 'reconciled',
          abandoned: '[]',
          errors: '[]'
        })
        expect(run.outputs).toMatchObject({ status: 'failure', verdict: 'red', attempt: '0' })
        const attempts = expectValidState(program.read(fake))
        expect(attempts).toEqual([expect.objectContaining({ index: 0, sha: sha(1), state: 'red' })])
      }
    )
  }, 120_000)
})
