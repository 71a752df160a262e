/**
 * Whose failure it is, measured: a seeded mix of iterations (a broken base branch, an approval
 * gate, an infrastructure failure or a flaky test, a real failure of the iteration, and some
 * mixed: a real failure beside a pre-existing one), each gated once by the action in-process
 * against the fake API, and judged side by side with autoloop's Step 5 as written (`gh pr
 * checks --watch` then an awk reduction: every red check spends a fix attempt, a run waiting
 * for approval waits until the 60-minute cap and pauses `ci-timeout`).
 *
 * It reports fix attempts spent on failures the iteration did not cause, programs paused
 * wrongly (blamed on the iteration: stuck, exhausted, ci-timeout), and iterations accepted on
 * a real failure of their own. Failure logs are real: the jest corpus, and runner lines quoted
 * from public threads.
 *
 *   npx tsx scripts/bench/classification.ts [--iterations 200] [--seed 20261124]
 */
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import pLimit from 'p-limit'
import type { CheckRunPlan, Scenario } from '../../__fixtures__/fake-github/index.js'
import { REAL_INFRASTRUCTURE_LINES } from '../../__fixtures__/infrastructure/lines.js'
import { runOnFreshFake } from '../../__fixtures__/run-in-process.js'
import { createRng } from '../chaos/prng.js'

const CORPUS = resolve(import.meta.dirname, '../../__fixtures__/corpus')
/** A jest failure: what the base branch fails with in a "broken base" iteration. */
const BASE_FAILURE = readFileSync(join(CORPUS, 'jest/assertion/job-log.log'), 'utf8')
/** Another jest failure: the iteration's own. */
const OWN_FAILURE = readFileSync(join(CORPUS, 'jest/type-error/job-log.log'), 'utf8')
const RUNNER_LOST = [
  REAL_INFRASTRUCTURE_LINES.shutdown,
  REAL_INFRASTRUCTURE_LINES.canceled,
  ''
].join('\n')

const BRANCH = 'autoloop/bench'
const HEAD = 'b'.repeat(40)
const BASE = 'a'.repeat(40)

export type Kind = 'broken-base' | 'approval' | 'runner-lost' | 'flaky' | 'own' | 'own-and-base'
/** Whose failure each kind is: the iteration's own, or not. */
const OWN: Record<Kind, boolean> = {
  'broken-base': false,
  approval: false,
  'runner-lost': false,
  flaky: false,
  own: true,
  'own-and-base': true
}

const MIX: ReadonlyArray<readonly [Kind, number]> = [
  ['broken-base', 25],
  ['approval', 10],
  ['runner-lost', 7.5],
  ['flaky', 7.5],
  ['own', 40],
  ['own-and-base', 10]
]

const completed = (seconds: number, conclusion: 'success' | 'failure') => [
  { at: 0, status: 'queued' as const },
  { at: 30, status: 'in_progress' as const },
  { at: seconds, status: 'completed' as const, conclusion }
]

function check(
  sha: string,
  name: string,
  conclusion: 'success' | 'failure',
  log?: string,
  rerun?: 'success' | 'failure'
): CheckRunPlan {
  return {
    sha,
    name,
    timeline: completed(300, conclusion),
    ...(log ? { log } : {}),
    ...(rerun
      ? { rerun: [{ conclusion: rerun, ...(rerun === 'failure' && log ? { log } : {}) }] }
      : {})
  }
}

function scenarioOf(kind: Kind): Scenario {
  const base: CheckRunPlan[] = [check(BASE, 'lint', 'success')]
  const head: CheckRunPlan[] = [check(HEAD, 'lint', 'success')]
  const workflowRuns: NonNullable<Scenario['workflowRuns']> = []
  switch (kind) {
    case 'broken-base':
      base.push(check(BASE, 'test', 'failure', BASE_FAILURE))
      head.push(check(HEAD, 'test', 'failure', BASE_FAILURE, 'failure'))
      break
    case 'approval':
      head.length = 0
      workflowRuns.push({
        sha: HEAD,
        workflow: 'CI',
        event: 'push',
        timeline: [{ at: 0, status: 'completed', conclusion: 'action_required' }]
      })
      base.push(check(BASE, 'test', 'success'))
      break
    case 'runner-lost':
      base.push(check(BASE, 'test', 'success'))
      head.push(check(HEAD, 'test', 'failure', RUNNER_LOST, 'success'))
      break
    case 'flaky':
      base.push(check(BASE, 'test', 'success'))
      head.push(check(HEAD, 'test', 'failure', OWN_FAILURE, 'success'))
      break
    case 'own':
      base.push(check(BASE, 'test', 'success'))
      head.push(check(HEAD, 'test', 'failure', OWN_FAILURE, 'failure'))
      break
    case 'own-and-base':
      base.push(check(BASE, 'test', 'failure', BASE_FAILURE))
      base.push(check(BASE, 'unit', 'success'))
      head.push(check(HEAD, 'test', 'failure', BASE_FAILURE, 'failure'))
      head.push(check(HEAD, 'unit', 'failure', OWN_FAILURE, 'failure'))
      break
  }
  return {
    branches: { main: BASE, [BRANCH]: HEAD },
    checkRuns: [...base, ...head],
    ...(workflowRuns.length > 0 ? { workflowRuns } : {})
  }
}

export interface Judgement {
  /** A fix attempt requested for a failure the iteration did not cause. */
  attemptOnForeign: boolean
  /** Paused with a cause that blames the iteration (stuck, exhausted, ci-timeout) though it did not cause it. */
  pausedWrongly: boolean
  /** Accepted although the iteration's own failure is red. */
  acceptedOwnFailure: boolean
  /** Accepted (green or green except pre-existing failures). */
  accepted: boolean
}

/** Autoloop's Step 5 as written, on the same CI: what the awk reduction of the checks makes of it. */
export function stepFive(kind: Kind): Judgement {
  const own = OWN[kind]
  if (kind === 'approval')
    // `gh pr checks --watch` waits on a run that never starts: the 60-minute cap, ci-timeout.
    return {
      attemptOnForeign: false,
      pausedWrongly: true,
      acceptedOwnFailure: false,
      accepted: false
    }
  // Every other kind has a red check: a fix attempt, whoever caused it.
  return {
    attemptOnForeign: !own,
    pausedWrongly: false,
    acceptedOwnFailure: false,
    accepted: false
  }
}

const BLAMING = /^(?:stuck in CI fix loop|ci-fix-exhausted|ci-timeout)/

async function gateOnce(
  kind: Kind,
  n: number
): Promise<Judgement & { status: string; verdict: string }> {
  const options = {
    inputs: {
      program: 'bench',
      push: 'false',
      'create-pr': 'false',
      'state-branch': 'memory/autoloop'
    },
    env: { GITHUB_RUN_ID: String(1000 + n) }
  }
  return runOnFreshFake(scenarioOf(kind), options, (_fake, run) => {
    const status = run.outputs.status ?? 'error'
    const verdict = run.outputs.verdict ?? ''
    if (status === 'error') throw new Error(`iteration ${n} (${kind}): ${run.errors.join('; ')}`)
    const accepted = status === 'success'
    return {
      status,
      verdict,
      attemptOnForeign: !OWN[kind] && status === 'failure',
      pausedWrongly:
        !OWN[kind] && status === 'paused' && BLAMING.test(run.outputs['pause-reason'] ?? ''),
      acceptedOwnFailure: OWN[kind] && accepted,
      accepted
    }
  })
}

interface Tally {
  iterations: number
  attemptsOnForeign: number
  pausedWrongly: number
  acceptedOwnFailure: number
  accepted: number
}

const empty = (): Tally => ({
  iterations: 0,
  attemptsOnForeign: 0,
  pausedWrongly: 0,
  acceptedOwnFailure: 0,
  accepted: 0
})

function add(tally: Tally, judgement: Judgement): void {
  tally.iterations += 1
  tally.attemptsOnForeign += Number(judgement.attemptOnForeign)
  tally.pausedWrongly += Number(judgement.pausedWrongly)
  tally.acceptedOwnFailure += Number(judgement.acceptedOwnFailure)
  tally.accepted += Number(judgement.accepted)
}

export async function runClassificationBench(iterations = 200, seed = 20261124): Promise<string> {
  const rng = createRng(seed)
  const kinds = Array.from({ length: iterations }, () => rng.weighted(MIX))
  const limit = pLimit(4)
  const results = await Promise.all(kinds.map((kind, n) => limit(() => gateOnce(kind, n))))
  const gate = empty()
  const baseline = empty()
  const byKind = new Map<Kind, { count: number; outcomes: Map<string, number> }>()
  kinds.forEach((kind, n) => {
    const result = results[n] as Awaited<ReturnType<typeof gateOnce>>
    add(gate, result)
    add(baseline, stepFive(kind))
    const entry = byKind.get(kind) ?? { count: 0, outcomes: new Map<string, number>() }
    entry.count += 1
    const outcome = `${result.status} (${result.verdict})`
    entry.outcomes.set(outcome, (entry.outcomes.get(outcome) ?? 0) + 1)
    byKind.set(kind, entry)
  })
  const row = (name: string, t: Tally) =>
    `| ${name} | ${t.attemptsOnForeign} | ${t.pausedWrongly} | ${t.acceptedOwnFailure} | ${t.accepted} |`
  return [
    `${iterations} iterations, seed ${seed}, each gated once (\`rerun-failed: 1\`, \`pre-existing-failures: allow\`).`,
    '',
    '| | fix attempts spent on failures the iteration did not cause | programs paused wrongly | iterations accepted on a real failure of their own | iterations accepted |',
    '|---|---:|---:|---:|---:|',
    row('autoloop-ci-gate', gate),
    row("autoloop's Step 5 as written (every red spends an attempt)", baseline),
    '',
    '| kind of iteration | iterations | what the gate did |',
    '|---|---:|---|',
    ...MIX.map(([kind]) => {
      const entry = byKind.get(kind)
      const outcomes = [...(entry?.outcomes ?? new Map<string, number>())]
        .map(([outcome, count]) => `${count} × ${outcome}`)
        .join(', ')
      return `| ${kind} | ${entry?.count ?? 0} | ${outcomes || '—'} |`
    })
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { iterations: { type: 'string' }, seed: { type: 'string' } }
  })
  console.log(
    await runClassificationBench(
      values.iterations ? Number(values.iterations) : 200,
      values.seed ? Number(values.seed) : 20261124
    )
  )
}
