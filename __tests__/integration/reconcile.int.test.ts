import { describe, expect, it } from '@jest/globals'
import type { CheckRunPlan, FakeGitHub, Scenario } from '../../__fixtures__/fake-github/index.js'
import { withFake } from '../helpers/fake-run.js'
import {
  beginAttempt,
  completeAttempt,
  finishIteration,
  readLedger,
  type Ledger
} from '../../src/loop/ledger.js'
import type { MachineStatePatch } from '../../src/state/schema.js'
import {
  ISSUE,
  STATE_BRANCH,
  commentsOn,
  runCommand,
  schedulerReads,
  stateFileOf,
  stateText
} from '../commands/lifecycle-helpers.js'

const START = Date.parse('2026-03-01T12:00:00Z')
const MINUTE = 60_000
const sha = (seed: string) => seed.padEnd(40, '0')
const FINISHED_RUN = 19_000_000_500
const RUNNING_RUN = 19_000_000_600

function inFlight(at: number, runId: number | null, commit = sha('aaa')): Ledger {
  return beginAttempt(null, { sha: commit, runId, runAttempt: 1, now: at }).ledger
}

/** A ledger whose last attempt on `commit` ended red and paused the iteration. */
function pausedOn(commit: string): Ledger {
  let ledger = beginAttempt(null, { sha: commit, runId: 7000, now: START - 120 * MINUTE }).ledger
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
    files[`${name}.md`] =
      program.raw ?? stateText(name, { issue: ISSUE, ...program.patch }, program.ledger)
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

describe('reconcile through dist/index.js against the fake API', () => {
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
      const attemptState = (program: string) =>
        readLedger(stateFileOf(fake, program) as string)?.attempts[0]?.state
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
        stateText('waiting', { issue: ISSUE }, programs.waiting?.ledger)
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
      expect(list(run.outputs.resumed)).toEqual(['fixed', 'rerun'])
      expect(list(run.outputs.abandoned)).toEqual([])
      const errors = list(run.outputs.errors) as Array<{ program: string; reason: string }>
      expect(errors.map((e) => e.program)).toEqual(['broken'])
      expect(errors[0]?.reason).toContain('Paused must be true or false')
      expect(stateFileOf(fake, 'broken')).toBe(programs.broken?.raw)
      for (const program of ['fixed', 'rerun']) {
        expect(schedulerReads(fake, program)).toMatchObject({
          skipped: false,
          fields: { paused: 'false', pause_reason: null }
        })
        expect(readLedger(stateFileOf(fake, program) as string)).toBeNull()
      }
      expect(schedulerReads(fake, 'stillred').fields.paused).toBe('true')
      expect(schedulerReads(fake, 'manual').fields.pause_reason).toBe('manual')
      expect(schedulerReads(fake, 'tired').fields.pause_reason).toBe('consecutive errors')
      const resumes = commentsOn(fake).filter((c) => c.startsWith('<!-- autoloop-ci-gate:resume '))
      expect(resumes).toHaveLength(2)
      expect(resumes.some((c) => c.includes(`\`${fix}\``))).toBe(true)
      expect(resumes.some((c) => c.includes(`\`${old}\``))).toBe(true)
      // Manual and consecutive-error pauses cost no branch or check reads.
      const branchReads = fake.requests
        .filter((r) => r.route?.endsWith('/git/ref/{ref}'))
        .map((r) => r.path)
      expect(branchReads.some((p) => /manual|tired/.test(p))).toBe(false)
      expect(run.summary).toMatch(
        /\| stillred +\| paused: stuck in CI fix loop: tsc:TS2339 +\| left paused: bad0000 is red/
      )
      expect(run.summary).toMatch(/\| broken +\| unreadable +\| ⚠️ error: /)
    })
  })

  it('handles 300 programs for about one rate-limit point each when nothing changed', async () => {
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
      expect(fake.requests.filter((r) => r.method !== 'GET')).toEqual([])
      const { requestsSent, pointsSpent } = fake.rateLimit
      // One listing, then one read per state file.
      expect(requestsSent).toBe(301)
      expect(pointsSpent).toBeLessThanOrEqual(301)
      expect(run.summary.split('\n').filter((l) => l.startsWith('| program-'))).toHaveLength(300)
      console.log(
        `reconcile, 300 unchanged programs: ${requestsSent} requests, ${pointsSpent} rate-limit points`
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
      // The 301 reads of the unchanged case, the state branch's head once before the first
      // write, and per resumed program its head, check runs, statuses, then a compare-and-swap
      // (read, write); per abandoned program its run, then a compare-and-swap.
      expect(requestsSent).toBe(301 + 1 + 5 * 5 + 5 * 3)
      expect(pointsSpent).toBe(requestsSent)
      console.log(
        `reconcile, 300 programs with 10 changed: ${requestsSent} requests, ${pointsSpent} rate-limit points`
      )
    })
  })
})
