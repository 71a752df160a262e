/**
 * Measures every log parser (each one directly, and the extractor with `everyLine: true`)
 * on adversarial lines of growing size, to show the time stays linear (no catastrophic
 * backtracking). Prints the worst time per MB and the worst growth between sizes:
 *
 *   npx tsx scripts/chaos/parser-timing.ts [--sizes 64,256,1024] [--top 4] [--json]
 *
 * A line is built from each prefix × unit pair of `adversarial.ts`. Every pair is screened
 * at 16 KiB through every subject; the `top` slowest pairs of each subject are then measured
 * at each of `sizes`. A measurement feeds the line twice (also as `previous`) to a fresh
 * parser and calls `finish`; the best of two runs counts.
 */
import { PARSERS } from '../../src/core/signature/parsers/index.js'
import { extractFailuresFromString } from '../../src/core/signature/extract.js'
import { LINE_PREFIXES, RUN_UNITS, adversarialLine } from './adversarial.js'

interface Worst {
  parser: string
  prefix: string
  unit: string
  sizeKiB: number
  msPerMiB: number
}

function timeOnce(run: () => void): number {
  const start = process.hrtime.bigint()
  run()
  return Number(process.hrtime.bigint() - start) / 1e6
}

function main(): void {
  const argv = process.argv.slice(2)
  const sizesArg = argv[argv.indexOf('--sizes') + 1]
  const sizes = (argv.includes('--sizes') && sizesArg ? sizesArg : '64,256,1024')
    .split(',')
    .map(Number)
  const json = argv.includes('--json')
  const subjects: Array<{ name: string; run: (line: string) => void }> = [
    ...PARSERS.map((entry) => ({
      name: entry.tool,
      run: (line: string) => {
        const parser = entry.create()
        parser.push(line, line)
        parser.push(line, line)
        parser.finish()
      }
    })),
    {
      name: 'extractor (everyLine)',
      run: (line: string) => {
        extractFailuresFromString(`${line}\n${line}\n`, {
          everyLine: true,
          maxLineLength: 4 * 1024 * 1024
        })
      }
    }
  ]
  const topArg = argv[argv.indexOf('--top') + 1]
  const top = argv.includes('--top') && topArg ? Number(topArg) : 4
  let worst: Worst = { parser: '', prefix: '', unit: '', sizeKiB: 0, msPerMiB: 0 }
  let worstGrowth = { parser: '', prefix: '', unit: '', ratio: 0 }
  const perSubject: Record<string, number> = {}
  let lines = 0
  const started = Date.now()
  const measure = (
    subject: (typeof subjects)[number],
    prefix: string,
    unit: string,
    kib: number
  ) => {
    const line = adversarialLine(prefix, unit, kib * 1024)
    const ms = Math.min(
      timeOnce(() => subject.run(line)),
      timeOnce(() => subject.run(line))
    )
    lines += 4
    // Two lines per call: the time per MiB of input fed.
    return ms / ((2 * kib) / 1024)
  }
  for (const subject of subjects) {
    const screened: Array<{ prefix: string; unit: string; msPerMiB: number }> = []
    for (const prefix of LINE_PREFIXES)
      for (const unit of RUN_UNITS)
        screened.push({ prefix, unit, msPerMiB: measure(subject, prefix, unit, 16) })
    screened.sort((a, b) => b.msPerMiB - a.msPerMiB)
    for (const { prefix, unit } of screened.slice(0, top)) {
      const perMiB = sizes.map((kib) => {
        const msPerMiB = measure(subject, prefix, unit, kib)
        if (msPerMiB > worst.msPerMiB)
          worst = { parser: subject.name, prefix, unit, sizeKiB: kib, msPerMiB }
        perSubject[subject.name] = Math.max(perSubject[subject.name] ?? 0, msPerMiB)
        return msPerMiB
      })
      // Growth of the time per MiB from the smallest to the largest size (1 = linear).
      const first = perMiB[0] ?? 0
      const last = perMiB[perMiB.length - 1] ?? 0
      if (first > 0 && last / first > worstGrowth.ratio)
        worstGrowth = { parser: subject.name, prefix, unit, ratio: last / first }
    }
  }
  const result = {
    sizesKiB: sizes,
    subjects: subjects.length,
    linesFed: lines,
    seconds: (Date.now() - started) / 1000,
    worst,
    worstGrowth,
    screenedPairsPerSubject: LINE_PREFIXES.length * RUN_UNITS.length,
    worstMsPerMiBBySubject: perSubject
  }
  if (json) console.log(JSON.stringify(result, null, 2))
  else {
    console.log(
      `${lines} adversarial lines: ${result.screenedPairsPerSubject} pairs screened at 16 KiB per parser, the ${top} slowest at ${sizes.join(', ')} KiB, ${subjects.length} parsers, ${result.seconds.toFixed(1)} s`
    )
    console.log(
      `worst time per MiB: ${worst.msPerMiB.toFixed(1)} ms (${worst.parser}, prefix ${JSON.stringify(worst.prefix)}, unit ${JSON.stringify(worst.unit)}, ${worst.sizeKiB} KiB)`
    )
    console.log(
      `worst growth of time per MiB from ${sizes[0]} to ${sizes[sizes.length - 1]} KiB: ×${worstGrowth.ratio.toFixed(2)} (${worstGrowth.parser || 'none measurable'}${worstGrowth.parser ? `, prefix ${JSON.stringify(worstGrowth.prefix)}, unit ${JSON.stringify(worstGrowth.unit)}` : ''})`
    )
    for (const [name, ms] of Object.entries(perSubject).sort((a, b) => b[1] - a[1]))
      console.log(`  ${name.padEnd(24)} ${ms.toFixed(1)} ms/MiB`)
  }
}

main()
