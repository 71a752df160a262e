/**
 * The rate-limit points of one red gate with dispatch in the gh-aw loop (BENCHMARKS.md: "One
 * gate run"), from the fake's request log: where the branch stands is read with the state in
 * one GraphQL query, the gate's own check suite comes from the check runs listing; and when
 * GraphQL is refused, the same gate reads them through REST.
 */
import { describe, expect, it } from '@jest/globals'
import {
  isWriteRequest,
  type FakeGitHub,
  type Scenario
} from '../../__fixtures__/fake-github/index.js'
import {
  BUDGET_BRANCH as BRANCH,
  BUDGET_INPUTS,
  BUDGET_SHA as SHA,
  budgetScenario
} from '../../__fixtures__/gate-budget.js'
import { runInProcess } from '../helpers/in-process.js'
import { withFake } from '../helpers/fake-run.js'
import { ledgerOf } from '../app/commands/lifecycle-helpers.js'

const scenario = (extra: Partial<Scenario> = {}) => budgetScenario(true, extra)

async function redGate(fake: FakeGitHub, inputs: Record<string, string> = {}) {
  return runInProcess(fake, {
    inputs: { ...inputs, ...BUDGET_INPUTS },
    env: { GITHUB_RUN_ID: '1' }
  })
}

const charged = (fake: FakeGitHub) =>
  fake.requests.filter((r) => r.charged).map((r) => r.route ?? r.path)

/** The GraphQL queries (reads) the run sent. */
const isQuery = (fake: FakeGitHub) =>
  fake.requests.filter((r) => r.route === 'POST /graphql' && !isWriteRequest(r))

const BRANCH_READS = [
  'GET /repos/{owner}/{repo}',
  'GET /repos/{owner}/{repo}/git/ref/{ref}',
  'GET /repos/{owner}/{repo}/git/commits/{commit_sha}',
  'GET /repos/{owner}/{repo}/pulls',
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}'
]

const baseShaOf = (fake: FakeGitHub) => ledgerOf(fake, 'bench')?.baseFailures?.sha ?? null

describe('one red gate with dispatch: its rate-limit points', () => {
  it('reads the state and where the branch stands in one query: 18 points, no REST read of branches, PRs or its own run', async () => {
    await withFake(scenario(), async (fake) => {
      const run = await redGate(fake)
      expect(run.outputs.verdict).toBe('red')
      expect(fake.state.dispatches).toHaveLength(1)
      expect(fake.rateLimit.pointsSpent).toBe(18)
      expect(isQuery(fake)).toHaveLength(1)
      expect(charged(fake).filter((route) => BRANCH_READS.includes(route))).toEqual([])
      // The base for pre-existing failures is the default branch head, read in that query.
      expect(baseShaOf(fake)).toBe(fake.state.branches.main)
    })
  })

  it("a known PR, the branch's open one, needs no request; its base branch head is the base", async () => {
    const RELEASE = 'ab12'.padEnd(40, '0')
    const withPull = scenario({
      branches: { [BRANCH]: SHA, release: RELEASE },
      pulls: [{ number: 7, head: BRANCH, base: 'release' }]
    })
    await withFake(withPull, async (fake) => {
      const run = await redGate(fake, { pr: '7' })
      expect(run.outputs.verdict).toBe('red')
      expect(run.outputs['pr-number']).toBe('7')
      expect(fake.rateLimit.pointsSpent).toBe(18)
      const routes = charged(fake)
      expect(routes).not.toContain('GET /repos/{owner}/{repo}/pulls/{pull_number}')
      expect(routes.filter((route) => BRANCH_READS.includes(route))).toEqual([])
      expect(baseShaOf(fake)).toBe(RELEASE)
    })
  })

  it('when GraphQL is refused, the same gate reads them one by one through REST', async () => {
    const refused = scenario({
      faults: [
        {
          kind: 'status',
          status: 403,
          route: 'POST /graphql',
          message: 'Resource not accessible by integration',
          count: 'always'
        }
      ]
    })
    await withFake(refused, async (fake) => {
      const run = await redGate(fake)
      expect(run.outputs.verdict).toBe('red')
      expect(fake.state.dispatches).toHaveLength(1)
      const routes = charged(fake)
      for (const route of BRANCH_READS.filter((r) => !r.endsWith('{run_id}')))
        expect(routes).toContain(route)
      expect(routes).not.toContain('GET /repos/{owner}/{repo}/actions/runs/{run_id}')
      expect(baseShaOf(fake)).toBe(fake.state.branches.main)
    })
  })
})
