/**
 * The fast slice of the seeded chaos suite (the full run: `npm run chaos`): random scenarios
 * and fault schedules against the action run in-process, each checked by the oracle. A failing
 * seed is named in the test output; replay it with
 * `npx tsx scripts/chaos/run.ts --seed <seed> --verbose`.
 */
import { beforeAll, describe, expect, it } from '@jest/globals'
import { CASE_KINDS, generateCase, type CaseKind } from '../../scripts/chaos/scenario.js'
import { runCase, type CaseReport } from '../../scripts/chaos/harness.js'
import { totalsOf } from '../../scripts/chaos/run.js'

/** Fixed seeds, so the default test run is reproducible; the full suite explores more. */
const FIRST_SEEDS = Array.from({ length: 12 }, (_, i) => i + 1)
const PARALLEL = 4

/** The first seed whose case is of `kind`. */
function firstSeedOf(kind: CaseKind): number {
  for (let seed = 1; seed < 10_000; seed++) if (generateCase(seed).kind === kind) return seed
  throw new Error(`no seed below 10000 makes a ${kind} case`)
}

/** Seeds 1–12, and the first case of every kind they miss. */
function sliceSeeds(): number[] {
  const seeds = [...FIRST_SEEDS]
  const kinds = new Set(seeds.map((seed) => generateCase(seed).kind))
  for (const kind of CASE_KINDS) if (!kinds.has(kind)) seeds.push(firstSeedOf(kind))
  return seeds
}

async function runSlice(seeds: readonly number[]): Promise<CaseReport[]> {
  const reports: CaseReport[] = []
  for (let i = 0; i < seeds.length; i += PARALLEL) {
    const batch = seeds.slice(i, i + PARALLEL)
    reports.push(...(await Promise.all(batch.map((seed) => runCase(generateCase(seed))))))
  }
  return reports
}

describe('the seeded chaos slice, in-process', () => {
  const seeds = sliceSeeds()
  let reports: CaseReport[] = []

  // One run of the slice, shared by the checks below (each of which can run alone).
  beforeAll(async () => {
    reports = await runSlice(seeds)
  }, 120_000)

  it(`every case keeps every invariant (seeds ${seeds.join(', ')})`, () => {
    expect(reports).toHaveLength(seeds.length)
    const failures = reports
      .filter((report) => report.violations.length > 0)
      .map((report) => `seed ${report.seed} (${report.kind}): ${report.violations.join('; ')}`)
    expect(failures).toEqual([])
  })

  it('the slice exercised faults, crashes, every case kind and every verdict', () => {
    const totals = totalsOf(reports)
    expect(totals.runs).toBe(seeds.length)
    expect(totals.wrongVerdicts).toBe(0)
    expect(totals.greenForNotGreen).toBe(0)
    expect(totals.kills).toBeGreaterThan(0)
    expect(totals.flakyReported).toBeGreaterThan(0)
    const fired = Object.values(totals.faultsFired).reduce((sum, n) => sum + n, 0)
    expect(fired).toBeGreaterThan(seeds.length)
    expect(Object.keys(totals.kinds).sort()).toEqual([...CASE_KINDS].sort())
    const verdicts = [
      'green',
      'red',
      'no-checks',
      'ci-timeout',
      'green-except-pre-existing',
      'blocked'
    ]
    expect(verdicts.filter((verdict) => (totals.verdicts[verdict] ?? 0) === 0)).toEqual([])
  })
})

describe('the generator', () => {
  it('the same seed gives the same case; different seeds differ', () => {
    expect(JSON.stringify(generateCase(7))).toBe(JSON.stringify(generateCase(7)))
    expect(JSON.stringify(generateCase(7))).not.toBe(JSON.stringify(generateCase(8)))
  })

  it('the full run (seeds 1–300) holds every kind of case, and crashes', () => {
    const cases = Array.from({ length: 300 }, (_, i) => generateCase(i + 1))
    const kinds = new Map<string, number>()
    for (const c of cases) kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1)
    for (const kind of CASE_KINDS)
      expect({ kind, cases: kinds.get(kind) ?? 0 }).not.toEqual({ kind, cases: 0 })
    expect(cases.filter((c) => c.kill !== null).length).toBeGreaterThan(30)
  })
})
