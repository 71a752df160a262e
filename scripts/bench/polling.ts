/**
 * Rate-limit cost of waiting on a check that runs for 60 simulated minutes: the action
 * (conditional requests, ETag → 304), run in-process on the fake's virtual clock, against a
 * fixed-interval poller that sends plain GETs the way `gh pr checks --watch` does (every
 * 10 s, no If-None-Match). Both run against the in-repo fake API, so the hour takes seconds.
 *
 *   npx tsx scripts/bench/polling.ts
 */
import { Octokit } from '@octokit/rest'
import { runOnFreshFake } from '../../__fixtures__/run-in-process.js'
import {
  startFakeGitHub,
  type FakeGitHub,
  type Scenario
} from '../../__fixtures__/fake-github/index.js'

const SHA = 'be4c4'.padEnd(40, '0')
const BRANCH = 'autoloop/bench'
// Not a multiple of any poll interval, so the verdict delay is measured, not a coincidence.
const CHECK_SECONDS = 3607

function scenario(): Scenario {
  return {
    branches: { [BRANCH]: SHA },
    checkRuns: [
      {
        sha: SHA,
        name: 'long test',
        timeline: [
          { at: 0, status: 'queued' },
          { at: 20, status: 'in_progress' },
          { at: CHECK_SECONDS, status: 'completed', conclusion: 'success' }
        ]
      },
      {
        sha: SHA,
        name: 'lint',
        timeline: [
          { at: 0, status: 'queued' },
          { at: 90, status: 'completed', conclusion: 'success' }
        ]
      }
    ]
  }
}

interface Figures {
  requests: number
  /** Points spent by the reads of the wait itself (check runs, statuses). */
  waitPoints: number
  points: number
  notModified: number
  verdictDelaySeconds: number
}

function figures(fake: FakeGitHub, verdictAt: number): Figures {
  const appeared = fake.state.shaSeenAt[SHA] ?? 0
  return {
    requests: fake.rateLimit.requestsSent,
    waitPoints: fake.requests.filter(
      (r) => r.charged && /\/(check-runs|status)$/.test(r.route ?? '')
    ).length,
    points: fake.rateLimit.pointsSpent,
    notModified: fake.rateLimit.notModified,
    verdictDelaySeconds: Math.round((verdictAt - (appeared + CHECK_SECONDS * 1000)) / 1000)
  }
}

async function runGate(pollSeconds: number): Promise<Figures> {
  const options = {
    inputs: {
      program: 'bench',
      push: 'false',
      'create-pr': 'false',
      'timeout-minutes': '120',
      'poll-interval-seconds': String(pollSeconds)
    },
    env: { GITHUB_RUN_ID: '1' }
  }
  return runOnFreshFake(scenario(), options, (fake, run) => {
    if (run.outputs.status !== 'success') throw new Error(`the gate ended ${run.outputs.status}`)
    const lastPoll = [...fake.requests].reverse().find((r) => r.route?.endsWith('/check-runs'))
    return figures(fake, lastPoll?.at ?? fake.now())
  })
}

/** `gh pr checks --watch`-style: a plain GET of every check every `intervalSeconds`. */
async function runFixedPoller(intervalSeconds: number): Promise<Figures> {
  const fake = await startFakeGitHub({ scenario: scenario() })
  const octokit = new Octokit({ baseUrl: fake.apiUrl, auth: 'bench' })
  const { owner, repo } = fake.state
  let verdictAt: number
  for (;;) {
    const { data } = await octokit.rest.checks.listForRef({ owner, repo, ref: SHA, per_page: 100 })
    await octokit.rest.repos.getCombinedStatusForRef({ owner, repo, ref: SHA, per_page: 100 })
    if (data.check_runs.length > 0 && data.check_runs.every((run) => run.status === 'completed')) {
      verdictAt = fake.now()
      break
    }
    fake.advance(intervalSeconds * 1000)
  }
  const result = figures(fake, verdictAt)
  await fake.close()
  return result
}

export async function runPollingBench(): Promise<string> {
  const rows = [
    ['autoloop-ci-gate, poll 15 s (default)', await runGate(15)],
    ['autoloop-ci-gate, poll 10 s', await runGate(10)],
    [
      'fixed 10 s poller, no conditional requests (gh pr checks --watch style)',
      await runFixedPoller(10)
    ]
  ] as const
  const lines = [
    `A check that runs for ${CHECK_SECONDS} simulated seconds (just over an hour) (plus a quick one), on the fake API's virtual clock.`,
    '',
    '| poller | requests sent | answered 304 | points spent waiting | points in all | verdict after the last check completed |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      ([name, f]) =>
        `| ${name} | ${f.requests} | ${f.notModified} | ${f.waitPoints} | ${f.points} | ${f.verdictDelaySeconds} s |`
    ),
    '',
    '"Points in all" adds what the gate spends once per run besides waiting: reading the state file and its ledger (one GraphQL query) and writing them (contents API on a state branch created on first use; one commit per write once it exists), and where the branch stands (head commit, open PR, default branch), read in the same GraphQL query as the state.'
  ]
  return lines.join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await runPollingBench())
}
