/**
 * The gate whose rate-limit points BENCHMARKS.md ("One gate run") reports and
 * `__tests__/integration/gate-budget.int.test.ts` pins: a program in its gh-aw loop (its state
 * file on the state branch already), two checks on the head, one of them red with jest's real
 * output, and a fixer workflow to dispatch.
 */
import { join } from 'node:path'
import type { CheckRunPlan, Scenario } from './fake-github/index.js'
import { createStateFile } from '../src/statefile/template.js'

export const BUDGET_SHA = 'be4c5'.padEnd(40, '0')
export const BUDGET_BRANCH = 'autoloop/bench'
export const BUDGET_STATE_BRANCH = 'memory/autoloop'
const JEST_LOG = join(import.meta.dirname, 'corpus/jest/assertion/job-log.log')

function check(name: string, conclusion: 'success' | 'failure'): CheckRunPlan {
  return {
    sha: BUDGET_SHA,
    name,
    timeline: [
      { at: 0, status: 'queued' },
      { at: 10, status: 'in_progress' },
      { at: 300, status: 'completed', conclusion }
    ],
    ...(conclusion === 'failure' ? { log: { file: JEST_LOG } } : {})
  }
}

/** The scenario of a green (`red: false`) or red gate, with `extra` over it. */
export function budgetScenario(red: boolean, extra: Partial<Scenario> = {}): Scenario {
  return {
    branches: { [BUDGET_BRANCH]: BUDGET_SHA },
    contents: { [BUDGET_STATE_BRANCH]: { 'bench.md': createStateFile('bench') } },
    checkRuns: [check('test', red ? 'failure' : 'success'), check('lint', 'success')],
    dispatchedRuns: { queuedSeconds: 5, runSeconds: 3600 },
    ...extra
  }
}

/** The gate's inputs: the head as it is, the state branch, and the fixer workflow to start. */
export const BUDGET_INPUTS: Record<string, string> = {
  program: 'bench',
  push: 'false',
  'create-pr': 'false',
  'state-branch': BUDGET_STATE_BRANCH,
  'dispatch-workflow': 'autoloop.lock.yml'
}
