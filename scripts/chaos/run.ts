/**
 * The seeded chaos suite from the command line (`npm run chaos`):
 *
 *   npx tsx scripts/chaos/run.ts [--runs N] [--seed S] [--from S] [--concurrency N] [--verbose] [--json]
 *
 * `--seed S` replays one case; otherwise seeds `from` … `from + runs − 1` run (default 1 and
 * 300), `concurrency` cases at a time in this process. Prints the figures for RELIABILITY.md
 * and the seed of every failing run; exits 1 when any invariant was violated. The action runs
 * in-process from `src/` (no build needed).
 */
import { generateCase } from './scenario.js'
import { runCase, type CaseReport } from './harness.js'

interface Args {
  runs: number
  from: number
  seed: number | undefined
  verbose: boolean
  json: boolean
  concurrency: number
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    runs: 300,
    from: 1,
    seed: undefined,
    verbose: false,
    json: false,
    concurrency: 4
  }
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]
    const value = () => {
      const raw = argv[++i]
      if (raw === undefined || !/^\d+$/.test(raw)) throw new Error(`${flag} needs a number`)
      return Number(raw)
    }
    if (flag === '--runs') args.runs = value()
    else if (flag === '--from') args.from = value()
    else if (flag === '--seed') args.seed = value()
    else if (flag === '--concurrency') args.concurrency = Math.max(1, value())
    else if (flag === '--verbose') args.verbose = true
    else if (flag === '--json') args.json = true
    else
      throw new Error(`unknown flag ${flag}; use --runs N, --seed S, --from S, --verbose, --json`)
  }
  return args
}

export interface ChaosTotals {
  runs: number
  failingSeeds: number[]
  wrongVerdicts: number
  /** Green (or green except pre-existing failures) for a head that was not. */
  greenForNotGreen: number
  lostOrCorruptedState: number
  duplicatedComments: number
  /** Flaky checks hidden, or claimed without a re-run that passed. */
  flakyMisreported: number
  /** Cases by kind (see scenario.ts). */
  kinds: Record<string, number>
  /** Checks reported flaky (failed, passed on the gate's re-run). */
  flakyReported: number
  faultsFired: Record<string, number>
  outcomes: Record<string, number>
  /** Why the runs that ended in an error failed (the step's message, URLs cut off). */
  errors: Record<string, number>
  verdicts: Record<string, number>
  kills: number
  realMsMax: number
}

export function totalsOf(reports: readonly CaseReport[]): ChaosTotals {
  const count = (pattern: RegExp) =>
    reports.filter((r) => r.violations.some((v) => pattern.test(v))).length
  const totals: ChaosTotals = {
    runs: reports.length,
    failingSeeds: reports.filter((r) => r.violations.length > 0).map((r) => r.seed),
    wrongVerdicts: count(/^WRONG VERDICT/),
    greenForNotGreen: reports.filter(
      (r) =>
        r.verdict.startsWith('green') && r.violations.some((v) => v.startsWith('WRONG VERDICT'))
    ).length,
    lostOrCorruptedState: count(/^STATE (LOST|CORRUPTED|STALE)/),
    duplicatedComments: count(/^DUPLICATED COMMENT/),
    flakyMisreported: count(/^FLAKY/),
    kinds: {},
    flakyReported: reports.reduce((sum, r) => sum + r.flaky.length, 0),
    faultsFired: {},
    outcomes: {},
    errors: {},
    verdicts: {},
    kills: reports.filter((r) => r.launches.some((launch) => launch.killed)).length,
    realMsMax: Math.max(0, ...reports.map((r) => r.realMs))
  }
  for (const report of reports) {
    for (const [kind, n] of Object.entries(report.faultsFired))
      totals.faultsFired[kind] = (totals.faultsFired[kind] ?? 0) + n
    totals.outcomes[report.outcome] = (totals.outcomes[report.outcome] ?? 0) + 1
    totals.kinds[report.kind] = (totals.kinds[report.kind] ?? 0) + 1
    if (report.outcome === 'error') {
      const why = (report.error ?? '(no message)').replace(/ - https?:\S+/g, '').slice(0, 120)
      totals.errors[why] = (totals.errors[why] ?? 0) + 1
    }
    const verdict = report.verdict || '(none)'
    totals.verdicts[verdict] = (totals.verdicts[verdict] ?? 0) + 1
  }
  return totals
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2))
  const seeds =
    args.seed !== undefined
      ? [args.seed]
      : Array.from({ length: args.runs }, (_, i) => args.from + i)
  const reports: CaseReport[] = []
  const started = Date.now()
  let next = 0
  const worker = async () => {
    while (next < seeds.length) {
      const seed = seeds[next++] as number
      const report = await runCase(generateCase(seed))
      reports.push(report)
      const line = `seed ${seed} (${report.kind}): ${report.outcome} (verdict ${report.verdict || '—'}, true ${report.trueVerdict ?? '—'}) ${report.realMs} ms`
      if (report.violations.length > 0) {
        console.log(`FAIL ${line}\n  ${report.violations.join('\n  ')}`)
        console.log(`  replay: npx tsx scripts/chaos/run.ts --seed ${seed} --verbose`)
      } else if (args.verbose || args.seed !== undefined) console.log(`ok   ${line}`)
      if (args.seed !== undefined && args.verbose) {
        console.log(JSON.stringify(generateCase(seed), null, 2))
        for (const [i, launch] of report.launches.entries())
          console.log(
            `--- launch ${i + 1} (${launch.killed ? 'crashed' : `exit ${launch.run?.exitCode}`})\n${launch.run?.log.join('\n') ?? ''}`
          )
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(args.concurrency, seeds.length) }, worker))
  const totals = totalsOf(reports.sort((a, b) => a.seed - b.seed))
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  if (args.json) console.log(JSON.stringify(totals, null, 2))
  else {
    console.log(`\n${totals.runs} runs in ${seconds} s`)
    console.log(
      `wrong verdicts: ${totals.wrongVerdicts} (green for a head that was not green: ${totals.greenForNotGreen})`
    )
    console.log(`lost or corrupted state: ${totals.lostOrCorruptedState}`)
    console.log(`duplicated comments: ${totals.duplicatedComments}`)
    console.log(`flaky checks hidden or claimed: ${totals.flakyMisreported}`)
    console.log(`jobs crashed mid-run and re-run: ${totals.kills}`)
    console.log(`cases by kind: ${JSON.stringify(totals.kinds)}`)
    console.log(`checks reported flaky: ${totals.flakyReported}`)
    console.log(`faults injected (fired): ${JSON.stringify(totals.faultsFired)}`)
    console.log(`outcomes: ${JSON.stringify(totals.outcomes)}`)
    console.log(`verdicts: ${JSON.stringify(totals.verdicts)}`)
    console.log(`errors: ${JSON.stringify(totals.errors)}`)
    console.log(
      `failing seeds: ${totals.failingSeeds.length === 0 ? 'none' : totals.failingSeeds.join(' ')}`
    )
  }
  process.exitCode = totals.failingSeeds.length > 0 ? 1 : 0
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
