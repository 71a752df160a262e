/**
 * Failure details through the whole gate (docs/failure-details.md: "Failure details"): a real jest job log from
 * the corpus served as a failing check's log; the fix brief in `<program>.md`, the failure
 * summary (JSON file and markdown output, what AUTOLOOP_FAILURE_* point at) and the ledger all
 * carry the failure's message, values and location.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROGRAM, SHA, gateOnce } from '../helpers/fake-run.js'
import { tempDir } from '../helpers/temp-dir.js'

const LOG = readFileSync(
  new URL('../../__fixtures__/corpus/jest/assertion/job-log.log', import.meta.url),
  'utf8'
)
const FACTS = ['Expected: 6', 'Received: 5', 'at Object.<anonymous> (__tests__/cart.test.js:10:29)']

describe('failure details through the gate', () => {
  it('reach the brief, the failure summary and the ledger', async () => {
    const stateDir = tempDir('autoloop-details-')
    const { run } = await gateOnce(
      {
        checkRuns: [
          {
            sha: SHA,
            name: 'test',
            timeline: [
              { at: 0, status: 'queued' },
              { at: 60, status: 'completed', conclusion: 'failure' }
            ],
            log: LOG
          }
        ]
      },
      { 'state-dir': stateDir, 'rerun-failed': '0' }
    )
    expect(run.outputs).toMatchObject({ status: 'failure', verdict: 'red' })
    const state = readFileSync(join(stateDir, `${PROGRAM}.md`), 'utf8')
    const brief = state.slice(state.indexOf('## 🚦 CI Gate'))
    const json = JSON.parse(readFileSync(run.outputs['failure-summary-path'] ?? '', 'utf8')) as {
      checks: { details?: { key: string; lines: string[] }[] }[]
    }
    const ledger = JSON.parse(readFileSync(join(stateDir, `ci-gate/${PROGRAM}.json`), 'utf8')) as {
      attempts: { details?: { check: string; key: string; lines: string[] }[] }[]
    }
    const jsonLines = json.checks[0]?.details?.[0]?.lines.join('\n') ?? ''
    const ledgerLines = ledger.attempts.at(-1)?.details?.[0]?.lines.join('\n') ?? ''
    for (const fact of FACTS) {
      expect(brief).toContain(fact)
      expect(run.outputs['failure-summary']).toContain(fact)
      expect(jsonLines).toContain(fact)
      expect(ledgerLines).toContain(fact)
    }
    expect(json.checks[0]?.details?.[0]?.key).toBe(
      'jest:__tests__/cart.test.js>cart > total > adds the prices of two items'
    )
  })
})
