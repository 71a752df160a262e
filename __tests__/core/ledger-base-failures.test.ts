import { describe, expect, it } from '@jest/globals'
import { preExistingKeys } from '../../src/core/rules/classify.js'
import {
  LEDGER_LIMITS,
  compactLedger,
  ledgerBytes,
  type BaseFailures,
  type Ledger
} from '../../src/core/ledger.js'
import { START, redAttempts, sha, sig } from './ledger-helpers.js'

function base(checks: BaseFailures['checks']): BaseFailures {
  return {
    branch: 'main',
    sha: sha('base'),
    readAt: new Date(START).toISOString(),
    state: 'complete',
    checks
  }
}

const keys = (count: number, prefix = 'k'): string[] =>
  Array.from({ length: count }, (_, i) => `jest:tests/${prefix}${i}/file.test.ts>suite ${i} fails`)

function withBase(failures: BaseFailures): Ledger {
  return { ...redAttempts([sig('mine')]), baseFailures: failures }
}

describe('base branch failures in the ledger', () => {
  it('are kept whole when within the limits', () => {
    const failures = base([{ name: 'test', conclusion: 'failure', url: null, keys: keys(50) }])
    expect(compactLedger(withBase(failures)).baseFailures).toEqual(failures)
  })

  it('are dropped, never kept cut, when over the byte bound (6,000 long failing keys on main)', () => {
    const all = keys(6000, 'k'.repeat(80))
    const ledger = withBase(
      base(
        Array.from({ length: 30 }, (_, c) => ({
          name: `test ${c}`,
          conclusion: 'failure',
          url: null,
          keys: all.slice(c * 200, c * 200 + 200)
        }))
      )
    )
    expect(ledgerBytes(ledger)).toBeGreaterThan(LEDGER_LIMITS.maxBytes)
    const compacted = compactLedger(ledger)
    expect(ledgerBytes(compacted)).toBeLessThanOrEqual(LEDGER_LIMITS.maxBytes)
    // Null: the gate reads the base head again rather than trusting a list without keys.
    expect(compacted.baseFailures).toBeNull()
    expect(compactLedger(compacted)).toEqual(compacted)
  })

  it('are dropped when one check has more keys than maxBaseKeysPerCheck', () => {
    const many = keys(LEDGER_LIMITS.maxBaseKeysPerCheck + 1)
    const ledger = withBase(base([{ name: 'test', conclusion: 'failure', url: null, keys: many }]))
    expect(ledgerBytes(ledger)).toBeLessThan(LEDGER_LIMITS.maxBytes)
    expect(compactLedger(ledger).baseFailures).toBeNull()
    const within = many.slice(0, LEDGER_LIMITS.maxBaseKeysPerCheck)
    const kept = withBase(base([{ name: 'test', conclusion: 'failure', url: null, keys: within }]))
    expect(compactLedger(kept).baseFailures?.checks[0]?.keys).toEqual(within)
  })

  it('are dropped when more checks fail than maxBaseChecks', () => {
    const checks = (count: number): BaseFailures['checks'] =>
      Array.from({ length: count }, (_, c) => ({
        name: `job ${c}`,
        conclusion: 'failure',
        url: null,
        keys: keys(1, `c${c}-`)
      }))
    const over = withBase(base(checks(LEDGER_LIMITS.maxBaseChecks + 1)))
    expect(ledgerBytes(over)).toBeLessThan(LEDGER_LIMITS.maxBytes)
    expect(compactLedger(over).baseFailures).toBeNull()
    const within = withBase(base(checks(LEDGER_LIMITS.maxBaseChecks)))
    expect(compactLedger(within).baseFailures?.checks).toHaveLength(LEDGER_LIMITS.maxBaseChecks)
  })

  it('leaves no emptied list behind for the gate to trust (one check, 1,500 keys)', () => {
    const all = keys(1500)
    const compacted = compactLedger(
      withBase(base([{ name: 'test', conclusion: 'failure', url: null, keys: all }]))
    )
    // No list rather than a list without keys: with none the gate reads main again, while an
    // emptied list with the same SHA would make every failure already on main look new.
    expect(compacted.baseFailures).toBeNull()
    expect(
      preExistingKeys([{ name: 'test', keys: all.slice(0, 5) }], compacted.baseFailures)
    ).toEqual([])
  })

  it('keeps a no-ci record (no checks)', () => {
    const noCi: BaseFailures = { ...base([]), state: 'no-ci' }
    expect(compactLedger(withBase(noCi)).baseFailures).toEqual(noCi)
  })
})
