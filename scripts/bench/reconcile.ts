/**
 * What `reconcile` costs in REST rate-limit points for many programs on the state branch:
 * read with one shallow git fetch (the default), and read file by file through the contents
 * API (what it does when git cannot read the branch), for programs that are all idle and
 * for a mix where some need action (an attempt left in flight by a finished run, a state
 * file reverted by another run's memory push). In-process, against the in-repo fake API.
 *
 *   npx tsx scripts/bench/reconcile.ts [--programs 300]
 */
import { parseArgs } from 'node:util'
import { runOnFreshFake, type InProcessOptions } from '../../__fixtures__/run-in-process.js'
import {
  beginAttempt,
  completeAttempt,
  emptyLedger,
  ledgerPath,
  serializeLedger,
  type Ledger
} from '../../src/core/ledger.js'
import { projectStateFile } from '../../src/statefile/projection.js'
import { createStateFile } from '../../src/statefile/template.js'

const START = Date.parse('2026-03-01T12:00:00Z')
const SHA = (n: number) => n.toString(16).padStart(40, 'a')

/** A program gated once, green, its state file projected from its ledger: idle. */
function idleProgram(name: string, n: number): { ledger: Ledger; files: Record<string, string> } {
  const began = beginAttempt(emptyLedger(name, START), {
    sha: SHA(n),
    runId: 100 + n,
    now: START,
    maxFixAttempts: 5,
    timeoutMinutes: 60
  })
  const ledger: Ledger = {
    ...completeAttempt(began.ledger, 0, { state: 'green', now: START + 60_000 }),
    revision: 2
  }
  return { ledger, files: filesOf(name, ledger) }
}

function filesOf(name: string, ledger: Ledger): Record<string, string> {
  return {
    [`${name}.md`]: projectStateFile(createStateFile(name), ledger, {
      program: name,
      maxBytes: 30_720
    }),
    [ledgerPath(name)]: serializeLedger(ledger)
  }
}

/** An attempt left in flight by run `runId`, which has finished (the fake knows no such run). */
function abandonedProgram(name: string, n: number): Record<string, string> {
  const began = beginAttempt(emptyLedger(name, START), {
    sha: SHA(n),
    runId: 900 + n,
    now: START,
    maxFixAttempts: 5,
    timeoutMinutes: 60
  })
  return filesOf(name, { ...began.ledger, revision: 1 })
}

interface Figures {
  points: number
  requests: number
  gitRequests: number
  acted: string
}

async function reconcileOnce(
  programs: number,
  needAction: number,
  withGit: boolean
): Promise<Figures> {
  const contents: Record<string, string> = {}
  const reverted: string[] = []
  for (let n = 0; n < programs; n += 1) {
    const name = `program-${String(n).padStart(3, '0')}`
    if (n < needAction && n % 2 === 0) Object.assign(contents, abandonedProgram(name, n))
    else {
      const idle = idleProgram(name, n)
      Object.assign(contents, idle.files)
      // Another run's memory push put back the file as it was before the gate wrote it.
      if (n < needAction) {
        contents[`${name}.md`] = createStateFile(name)
        reverted.push(name)
      }
    }
  }
  const scenario = { startTime: START + 3 * 3600_000, contents: { 'memory/autoloop': contents } }
  const options: InProcessOptions = {
    inputs: { command: 'reconcile' },
    ...(withGit ? {} : { adapt: ({ memoryBranch: _ignored, ...adapters }) => adapters })
  }
  return runOnFreshFake(scenario, options, (fake, run) => {
    if (run.outputs.status !== 'reconciled')
      throw new Error(`reconcile ended ${run.outputs.status}: ${run.errors.join('; ')}`)
    const abandoned = JSON.parse(run.outputs.abandoned ?? '[]') as string[]
    return {
      points: fake.rateLimit.pointsSpent,
      requests: fake.rateLimit.requestsSent,
      gitRequests: fake.gitRequests.length,
      acted: `${abandoned.length} abandoned, ${reverted.length} projected again`
    }
  })
}

export async function runReconcileBench(programs = 300): Promise<string> {
  const rows: [string, Figures][] = [
    [`${programs} idle programs, read with git`, await reconcileOnce(programs, 0, true)],
    [
      `${programs} idle programs, read through the contents API`,
      await reconcileOnce(programs, 0, false)
    ],
    [
      `${programs} programs, 10 needing action, read with git`,
      await reconcileOnce(programs, 10, true)
    ]
  ]
  return [
    `\`reconcile\` over ${programs} programs on the state branch (each with \`<program>.md\` and its ledger), in-process against the fake API.`,
    '',
    '| case | REST requests | rate-limit points | git requests | what it did |',
    '|---|---:|---:|---:|---|',
    ...rows.map(
      ([name, f]) => `| ${name} | ${f.requests} | ${f.points} | ${f.gitRequests} | ${f.acted} |`
    )
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { programs: { type: 'string' } } })
  console.log(await runReconcileBench(values.programs ? Number(values.programs) : 300))
}
