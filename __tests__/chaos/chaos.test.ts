/**
 * The fast slice of the seeded chaos suite (the full run: `npx tsx scripts/chaos/run.ts`):
 * random scenarios and fault schedules against the bundled action, each checked by the
 * oracle. A failing seed is named in the test title; replay it with
 * `npx tsx scripts/chaos/run.ts --seed <seed> --verbose`.
 */
import { describe, expect, it } from '@jest/globals'
import { generateCase } from '../../scripts/chaos/scenario.js'
import { runCase, type CaseReport } from '../../scripts/chaos/harness.js'
import { totalsOf } from '../../scripts/chaos/run.js'

/** Fixed seeds, so the default test run is reproducible; the full suite explores more. */
const FIRST_SEED = 1
const RUNS = 20
const PARALLEL = 3

describe('seeded chaos slice through dist/index.js', () => {
  const reports: CaseReport[] = []

  it(`${RUNS} seeded runs (seeds ${FIRST_SEED}–${FIRST_SEED + RUNS - 1}) keep every invariant`, async () => {
    const seeds = Array.from({ length: RUNS }, (_, i) => FIRST_SEED + i)
    for (let i = 0; i < seeds.length; i += PARALLEL) {
      const batch = seeds.slice(i, i + PARALLEL)
      reports.push(...(await Promise.all(batch.map((seed) => runCase(generateCase(seed))))))
    }
    const failures = reports
      .filter((report) => report.violations.length > 0)
      .map((report) => `seed ${report.seed}: ${report.violations.join('; ')}`)
    expect(failures).toEqual([])
  }, 240_000)

  it('the slice exercised faults, kills and every verdict kind', () => {
    const totals = totalsOf(reports)
    expect(totals.runs).toBe(RUNS)
    expect(totals.wrongVerdicts).toBe(0)
    expect(totals.greenForNotGreen).toBe(0)
    expect(totals.kills).toBeGreaterThan(0)
    const fired = Object.values(totals.faultsFired).reduce((sum, n) => sum + n, 0)
    expect(fired).toBeGreaterThan(RUNS)
    for (const verdict of ['green', 'red', 'ci-timeout'])
      expect({ verdict, seen: (totals.verdicts[verdict] ?? 0) > 0 }).toEqual({
        verdict,
        seen: true
      })
  })
})

describe('the oracle and the generator', () => {
  it('the same seed gives the same case; different seeds differ', () => {
    expect(JSON.stringify(generateCase(7))).toBe(JSON.stringify(generateCase(7)))
    expect(JSON.stringify(generateCase(7))).not.toBe(JSON.stringify(generateCase(8)))
  })
})
