/**
 * Rate-limit points of one gate run in the gh-aw loop (README: "gh-aw autoloop"), run
 * in-process against the fake API: a green gate, and a red gate that writes the fix brief and
 * starts the fixer run (`dispatch-workflow`). Each request the fake answered with a charge is
 * one point; the table splits out the state branch's reads and writes (a GraphQL query of the
 * program's files, a `createCommitOnBranch` of them, or the contents API's GET and PUT).
 *
 *   npx tsx scripts/bench/index.ts --only polling
 */
import { runOnFreshFake } from '../../__fixtures__/run-in-process.js'
import { isWriteRequest, type FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { BUDGET_INPUTS, budgetScenario } from '../../__fixtures__/gate-budget.js'

interface Budget {
  points: number
  stateReads: number
  stateWrites: number
  status: string
}

export function routesOf(fake: FakeGitHub): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const r of fake.requests.filter((q) => q.charged))
    counts[r.route ?? r.path] = (counts[r.route ?? r.path] ?? 0) + 1
  return counts
}

function budgetOf(fake: FakeGitHub, status: string): Budget {
  if (process.env.BENCH_ROUTES) console.error(routesOf(fake))
  const charged = fake.requests.filter((r) => r.charged)
  const state = charged.filter((r) => /\/contents\/|^POST \/graphql$/.test(r.route ?? ''))
  return {
    points: fake.rateLimit.pointsSpent,
    stateReads: state.filter((r) => !isWriteRequest(r)).length,
    stateWrites: state.filter(isWriteRequest).length,
    status
  }
}

async function gateOnce(red: boolean): Promise<Budget> {
  const options = { inputs: BUDGET_INPUTS, env: { GITHUB_RUN_ID: '1' } }
  return runOnFreshFake(budgetScenario(red), options, (fake, run) => {
    const dispatched = fake.state.dispatches.length
    return budgetOf(fake, `${run.outputs.verdict ?? run.outputs.status}, ${dispatched} dispatch`)
  })
}

export async function runGateBudgetBench(): Promise<string> {
  const rows = [
    ['green gate', await gateOnce(false)],
    ['red gate with dispatch', await gateOnce(true)]
  ] as const
  return [
    '| gate run | points | state reads | state writes | verdict |',
    '|---|---:|---:|---:|---|',
    ...rows.map(
      ([name, b]) => `| ${name} | ${b.points} | ${b.stateReads} | ${b.stateWrites} | ${b.status} |`
    )
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await runGateBudgetBench())
}
