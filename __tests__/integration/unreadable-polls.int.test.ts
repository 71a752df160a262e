/**
 * The one read-failure policy of every poll (docs/decisions.md: "Whose failure it is"), in-process
 * against the fake: GitHub answers 502 to every read of some checks, past the client's own
 * retries. The base branch head's checks unreadable: every failure counts as new, said in the
 * summary and the ledger, and the gate still gives its verdict. A re-run's checks unreadable:
 * the failure stands as first seen, with no re-run verdict.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { CheckRunPlan } from '../../__fixtures__/fake-github/index.js'
import { BRANCH, PROGRAM, withFake } from '../helpers/fake-run.js'
import { runInProcess } from '../helpers/in-process.js'
import { tempDir } from '../helpers/temp-dir.js'
import { ledgerPath } from '../../src/core/ledger.js'
import { parseLedgerFile } from '../../src/statefile/ledger-file.js'

const CORPUS = resolve(import.meta.dirname, '../../__fixtures__/corpus')
const BASE = 'ba5e'.repeat(10)
const HEAD = 'c0de'.repeat(10)
const ESLINT_KEY = 'eslint:@typescript-eslint/no-unused-vars:discount:src/orders.ts'
const JEST_KEY = 'jest:__tests__/cart.test.js>cart > total > adds the prices of two items'

function failing(sha: string, name: string, log: string, extra: Partial<CheckRunPlan> = {}) {
  return {
    sha,
    name,
    timeline: [
      { at: 0, status: 'queued' as const },
      { at: 300, status: 'completed' as const, conclusion: 'failure' as const }
    ],
    log: { file: join(CORPUS, log) },
    ...extra
  }
}

const checksOf = (sha: string) => `/commits/${sha}/check-runs`
const gateInputs = (stateDir: string) => ({
  program: PROGRAM,
  push: 'false',
  sha: HEAD,
  'create-pr': 'false',
  'state-dir': stateDir
})
const ledgerIn = (stateDir: string) =>
  parseLedgerFile(readFileSync(join(stateDir, ledgerPath(PROGRAM)), 'utf8'), ledgerPath(PROGRAM))

describe('a poll that cannot read', () => {
  it('the base branch head: every failure counts as new, loudly; the gate still judges', async () => {
    await withFake(
      {
        branches: { main: BASE, [BRANCH]: HEAD },
        checkRuns: [
          failing(BASE, 'lint', 'eslint/unused-var/job-log.log'),
          failing(HEAD, 'lint', 'eslint/unused-var/job-log.log')
        ],
        faults: [{ kind: 'status', status: 502, path: checksOf(BASE), count: 'always' }]
      },
      async (fake) => {
        const stateDir = tempDir('autoloop-state-')
        const run = await runInProcess(fake, { inputs: gateInputs(stateDir) })
        expect(run.errors).toEqual([])
        // Not pre-existing, although the base fails the same way: it could not be read.
        expect(run.outputs).toMatchObject({
          status: 'failure',
          verdict: 'red',
          signature: ESLINT_KEY,
          'pre-existing': '[]'
        })
        expect(run.warnings.length).toBeGreaterThan(0)
        const note = ledgerIn(stateDir).attempts[0]?.classification?.baseNote
        expect(note).toMatch(/could not be read .*every failure counts as new$/)
        expect(run.outputs['failure-summary']).toContain(note)
        expect(run.summary).toContain(note)
        // It was read until the policy gave up, and not after.
        expect(
          fake.requests.filter((r) => r.path.includes(checksOf(BASE))).length
        ).toBeGreaterThanOrEqual(5)
      }
    )
  })

  it('the re-run: the failure stands as first seen, the re-run without a verdict', async () => {
    await withFake(
      {
        branches: { main: BASE, [BRANCH]: HEAD },
        checkRuns: [
          failing(HEAD, 'test', 'jest/assertion/job-log.log', {
            rerun: [{ conclusion: 'success' }]
          })
        ]
      },
      async (fake) => {
        const stateDir = tempDir('autoloop-state-')
        const run = await runInProcess(fake, {
          inputs: gateInputs(stateDir),
          // GitHub stops answering for the head's checks once the re-run is requested.
          adapt: (adapters) => {
            const github = Object.create(adapters.github) as typeof adapters.github
            github.rerunFailedJobs = async (runId) => {
              await adapters.github.rerunFailedJobs(runId)
              fake.addFault({ kind: 'status', status: 502, path: checksOf(HEAD), count: 'always' })
            }
            return { ...adapters, github }
          }
        })
        expect(run.errors).toEqual([])
        expect(run.outputs).toMatchObject({
          status: 'failure',
          verdict: 'red',
          signature: JEST_KEY
        })
        const attempt = ledgerIn(stateDir).attempts[0]
        expect(attempt?.state).toBe('red')
        expect(attempt?.reruns).toMatchObject([{ why: 'flaky-test', outcome: 'pending' }])
        expect(attempt?.classification?.flaky).toEqual([])
      }
    )
  })
})
