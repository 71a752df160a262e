/**
 * The ledger's size bound on the write path: `compactLedger` runs on every state write (at
 * least twice), so its cost per call on ledgers of the sizes a loop reaches is measured here.
 * Real time, on this machine: a benchmark, never a test.
 */
import { markdownTable } from 'markdown-table'
import {
  compactLedger,
  LEDGER_LIMITS,
  serializeLedger,
  type Ledger
} from '../../src/core/ledger.js'
import { redAttempts, sig } from '../../__tests__/core/ledger-helpers.js'

function microseconds(ledger: Ledger, calls: number): number {
  for (let i = 0; i < Math.min(200, calls); i += 1) compactLedger(ledger)
  const started = performance.now()
  for (let i = 0; i < calls; i += 1) compactLedger(ledger)
  return ((performance.now() - started) / calls) * 1000
}

export function runLedgerBench(): string {
  const rows = [2, 8, LEDGER_LIMITS.maxAttemptRecords].map((attempts) => {
    // Each attempt red on 20 keys of its own.
    const signature = (i: number) =>
      sig(
        `attempt-${i}`,
        Array.from({ length: 20 }, (_, k) => `jest:tests/a${i}.test.ts>case ${k} fails`)
      )
    const ledger = redAttempts(Array.from({ length: attempts }, (_, i) => signature(i)))
    const bytes = Buffer.byteLength(serializeLedger(ledger))
    return [
      String(ledger.attempts.length),
      String(bytes),
      microseconds(ledger, attempts > 20 ? 300 : 2000).toFixed(1)
    ]
  })
  return markdownTable([['attempts', 'ledger bytes', 'compactLedger µs per call'], ...rows], {
    align: ['r', 'r', 'r']
  })
}
