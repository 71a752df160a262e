/**
 * `npm run bench`: every benchmark, printed as markdown (the figures in BENCHMARKS.md come
 * from this command). `--only polling|reconcile|classification|signature|held-out|fix-command|details|ledger|settle`
 * runs one of them.
 */
import { cpus, totalmem } from 'node:os'
import { parseArgs } from 'node:util'
import { runPollingBench } from './polling.js'
import { runGateBudgetBench } from './gate-budget.js'
import { runReconcileBench } from './reconcile.js'
import { runClassificationBench } from './classification.js'
import { runSignatureBench } from './signature.js'
import { runFixCommandBench } from './fix-command.js'
import { runHeldOutBench } from './held-out.js'
import { runDetailsBench } from './details.js'
import { runLedgerBench } from './ledger.js'
import { runSettleBench } from './settle.js'

const { values } = parseArgs({ options: { only: { type: 'string' } } })
const only = values.only
const cpu = cpus()[0]?.model ?? 'unknown CPU'
console.log(
  `Machine: ${cpu}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}\n`
)
if (!only || only === 'polling') {
  console.log('## Waiting on checks: requests and rate-limit points\n')
  console.log(await runPollingBench())
  console.log()
  console.log('## One gate run: rate-limit points\n')
  console.log(await runGateBudgetBench())
  console.log()
}
if (!only || only === 'reconcile') {
  console.log('## reconcile: rate-limit points for many programs\n')
  console.log(await runReconcileBench())
  console.log()
}
if (!only || only === 'classification') {
  console.log(
    '## Whose failure it is: fix attempts spent on failures the iteration did not cause\n'
  )
  console.log(await runClassificationBench())
  console.log()
}
if (!only || only === 'signature') {
  console.log('## Signature extractor on large job logs\n')
  console.log(
    await runSignatureBench({ progress: (message) => process.stderr.write(`${message}\n`) })
  )
  console.log()
}
if (!only || only === 'fix-command') {
  console.log('## fix-command: giving the step back at the timeout\n')
  console.log(await runFixCommandBench())
  console.log()
}
if (!only || only === 'held-out') {
  console.log('## Held-out real logs\n')
  console.log(runHeldOutBench())
  console.log()
}
if (!only || only === 'details') {
  console.log('## Failure details: facts that reach the fix brief\n')
  console.log(await runDetailsBench())
  console.log()
}
if (!only || only === 'ledger') {
  console.log('## The ledger on the write path: compactLedger per call\n')
  console.log(runLedgerBench())
  console.log()
}
if (!only || only === 'settle') {
  console.log('## Settling on events: runner time and points per settled attempt\n')
  console.log(await runSettleBench())
  console.log()
}
