/**
 * `reconcile` in-process against the fake API: attempts left in flight by runs that are gone,
 * CI-paused programs whose head has become green, `<program>.md` reverted by another run's
 * memory push, and what all this costs: the state branch is read with git, so an idle program
 * spends no REST rate limit.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import type { CheckRunPlan, FakeGitHub, Scenario } from '../../__fixtures__/fake-github/index.js'
import { withFake } from '../helpers/fake-run.js'
import { readLikeScheduler } from '../helpers/scheduler-rule.js'
import {
  beginAttempt,
  completeAttempt,
  emptyLedger,
  finishIteration,
  ledgerPath,
  type Ledger
} from '../../src/core/ledger.js'
import type { MachineStatePatch } from '../../src/core/schema.js'
import {
  ISSUE,
  STATE_BRANCH,
  commentsOn,
  gateCommit,
  ledgerOf,
  programFiles,
  runCommand,
  schedulerReads,
  stateFileOf
} from '../app/commands/lifecycle-helpers.js'

const START = Date.parse('2026-03-01T12:00:00Z')
const MINUTE = 60_000
const sha = (seed: string) => seed.padEnd(40, '0')
const FINISHED_RUN = 19_000_000_500
const RUNNING_RUN = 19_000_000_600

const LIMITS = { maxFixAttempts: 5, timeoutMinutes: 60 }

function inFlight(at: number, runId: number | null, commit = sha('aaa')): Ledger {
  return beginAttempt(emptyLedger('x', at), {
    sha: commit,
    runId,
    runAttempt: 1,
    now: at,
    ...LIMITS
  }).ledger
}

/** A ledger whose last attempt on `commit` ended red and paused the iteration. */
function pausedOn(commit: string): Ledger {
  const at = START - 120 * MINUTE
  let ledger = beginAttempt(emptyLedger('x', at), {
    sha: commit,
    runId: 7000,
    now: at,
    ...LIMITS
  }).ledger
  ledger = completeAttempt(ledger, 0, { state: 'red', now: START - 100 * MINUTE })
  return finishIteration(ledger, 'paused', START - 100 * MINUTE)
}

const check = (
  target: Partial<CheckRunPlan>,
  conclusion: 'success' | 'failure',
  extra: Partial<CheckRunPlan> = {}
): CheckRunPlan => ({
  name: 'test',
  timeline: [{ at: 0, status: 'completed', conclusion }],
  ...target,
  ...extra
})

interface Program {
  patch?: MachineStatePatch
  ledger?: Ledger
  raw?: string
}

function scenarioOf(programs: Record<string, Program>, extra: Partial<Scenario> = {}): Scenario {
  const files: Record<string, string> = {}
  for (const [name, program] of Object.entries(programs))
    Object.assign(
      files,
      program.raw === undefined
        ? programFiles(name, { issue: ISSUE, ...program.patch }, program.ledger)
        : { [`${name}.md`]: program.raw }
    )
  return {
    startTime: START,
    contents: { [STATE_BRANCH]: files },
    issues: [{ number: ISSUE }],
    ...extra
  }
}

function reconcile(fake: FakeGitHub, inputs: Record<string, string> = {}) {
  return runCommand(fake, { command: 'reconcile', ...inputs }, { GITHUB_RUN_ID: '9500' })
}

const list = (output: string | undefined) => JSON.parse(output ?? 'null') as unknown

/** Reads of the state branch through the contents API (git reads are not API requests). */
const contentsReads = (fake: FakeGitHub) =>
  fake.requests.filter((r) => r.method === 'GET' && r.route?.includes('/contents/'))

describe('reconcile, in-process against the fake API', () => {
  it('marks attempts of runs that are gone abandoned, pausing with ci-timeout once the wall clock is spent', async () => {
    const programs: Record<string, Program> = {
      // Its run has finished, 10 minutes into a 60-minute budget: abandoned, not paused.
      crashed: { ledger: inFlight(START - 10 * MINUTE, FINISHED_RUN) },
      // Its run no longer exists, and the wall clock is spent: abandoned and paused.
      vanished: { ledger: inFlight(START - 2 * 60 * MINUTE, 123_456) },
      // No run id to ask about, older than the wall clock: abandoned and paused.
      anonymous: { ledger: inFlight(START - 2 * 60 * MINUTE, null) },
      // Its run is still going: left alone, however long it takes.
      waiting: { ledger: inFlight(START - 2 * 60 * MINUTE, RUNNING_RUN, sha('bbb')) }
    }
    const scenario = scenarioOf(programs, {
      branches: { 'autoloop/crashed': sha('aaa'), 'autoloop/waiting': sha('bbb') },
      checkRuns: [
        check({ sha: sha('aaa') }, 'success', { name: 'autoloop', runId: FINISHED_RUN }),
        {
          sha: sha('bbb'),
          name: 'autoloop',
          runId: RUNNING_RUN,
          timeline: [{ at: 0, status: 'in_progress' }]
        }
      ]
    })
    await withFake(scenario, async (fake) => {
      // Both workflow runs exist: their commits were pushed before the runs started.
      for (const commit of [sha('aaa'), sha('bbb')]) fake.state.shaSeenAt[commit] = START
      expect(fake.checkRunsFor(sha('bbb'))[0]).toMatchObject({
        runId: RUNNING_RUN,
        status: 'in_progress'
      })
      const run = await reconcile(fake)
      expect(run.exitCode).toBe(0)
      expect(run.outputs.status).toBe('reconciled')
      const runReads = fake.requests.filter((r) => r.route?.endsWith('/actions/runs/{run_id}'))
      expect(runReads.map((r) => [r.path.split('/').pop(), r.status]).sort()).toEqual([
        ['123456', 404],
        [String(FINISHED_RUN), 200],
        [String(RUNNING_RUN), 200]
      ])
      expect(list(run.outputs.abandoned)).toEqual(['anonymous', 'crashed', 'vanished'])
      expect(list(run.outputs.resumed)).toEqual([])
      expect(list(run.outputs.errors)).toEqual([])
      const attemptState = (program: string) => ledgerOf(fake, program)?.attempts[0]?.state
      expect(attemptState('crashed')).toBe('abandoned')
      expect(schedulerReads(fake, 'crashed').skipped).toBe(false)
      for (const program of ['vanished', 'anonymous']) {
        expect(attemptState(program)).toBe('abandoned')
        expect(schedulerReads(fake, program)).toMatchObject({
          skipped: true,
          fields: { paused: 'true', pause_reason: 'ci-timeout' }
        })
      }
      expect(attemptState('waiting')).toBe('in-flight')
      expect(stateFileOf(fake, 'waiting')).toBe(
        programFiles('waiting', { issue: ISSUE }, programs.waiting?.ledger)['waiting.md']
      )
      expect(
        commentsOn(fake).filter((c) => c.startsWith('<!-- autoloop-ci-gate:pause '))
      ).toHaveLength(2)
      expect(run.summary).toMatch(
        /\| crashed +\| active +\| marked attempt 0 on aaa0000 \(run 19000000500\) abandoned/
      )
    })
  })

  it('resumes CI-paused programs whose head is green (a human push, a re-run); leaves red and manual pauses', async () => {
    const old = sha('01d')
    const fix = sha('f1e')
    const red = sha('bad')
    const programs: Record<string, Program> = {
      fixed: {
        patch: { paused: true, pauseReason: 'ci-fix-exhausted: jest:a.test.ts>sum' },
        ledger: pausedOn(old)
      },
      rerun: { patch: { paused: true, pauseReason: 'ci-timeout' }, ledger: pausedOn(old) },
      stillred: {
        patch: { paused: true, pauseReason: 'stuck in CI fix loop: tsc:TS2339' },
        ledger: pausedOn(red)
      },
      // Blocked (runs waited for approval): any verdict on the head lifts it, red included.
      approved: {
        patch: {
          paused: true,
          pauseReason: `ci-blocked: workflow runs on ${red.slice(0, 12)} wait for approval (CI)`
        },
        ledger: pausedOn(red)
      },
      manual: { patch: { paused: true, pauseReason: 'manual' } },
      tired: { patch: { paused: true, pauseReason: 'consecutive errors' } },
      broken: {
        raw: '# Autoloop: broken\n\n## ⚙️ Machine State\n\n| Field | Value |\n|---|---|\n| Paused | maybe |\n'
      }
    }
    const scenario = scenarioOf(programs, {
      branches: {
        'autoloop/fixed': fix,
        'autoloop/rerun': old,
        'autoloop/stillred': red,
        'autoloop/approved': red,
        'autoloop/manual': fix,
        'autoloop/tired': fix
      },
      checkRuns: [
        check({ sha: fix }, 'success'),
        check({ sha: fix }, 'success', { name: 'lint' }),
        // The same commit's failed check, re-run green.
        check({ sha: old }, 'failure'),
        check({ sha: old }, 'success', {
          runAttempt: 2,
          timeline: [{ at: 1, status: 'completed', conclusion: 'success' }]
        }),
        check({ sha: red }, 'failure')
      ]
    })
    await withFake(scenario, async (fake) => {
      // The re-run of the old head's check finished a second after the first attempt.
      fake.state.shaSeenAt[old] = START
      fake.advance(5_000)
      const run = await reconcile(fake)
      expect(run.exitCode).toBe(0)
      expect(list(run.outputs.resumed)).toEqual(['approved', 'fixed', 'rerun'])
      expect(list(run.outputs.abandoned)).toEqual([])
      const errors = list(run.outputs.errors) as Array<{ program: string; reason: string }>
      expect(errors.map((e) => e.program)).toEqual(['broken'])
      expect(errors[0]?.reason).toContain('Paused must be true or false')
      expect(stateFileOf(fake, 'broken')).toBe(programs.broken?.raw)
      for (const program of ['approved', 'fixed', 'rerun']) {
        expect(schedulerReads(fake, program)).toMatchObject({
          skipped: false,
          fields: { paused: 'false', pause_reason: null }
        })
        // The resume is a ledger write; the paused iteration stays as it ended.
        const ledger = ledgerOf(fake, program)
        expect(ledger?.writes.at(-1)?.machineState).toEqual({ paused: false, pauseReason: null })
        expect(ledger?.iteration?.outcome).toBe('paused')
      }
      expect(schedulerReads(fake, 'stillred').fields.paused).toBe('true')
      expect(schedulerReads(fake, 'manual').fields.pause_reason).toBe('manual')
      expect(schedulerReads(fake, 'tired').fields.pause_reason).toBe('consecutive errors')
      const resumes = commentsOn(fake).filter((c) => c.startsWith('<!-- autoloop-ci-gate:resume '))
      expect(resumes).toHaveLength(3)
      expect(resumes.some((c) => c.includes(`has a verdict now (red`))).toBe(true)
      expect(resumes.some((c) => c.includes(`\`${fix}\``))).toBe(true)
      expect(resumes.some((c) => c.includes(`\`${old}\``))).toBe(true)
      // Manual and consecutive-error pauses cost no branch or check reads; CI pauses do.
      const branchReads = (program: string) =>
        fake.requests.filter((r) => decodeURIComponent(r.path).includes(`autoloop/${program}`))
      expect(branchReads('fixed').length).toBeGreaterThan(0)
      expect([...branchReads('manual'), ...branchReads('tired')]).toEqual([])
      expect(run.summary).toMatch(
        /\| stillred +\| paused: stuck in CI fix loop: tsc:TS2339 +\| left paused: autoloop\/stillred at bad0000 is red/
      )
      expect(run.summary).toMatch(/\| broken +\| unreadable +\| ⚠️ error: /)
    })
  })

  it('300 idle programs cost no rate limit: the state branch is read with one git fetch', async () => {
    const programs: Record<string, Program> = {}
    for (let i = 0; i < 300; i += 1) {
      const name = `program-${String(i).padStart(3, '0')}`
      programs[name] =
        i % 10 === 0
          ? { patch: { paused: true, pauseReason: 'manual' } }
          : i % 7 === 0
            ? {
                ledger: finishIteration(
                  inFlight(START - 30 * MINUTE, 4000 + i),
                  'green',
                  START - 20 * MINUTE
                ),
                patch: { iterationCount: i }
              }
            : { patch: { iterationCount: i, bestMetric: i / 300 } }
    }
    await withFake(scenarioOf(programs), async (fake) => {
      const run = await reconcile(fake)
      expect(run.exitCode).toBe(0)
      expect(list(run.outputs.errors)).toEqual([])
      expect(list(run.outputs.resumed)).toEqual([])
      expect(list(run.outputs.abandoned)).toEqual([])
      expect(fake.writeRequests()).toEqual([])
      expect(contentsReads(fake)).toEqual([])
      expect(
        fake.gitRequests.filter((r) => r.service === 'git-upload-pack').length
      ).toBeGreaterThan(0)
      expect(run.summary).toMatch(/300 programs \(read with git at [0-9a-f]{12}\): .* 300 idle\./)
      const { requestsSent, pointsSpent } = fake.rateLimit
      expect(pointsSpent).toBe(0)
      console.log(
        `reconcile, 300 unchanged programs: ${requestsSent} API requests, ${pointsSpent} rate-limit points, ${fake.gitRequests.length} git requests`
      )
    })
  })

  it('300 programs, ten of them changed: the cost grows only with the changed ones', async () => {
    const programs: Record<string, Program> = {}
    const branches: Record<string, string> = {}
    const checkRuns: CheckRunPlan[] = []
    for (let i = 0; i < 300; i += 1) {
      const name = `program-${String(i).padStart(3, '0')}`
      if (i % 60 === 0) {
        // CI-paused, and a human pushed a green fix.
        const head = sha(`f${String(i).padStart(3, '0')}`)
        programs[name] = {
          patch: { paused: true, pauseReason: 'ci-fix-exhausted: x', issue: null },
          ledger: pausedOn(sha('01d'))
        }
        branches[`autoloop/${name}`] = head
        checkRuns.push(check({ sha: head }, 'success'))
      } else if (i % 60 === 30) {
        // An attempt whose run is gone.
        programs[name] = { ledger: inFlight(START - 10 * MINUTE, 123_000 + i) }
      } else programs[name] = { patch: { iterationCount: i } }
    }
    await withFake(scenarioOf(programs, { branches, checkRuns, issues: [] }), async (fake) => {
      const run = await reconcile(fake)
      expect(list(run.outputs.resumed)).toHaveLength(5)
      expect(list(run.outputs.abandoned)).toHaveLength(5)
      expect(list(run.outputs.errors)).toEqual([])
      const { requestsSent, pointsSpent } = fake.rateLimit
      // Nothing is read through the contents API (the git snapshot answers); per resumed
      // program its branch head, check runs and statuses, then its two files written; per
      // abandoned program its run, then its two files written; and the state branch's head
      // once before the first write.
      expect(contentsReads(fake)).toEqual([])
      expect(requestsSent).toBe(1 + 5 * (3 + 2) + 5 * (1 + 2))
      expect(pointsSpent).toBe(requestsSent)
      console.log(
        `reconcile, 300 programs with 10 changed: ${requestsSent} requests, ${pointsSpent} rate-limit points`
      )
    })
  })

  it("projects the ledger into <program>.md again when another run's memory push reverted it", async () => {
    const one = sha('0a1')
    await withFake(
      {
        startTime: START,
        contents: { [STATE_BRANCH]: programFiles('perf', { issue: ISSUE, iterationCount: 4 }) },
        issues: [{ number: ISSUE }],
        checkRuns: [check({ sha: one }, 'failure', { name: 'unit' })]
      },
      async (fake) => {
        const before = stateFileOf(fake, 'perf') as string
        const gate = await gateCommit(fake, 'perf', one, 701)
        expect(gate.outputs.status).toBe('failure')
        const gated = stateFileOf(fake, 'perf') as string
        expect(gated).toContain('## 🚦 CI Gate')
        // An overlapping run's agent, which read the file before the gate, pushes its memory;
        // it changed a row the gate does not own.
        const agents = before.replace('| Iteration Count | 4 |', '| Iteration Count | 5 |')
        expect(agents).not.toBe(before)
        fake.memoryPush(STATE_BRANCH, { 'perf.md': agents })
        expect(stateFileOf(fake, 'perf')).toBe(agents)
        const ledger = ledgerOf(fake, 'perf')
        const run = await reconcile(fake)
        expect(run.exitCode).toBe(0)
        expect(run.summary).toMatch(
          /\| perf +\| active +\| projected the ledger into perf\.md again/
        )
        const repaired = stateFileOf(fake, 'perf') as string
        // The gate's rows and its brief come back; the agent's row is kept.
        const gatedPr = readLikeScheduler(gated).fields.pr
        expect(gatedPr).toMatch(/^#\d+$/)
        expect(readLikeScheduler(agents).fields.pr).toBeNull()
        expect(schedulerReads(fake, 'perf').fields).toMatchObject({
          iteration_count: '5',
          pr: gatedPr
        })
        expect(repaired).toContain(
          `ci-gate:ledger ${ledgerPath('perf')} revision ${ledger?.revision}`
        )
        expect(repaired.slice(repaired.indexOf('## 🚦 CI Gate'))).toBe(
          gated.slice(gated.indexOf('## 🚦 CI Gate'))
        )
        // The ledger itself was never reverted, and nothing new was written to it.
        expect(ledgerOf(fake, 'perf')).toEqual(ledger)
      }
    )
  })
})

describe('reconcile of a state file written by the previous version', () => {
  const v1 = readFileSync(
    new URL('../../__fixtures__/state/coverage-v1-paused.md', import.meta.url),
    'utf8'
  )

  it('moves the ledger from the CI Gate block to its own file before it rewrites the section', async () => {
    await withFake(
      { startTime: START, contents: { [STATE_BRANCH]: { 'coverage.md': v1 } } },
      async (fake) => {
        const run = await reconcile(fake)
        expect(run.exitCode).toBe(0)
        expect(list(run.outputs.errors)).toEqual([])
        const ledger = ledgerOf(fake, 'coverage')
        expect(ledger?.attempts.map((a) => a.state)).toEqual(['red', 'red'])
        expect(ledger?.iteration?.outcome).toBe('paused')
        const text = stateFileOf(fake, 'coverage') as string
        expect(text).not.toContain('```json')
        expect(text).toContain(
          `ci-gate:ledger ${ledgerPath('coverage')} revision ${ledger?.revision}`
        )
        expect(schedulerReads(fake, 'coverage').fields).toMatchObject({ paused: 'true' })
      }
    )
  })

  it('a program the gate never ran for is idle: its file is left as it is', async () => {
    const files = programFiles('fresh', { issue: ISSUE, iterationCount: 2 })
    await withFake({ startTime: START, contents: { [STATE_BRANCH]: files } }, async (fake) => {
      const run = await reconcile(fake)
      expect(run.summary).toContain('1 idle.')
      expect(stateFileOf(fake, 'fresh')).toBe(files['fresh.md'])
      expect(ledgerOf(fake, 'fresh')).toBeUndefined()
      expect(fake.writeRequests()).toEqual([])
    })
  })
})
