/**
 * Defects the chaos suite found, each pinned by a test that fails without its fix (seeds of
 * the generator that found them; later generators number their cases differently).
 *
 * 1. A comment post whose answer was lost (the comment was created, the answer was a 5xx or
 *    a dropped connection) was re-sent by the client's retry and posted again: 4 status
 *    comments on one issue (chaos seed 229). Now the client does not re-send that POST and
 *    the upsert looks for the comment before posting again.
 * 2. A plain 429 with `retry-after` failed the step ("Too many requests", chaos seeds 1024,
 *    1028, 1044): the throttling plugin only acts on 429s that say "secondary rate", and the
 *    retry plugin was told to leave 429s alone. The client now waits them out on its clock.
 * 3. A 200 whose body was not JSON reached the adapters as a string: the pull list read as
 *    garbage ("Cannot read properties of undefined (reading 'sha')", chaos run of seeds
 *    1–300), and a state file read as "no file", so a paused program would have been gated.
 *    The client now asks again, then fails with a message that names the cause.
 * 4. A failure key counted as pre-existing when any check failed with it on the base branch
 *    head, not the same check: a second job failing the same way (a matrix job the base does
 *    not run) was taken for the base branch's, and the head accepted "green except pre-existing
 *    failures" (seeds 142, 188, 292) or paused `ci-base-red` (seed 275). Now decided per check.
 * 5. A failed test re-run still running when the wall clock ran out: the gate said red with an
 *    empty signature, and called the check flaky although its re-run had not passed (seeds
 *    81, 110, 228, 268, 279). Likewise a re-run that ended skipped (seed 440: red for a head
 *    with nothing but skipped checks). Now what the checks say after the re-runs is settled
 *    like a first observation (ci-timeout, no-checks, blocked, green), and only a re-run that
 *    passed is flaky.
 */
import { describe, expect, it } from '@jest/globals'
import { resolve } from 'node:path'
import type { CheckRunPlan } from '../../__fixtures__/fake-github/index.js'
import { type IssueComment, type IssuesPort } from '../../src/ports.js'
import {
  MAX_CREATE_ATTEMPTS,
  upsertMarkedComment,
  upsertStatusComment
} from '../../src/app/program-issue.js'
import { BRANCH, PROGRAM, SHA, withFake } from '../helpers/fake-run.js'
import { runInProcess } from '../helpers/in-process.js'
import { tempDir } from '../helpers/temp-dir.js'
import { createGitHubClient } from '../../src/adapters/github/client.js'
import { manualClock } from '../../__fixtures__/clock.js'
import { memoryLogger } from '../../__fixtures__/log.js'
import { RestGitHub } from '../../src/adapters/github/rest.js'
import { ledgerOf } from '../app/commands/lifecycle-helpers.js'

/** An issue whose comment posts fail as told: `lost` creates then fails, `refused` only fails. */
function flakyIssue(
  plan: Array<'lost' | 'refused' | 'ok'>
): IssuesPort & { comments: IssueComment[] } {
  const comments: IssueComment[] = []
  const labels = new Set<string>()
  let next = 1
  return {
    comments,
    issueLabels: async () => [...labels],
    addLabel: async (_issue, label) => void labels.add(label),
    removeLabel: async (_issue, label) => void labels.delete(label),
    listComments: async () => comments.map((c) => ({ ...c })),
    async createComment(_issue, body) {
      const outcome = plan.shift() ?? 'ok'
      if (outcome === 'refused') throw new Error('502 Bad Gateway')
      const comment = { id: next++, body }
      comments.push(comment)
      if (outcome === 'lost') throw new Error('socket hang up')
      return comment
    },
    async updateComment(id, body) {
      const comment = comments.find((c) => c.id === id)
      if (comment) comment.body = body
    }
  }
}

describe('a comment post whose answer was lost is not posted twice', () => {
  it('the upsert finds the comment that landed instead of posting again', async () => {
    const port = flakyIssue(['lost', 'lost', 'lost'])
    await expect(upsertStatusComment(port, 1, '<!-- AUTOLOOP:STATUS -->\nhi')).resolves.toBe(
      'created'
    )
    await expect(upsertMarkedComment(port, 1, '<!-- m -->', '<!-- m -->\nb')).resolves.toBe(
      'created'
    )
    expect(port.comments.map((c) => c.body)).toEqual([
      '<!-- AUTOLOOP:STATUS -->\nhi',
      '<!-- m -->\nb'
    ])
  })

  it('a refused post is tried again, a bounded number of times', async () => {
    const port = flakyIssue(['refused', 'refused'])
    await expect(upsertMarkedComment(port, 1, '<!-- m -->', '<!-- m -->\nb')).resolves.toBe(
      'created'
    )
    expect(port.comments).toHaveLength(1)
    const never = flakyIssue(Array.from({ length: 10 }, () => 'refused' as const))
    await expect(upsertMarkedComment(never, 1, '<!-- m -->', '<!-- m -->\nb')).rejects.toThrow(
      '502'
    )
    expect(never.comments).toHaveLength(0)
    expect(MAX_CREATE_ATTEMPTS).toBeGreaterThan(1)
  })

  it('through the whole action: 503 after the comment was created, four times in a row', async () => {
    const sha = 'ab'.repeat(20)
    await withFake(
      {
        branches: { 'autoloop/perf': sha },
        checkRuns: [{ sha, name: 'slow', timeline: [{ at: 0, status: 'in_progress' }] }],
        issues: [{ number: 12, labels: ['autoloop-program'] }],
        faults: [
          {
            kind: 'status',
            status: 503,
            route: 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
            count: 4,
            applyFirst: true
          }
        ]
      },
      async (fake) => {
        const run = await runInProcess(fake, {
          inputs: {
            program: 'perf',
            push: 'false',
            sha,
            issue: '12',
            'timeout-minutes': '5',
            'state-dir': tempDir('autoloop-dup-')
          }
        })
        expect(run.outputs).toMatchObject({ status: 'paused', 'pause-reason': 'ci-timeout' })
        const bodies = fake.state.comments.map((c) => c.body.split('\n')[0])
        expect(bodies.filter((b) => b === '<!-- AUTOLOOP:STATUS -->')).toHaveLength(1)
        expect(bodies.filter((b) => b?.startsWith('<!-- autoloop-ci-gate:pause'))).toHaveLength(1)
        expect(fake.requests.filter((r) => r.fault === 'status').length).toBeGreaterThanOrEqual(2)
      }
    )
  })
})

describe('a 429 with retry-after is waited out, on the injected clock', () => {
  const route = 'GET /repos/{owner}/{repo}'

  async function getRepo(faultCount: number | 'always') {
    return withFake(
      { faults: [{ kind: 'too-many-requests', route, retryAfterSeconds: 7, count: faultCount }] },
      async (fake) => {
        const clock = manualClock(fake.now())
        const log = memoryLogger()
        const client = createGitHubClient({
          token: 't',
          baseUrl: fake.apiUrl,
          clock,
          log,
          retryBackoffMs: 1
        })
        const started = clock.now()
        const result = await client.rest.repos
          .get({ owner: fake.state.owner, repo: fake.state.repo })
          .then(
            (r) => r.status,
            (error: { status?: number }) => `error ${error.status}`
          )
        const answered = fake.requests.filter((r) => r.route === route).map((r) => r.status)
        return { result, waitedMs: clock.now() - started, answered, log: log.lines }
      }
    )
  }

  it('three 429s in a row: the request succeeds after waiting 3 × retry-after', async () => {
    const { result, waitedMs, answered, log } = await getRepo(3)
    expect(result).toBe(200)
    expect(answered).toEqual([429, 429, 429, 200])
    expect(waitedMs).toBe(3 * 7000)
    expect(log.filter((line) => line.includes('429 (too many requests)'))).toHaveLength(3)
  })

  it('429s that never stop: it gives up after its retries, with the 429', async () => {
    const { result, answered } = await getRepo('always')
    expect(result).toBe('error 429')
    expect(answered).toHaveLength(5)
  })
})

describe('a 200 whose body is not JSON is never taken for data', () => {
  const contents = 'GET /repos/{owner}/{repo}/contents/{path}'
  const text = '# Autoloop: perf\n| Paused | true |\n'

  async function readStateFile(faultCount: number | 'always') {
    return withFake(
      {
        contents: { 'memory/autoloop': { 'perf.md': text } },
        branches: { 'autoloop/perf': 'ab'.repeat(20) },
        pulls: [{ number: 5, head: 'autoloop/perf' }],
        faults: [
          { kind: 'malformed-json', route: contents, count: faultCount },
          { kind: 'malformed-json', route: 'GET /repos/{owner}/{repo}/pulls', count: 1 }
        ]
      },
      async (fake) => {
        const clock = manualClock(fake.now())
        const log = memoryLogger()
        const client = createGitHubClient({
          token: 't',
          baseUrl: fake.apiUrl,
          clock,
          log,
          retryBackoffMs: 1
        })
        const github = new RestGitHub(client, { owner: fake.state.owner, repo: fake.state.repo })
        const file = await github.getFile('memory/autoloop', 'perf.md').then(
          (found) => found?.text ?? null,
          (error: Error) => `error: ${error.message}`
        )
        const pull = await github.findOpenPull('autoloop/perf')
        return { file, pull: pull?.number, log: log.lines }
      }
    )
  }

  it('asked again, the state file and the pull read as they are', async () => {
    const { file, pull, log } = await readStateFile(3)
    expect(file).toBe(text)
    expect(pull).toBe(5)
    expect(log.filter((line) => line.includes('not JSON'))).toHaveLength(4)
  })

  it('never JSON: an error that names the cause, not "no file"', async () => {
    const { file } = await readStateFile('always')
    expect(file).toMatch(
      /^error: GitHub answered GET .* with a body that is not JSON, 4 times in a row/
    )
  })
})

const CORPUS = resolve(import.meta.dirname, '../../__fixtures__/corpus')
/** A job log printed by tsc (the corpus records how it was made). */
const TSC_LOG = { file: resolve(CORPUS, 'tsc/missing-property/job-log.log') }
const JEST_LOG = { file: resolve(CORPUS, 'jest/assertion/job-log.log') }

const failingAt = (seconds: number) => [
  { at: 0, status: 'queued' as const },
  { at: seconds, status: 'completed' as const, conclusion: 'failure' as const }
]

describe('a failure is pre-existing only when the same check fails with it on the base branch', () => {
  const checks: CheckRunPlan[] = [
    { sha: SHA, name: 'test', timeline: failingAt(120), log: TSC_LOG },
    // The same failure in a second job, which fails on the head only.
    { sha: SHA, name: 'test (node 22)', timeline: failingAt(150), log: TSC_LOG },
    { branch: 'main', head: 0, name: 'test', timeline: failingAt(60), log: TSC_LOG }
  ]

  it.each(['allow', 'block'])(
    "pre-existing-failures: %s: red, the other job's failure is the iteration's own",
    async (mode) => {
      await withFake({ branches: { [BRANCH]: SHA }, checkRuns: checks }, async (fake) => {
        const run = await runInProcess(fake, {
          inputs: {
            program: PROGRAM,
            push: 'false',
            'state-dir': tempDir('autoloop-base-'),
            'pre-existing-failures': mode
          }
        })
        expect(run.outputs).toMatchObject({ status: 'failure', verdict: 'red' })
        const key = run.outputs.signature
        expect(key).toMatch(/^tsc:TS\d+:/)
        // The key is pre-existing in `test` and the iteration's own in `test (node 22)`.
        expect(JSON.parse(run.outputs['pre-existing'] ?? '[]')).toEqual([key])
      })
    }
  )
})

/** A failing test job, re-run once by the gate (a failing test may be flaky), as `rerun` says. */
const failingTest = (rerun: NonNullable<CheckRunPlan['rerun']>[number]): CheckRunPlan => ({
  sha: SHA,
  name: 'unit',
  timeline: failingAt(120),
  log: JEST_LOG,
  rerun: [rerun]
})

describe('a re-run still running when the wall clock runs out', () => {
  it('pauses ci-timeout: not red with an empty signature, and nothing is called flaky', async () => {
    const unit = failingTest({
      timeline: [
        { at: 0, status: 'queued' },
        { at: 5000, status: 'completed', conclusion: 'success' }
      ]
    })
    await withFake(
      { branches: { [BRANCH]: SHA }, contents: { 'memory/autoloop': {} }, checkRuns: [unit] },
      async (fake) => {
        const run = await runInProcess(fake, {
          inputs: { program: PROGRAM, push: 'false', 'timeout-minutes': '10' }
        })
        expect(run.outputs).toMatchObject({
          status: 'paused',
          verdict: 'ci-timeout',
          'pause-reason': 'ci-timeout'
        })
        const attempt = ledgerOf(fake, PROGRAM)?.attempts[0]
        expect(attempt?.state).toBe('ci-timeout')
        expect(attempt?.classification?.flaky ?? []).toEqual([])
        expect(attempt?.reruns?.map((r) => [r.checks, r.outcome])).toEqual([[['unit'], 'pending']])
      }
    )
  })
})

describe('a re-run that ends skipped', () => {
  it('leaves nothing but skipped checks: no-checks (blocked), never red with an empty signature', async () => {
    const unit = failingTest({ conclusion: 'skipped' })
    await withFake({ branches: { [BRANCH]: SHA }, checkRuns: [unit] }, async (fake) => {
      const run = await runInProcess(fake, {
        inputs: { program: PROGRAM, push: 'false', 'state-dir': tempDir('autoloop-skip-') }
      })
      expect(fake.requests.filter((r) => r.route?.endsWith('/rerun-failed-jobs'))).toHaveLength(1)
      expect(run.outputs).toMatchObject({ status: 'paused', verdict: 'no-checks' })
      expect(run.outputs['pause-reason']).toMatch(/^ci-blocked: /)
      expect(run.outputs.signature).toBe('')
    })
  })
})
