/**
 * The `settle` command (README: "Settling on events"): a gate begun with `wait: false` left its
 * attempt in the ledger, waiting, and exited. A GitHub event (a CI workflow run completed, a
 * check suite or status, a dispatch) starts `settle`; the scheduled `reconcile` calls it too,
 * for the events that never come. It finds the programs whose attempt waits on the event's
 * commit, reads that commit's checks once (the event is never the verdict), and when CI has
 * finished settles the attempt exactly as the polling gate would: the same observe → decide →
 * apply path (`gate/observe.ts`, `core/rules/decide.ts`, `gate/apply.ts`), with the settings
 * the gate recorded. While CI still runs it writes no verdict and exits.
 */
import type { Config, ProgramConfig } from '../core/inputs.js'
import { forProgram } from '../core/inputs.js'
import { checkPolicy } from '../core/checks/policy.js'
import { settleTargetOf, type SettleTarget } from '../core/events.js'
import { latestAttempt, type Attempt } from '../core/ledger.js'
import type { Waits } from '../core/waits.js'
import { isProgramName } from '../core/schema.js'
import { ActionError, errorMessage } from '../core/errors.js'
import type { StateStore } from '../ports.js'
import type { CommandDeps, CommandResult } from './command-deps.js'
import { programSource, readProgramFiles } from './snapshot-store.js'
import type { ProgramFiles } from './program-files.js'
import { observe } from './gate/observe.js'
import { settle, waitingReport } from './gate/apply.js'
import { stoppedReason, type GateRun } from './gate/run.js'
import {
  gateOutputs,
  gateSummaryMarkdown,
  skippedReport,
  statusOf,
  type GateReport,
  type Outputs
} from './outputs.js'

/** The attempt a program's ledger has waiting on events, if any. */
export function waitingAttempt(files: ProgramFiles): (Attempt & { waits: Waits }) | null {
  const latest = latestAttempt(files.ledger)
  const open = files.ledger.iteration !== null && files.ledger.iteration.finishedAt === null
  return open && latest?.state === 'in-flight' && latest.waits
    ? (latest as Attempt & { waits: Waits })
    : null
}

/** The gate's configuration as it began the attempt, for this program (see `Waits`). */
function gateConfigOf(config: Config, program: string, waits: Waits, sha: string): ProgramConfig {
  return {
    ...forProgram(config, program),
    branch: waits.branch,
    base: waits.base ?? undefined,
    sha,
    push: false,
    pr: waits.pr ?? undefined,
    createPr: false,
    issue: waits.issue ?? undefined,
    requiredChecks: waits.rules.requiredChecks,
    ignoreChecks: waits.rules.ignoreChecks,
    failFast: waits.rules.failFast,
    allowNoChecks: waits.rules.allowNoChecks,
    checksGraceSeconds: waits.rules.checksGraceSeconds,
    dispatchWorkflow: waits.fix.dispatchWorkflow ?? undefined,
    dispatchRef: waits.fix.dispatchRef ?? undefined,
    dispatchInputs: waits.fix.dispatchInputs,
    preExistingFailures: waits.fix.preExistingFailures,
    rerunFailed: waits.fix.rerunFailed,
    pushToken: waits.pushToken ? 'recorded' : undefined,
    fixCommand: undefined,
    wait: false,
    iterationFile: undefined,
    selectionFile: undefined,
    safeOutputsResult: undefined
  }
}

/**
 * Settles the attempt `files` has waiting, if CI on its commit has finished: the report of the
 * settlement, or of the wait (no verdict written) while CI still runs.
 */
export async function settleWaiting(
  config: Config,
  deps: CommandDeps,
  files: ProgramFiles,
  attempt: Attempt & { waits: Waits },
  store: StateStore = deps.store
): Promise<GateReport> {
  const { waits } = attempt
  const program = files.program
  const stopped = stoppedReason(files)
  if (stopped)
    return skippedReport(`Program ${program} is ${stopped}: its waiting attempt is left as it is.`)
  const run: GateRun = {
    config: gateConfigOf(config, program, waits, attempt.sha),
    deps: { ...deps, store },
    report: waits.report ?? undefined,
    known: files,
    standing: null,
    policy: checkPolicy(waits.rules, waits.gateRunId ?? undefined)
  }
  const head = { sha: attempt.sha, pushed: waits.pushed }
  const began = { kind: 'resumed' as const, ledger: files.ledger, attempt, files }
  const looked = await observe(run, began, head, null, 'once')
  if ('kind' in looked)
    return waitingReport(
      files.ledger,
      attempt,
      `CI on ${attempt.sha.slice(0, 12)} is still running (${looked.waitingFor.slice(0, 8).join(', ') || 'nothing reported yet'}): attempt ${attempt.index} of ${program} waits, no verdict written`,
      looked.waitingFor
    )
  const settled = await deps.log.group(
    `Decide and apply: attempt ${attempt.index} of ${program}`,
    () => settle(run, files.ledger, looked.observed, looked.seen)
  )
  return settled.result
}

/** The program the target names: the `program` input, or the one a dispatch names. */
function namedProgram(config: Config, target: SettleTarget): string | null {
  if (config.program) return config.program
  if (target.kind === 'waiting') return target.program
  return null
}

interface Found {
  program: string
  report: GateReport
}

export async function runSettleCommand(config: Config, deps: CommandDeps): Promise<CommandResult> {
  const target = await readTarget(deps)
  if (target.kind === 'ignored') return ignored(target.why, deps)
  const named = namedProgram(config, target)
  if (named !== null && !isProgramName(named))
    return ignored(`the event names "${named}", which is not a program name`, deps)
  const { programs, store, label, head } = await programSource(config, deps)
  const candidates = named !== null ? programs.filter((p) => p === named) : programs
  if (named !== null && candidates.length === 0)
    return ignored(`no program ${named} in the state store (${label})`, deps)
  const found: Found[] = []
  const looked: string[] = []
  for (const program of candidates) {
    let files: ProgramFiles | null
    try {
      files = await readProgramFiles(program, store, { config, deps }, head)
    } catch (error) {
      // A malformed ledger of a program this event is about is an error, as in the gate.
      if (named !== null) throw error
      deps.log.warning(`${program}: ${errorMessage(error)} (left as it is)`)
      continue
    }
    const attempt = files ? waitingAttempt(files) : null
    if (!files || !attempt) continue
    if (target.kind === 'commit' && attempt.sha !== target.sha) {
      looked.push(`${program} waits on ${attempt.sha.slice(0, 12)}, not this commit`)
      continue
    }
    found.push({ program, report: await settleWaiting(config, deps, files, attempt, store) })
  }
  const what =
    target.kind === 'commit' ? `${target.what} on ${target.sha.slice(0, 12)}` : target.what
  if (found.length === 0)
    return ignored(
      `${what}: no attempt waits on ${target.kind === 'commit' ? 'this commit' : 'events'}${looked.length > 0 ? ` (${looked.join('; ')})` : ''}`,
      deps
    )
  const first = found[0] as Found
  const outputs: Outputs =
    found.length === 1
      ? gateOutputs(first.report)
      : {
          status: found.some((f) => f.report.settlement.kind !== 'waiting') ? 'settled' : 'waiting'
        }
  const summary = [
    `## autoloop-ci-gate: settle`,
    '',
    `Started by: ${what}. Read ${label}.`,
    '',
    ...found.map((f) => gateSummaryMarkdown(f.program, f.report))
  ].join('\n')
  return {
    outputs,
    summary,
    message: found
      .map((f) => `${f.program}: ${statusOf(f.report.settlement)}: ${f.report.message}`)
      .join('\n')
  }
}

function ignored(why: string, deps: CommandDeps): CommandResult {
  deps.log.info(`Nothing to settle: ${why}`)
  return {
    outputs: { status: 'ignored' },
    summary: `## autoloop-ci-gate: settle\n\nNothing to settle: ${why}.\n`,
    message: `Nothing to settle: ${why}`
  }
}

/** The event of this run, from GITHUB_EVENT_NAME and GITHUB_EVENT_PATH. */
async function readTarget(deps: CommandDeps): Promise<SettleTarget> {
  const { eventName, eventPath } = deps.environment
  if (!eventPath) return settleTargetOf(eventName, {})
  let text: string | null
  try {
    text = await deps.readFile(eventPath)
  } catch (error) {
    throw new ActionError(`Cannot read the event payload ${eventPath}: ${errorMessage(error)}`, {
      fix: 'run settle from a workflow triggered by the event (GitHub writes GITHUB_EVENT_PATH), or unset GITHUB_EVENT_PATH for the CLI'
    })
  }
  let payload: unknown
  try {
    payload = text === null ? {} : (JSON.parse(text) as unknown)
  } catch {
    return { kind: 'ignored', why: `the event payload ${eventPath} is not JSON` }
  }
  return settleTargetOf(eventName, payload)
}
