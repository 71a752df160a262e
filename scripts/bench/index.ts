/**
 * `npm run bench`: every benchmark, printed as markdown (the figures in BENCHMARKS.md come
 * from this command). `--only polling|signature` runs one of them.
 */
import { cpus, totalmem } from 'node:os'
import { runPollingBench } from './polling.js'
import { runSignatureBench } from './signature.js'

const only = process.argv.includes('--only')
  ? process.argv[process.argv.indexOf('--only') + 1]
  : undefined
const cpu = cpus()[0]?.model ?? 'unknown CPU'
console.log(
  `Machine: ${cpu}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}\n`
)
if (!only || only === 'polling') {
  console.log('## Waiting on checks: requests and rate-limit points\n')
  console.log(await runPollingBench())
  console.log()
}
if (!only || only === 'signature') {
  console.log('## Signature extractor on large job logs\n')
  console.log(
    await runSignatureBench({ progress: (message) => process.stderr.write(`${message}\n`) })
  )
  console.log()
}
