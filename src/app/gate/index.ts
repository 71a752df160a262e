/**
 * The `gate` command: one attempt of the CI fix loop of an iteration (docs/decisions.md: "The
 * fix loop"), read top to bottom, one log group per phase:
 *
 * 1. the program (the `program` input, or the scheduler's selection a gh-aw workflow handed
 *    over) and the agent's iteration file; the program's files, read once and kept in the
 *    run's context (`run.ts`), every write starting from them;
 * 2. the commit (pushed here, given, or the branch head; gh-aw's empty CI-trigger commit is
 *    told apart), whether a fix could have arrived, the PR (`observe.ts`);
 * 3. the attempt written `in-flight` in the ledger before waiting (`apply.ts`);
 * 4. the checks waited for, and for a red verdict whose failures they are (`observe.ts`);
 * 5. the settlement `decide` makes of it (`core/rules/decide.ts`, pure), written in one
 *    compare-and-swap and applied: the failure summary, the comment, the fixer run
 *    (`apply.ts`);
 * 6. with `fix-command`: it runs, and its commit is gated again in the same step.
 */
import type { Config, ProgramConfig } from '../../core/inputs.js'
import { forProgram } from '../../core/inputs.js'
import {
  parseIterationFile,
  parseSelection,
  type IterationReport
} from '../../statefile/handover.js'
import { beginKind } from '../../core/ledger.js'
import { readProgram, type ProgramFiles } from '../program-files.js'
import { ActionError, errorMessage } from '../../core/errors.js'
import {
  gateOutputs,
  gateSummaryMarkdown,
  signatureOfSettlement,
  skippedReport,
  statusOf,
  verdictOf,
  type GateReport
} from '../outputs.js'
import type { CommandDeps, CommandResult } from '../command-deps.js'
import type { Observed } from '../../core/rules/decide.js'
import {
  begin,
  fixCommittedNothing,
  recordWithoutCommit,
  runFixCommand,
  settle,
  begunAndWaiting
} from './apply.js'
import {
  ciTriggerParent,
  findOrOpenPull,
  noFixArrived,
  NOTHING_SEEN,
  observe,
  readStanding,
  resolveHead,
  type GatedHead
} from './observe.js'
import { stoppedReason, type GateRun } from './run.js'
async function readHandedOver(deps: CommandDeps, path: string): Promise<string | null> {
  try {
    return await deps.readFile(path)
  } catch (error) {
    throw new ActionError(`Cannot read ${path}: ${errorMessage(error)}`, {
      fix: 'check the path, and that the job downloaded the agent artifact before this step'
    })
  }
}

type Target = { config: ProgramConfig } | { skip: string }

async function resolveTarget(config: Config, deps: CommandDeps): Promise<Target> {
  if (config.program) return { config: forProgram(config, config.program) }
  const path = config.selectionFile as string
  const text = await readHandedOver(deps, path)
  if (text === null)
    return {
      skip: `No selection file at ${path} and no \`program\` input: the agent job handed over no program (it failed before its post-step, or the scheduler selected none). Nothing to gate; \`reconcile\` resolves a fix loop that waits on this run.`
    }
  const selection = parseSelection(text, path)
  if (selection.program === null)
    return { skip: `The scheduler selected no program this run (${path}): nothing to gate.` }
  const program = selection.program
  deps.log.info(`Program ${program} (from the scheduler's selection in ${path})`)
  return {
    config: {
      ...forProgram(config, program),
      issue: config.issue ?? selection.issue,
      pr: config.pr ?? selection.pr
    }
  }
}

async function readReport(
  run: Pick<GateRun, 'config' | 'deps'>
): Promise<IterationReport | null | undefined> {
  const path = run.config.iterationFile
  if (!path) return undefined
  const text = await readHandedOver(run.deps, path)
  return text === null ? null : parseIterationFile(text, path, run.config.program)
}

export async function runGateCommand(config: Config, deps: CommandDeps): Promise<CommandResult> {
  const target = await resolveTarget(config, deps)
  if ('skip' in target) {
    return {
      outputs: { status: 'skipped' },
      summary: `## autoloop-ci-gate: gate\n\n${target.skip}\n`,
      message: target.skip
    }
  }
  const run: GateRun = { config: target.config, deps, report: undefined }
  // A malformed iteration file stops the gate here, before anything is written.
  run.report = await readReport(run)
  const result = await gateProgram(run)
  const status = statusOf(result.settlement)
  const red = status === 'failure' || status === 'paused'
  return {
    outputs: gateOutputs(result),
    summary: gateSummaryMarkdown(run.config.program, result),
    message: result.message,
    ...(red && config.failOnRed ? { failure: `${result.message} (fail-on-red is set)` } : {})
  }
}

async function gateProgram(run: GateRun): Promise<GateReport> {
  const { config, deps } = run
  // Asked for together: with the state on a branch, one GraphQL request reads both.
  const [initial, standing] = await deps.log.group(`Read the state of ${config.program}`, () =>
    Promise.all([
      readProgram(deps.store, config.program, {
        maxBytes: config.stateMaxBytes,
        now: deps.clock.now()
      }),
      readStanding(config, deps)
    ])
  )
  run.known = initial
  run.standing = standing
  const stopped = stoppedReason(initial)
  if (stopped) {
    return skippedReport(
      `Program ${config.program} is ${stopped}; the gate does nothing (and starts no fixer). Run the reset command, or push a fix and let reconcile resume it.`,
      { pauseReason: initial.machine.paused ? initial.machine.pauseReason : null }
    )
  }
  let knownPull = config.pr ?? initial.machine.pr ?? undefined
  let head = await resolveHead(config, deps, standing)
  const steps: { attempt: number; sha: string; verdict: string; signature: string | null }[] = []
  for (;;) {
    const target = head
    const commit = await deps.log.group(
      `The commit ${target.sha.slice(0, 12)} and its PR`,
      async () => {
        const agentSha = target.pushed
          ? null
          : await ciTriggerParent(target.sha, deps, run.standing)
        if (agentSha)
          deps.log.info(
            `${target.sha.slice(0, 12)} is gh-aw's empty CI-trigger commit on the agent's ${agentSha.slice(0, 12)}: gating it, recording both`
          )
        requireReportForNewCommit(run, initial, target)
        const noFix = steps.length === 0 ? await noFixArrived(run, initial, target) : null
        return noFix
          ? { agentSha, noFix, pull: null }
          : {
              agentSha,
              noFix,
              pull: await findOrOpenPull(config, deps, knownPull, run.standing)
            }
      }
    )
    if (commit.noFix) {
      const observed: Observed = { kind: 'no-fix-arrived', ...commit.noFix }
      const settled = await deps.log.group(`Decide and apply: no fix arrived`, () =>
        settle(run, initial.ledger, observed, NOTHING_SEEN)
      )
      return { ...settled.result, steps }
    }
    const { agentSha, pull } = commit
    if (pull) knownPull = pull.number
    const began = await deps.log.group(`Begin an attempt on ${head.sha.slice(0, 12)}`, () =>
      begin(run, target, agentSha, pull)
    )
    if ('stopped' in began)
      return skippedReport(
        `Program ${config.program} was ${began.stopped} by another run while this gate started; nothing was recorded.`
      )
    if (began.kind === 'already-gated') return recordWithoutCommit(run, began, head)
    if (!config.wait && began.kind !== 'no-new-commit')
      return { ...begunAndWaiting(began, head), steps }
    const { observed, seen } =
      began.kind === 'no-new-commit'
        ? {
            observed: { kind: 'no-new-commit' as const, index: began.attempt.index },
            seen: NOTHING_SEEN
          }
        : await deps.log.group(`Observe ${head.sha.slice(0, 12)}: checks and failures`, () =>
            observeUntilDone(run, began, target, pull)
          )
    const { result, fix } = await deps.log.group(
      `Decide and apply: attempt ${began.attempt.index}`,
      () => settle(run, began.ledger, observed, seen)
    )
    steps.push({
      attempt: result.attempt?.index ?? began.attempt.index,
      sha: head.sha,
      verdict: verdictOf(result.settlement) ?? 'red',
      signature: signatureOfSettlement(result.settlement)?.short ?? null
    })
    if (!fix) return { ...result, steps }
    const after = await deps.log.group(`fix-command for attempt ${fix.attempt.index + 1}`, () =>
      runFixCommand(run, fix)
    )
    if (after === head.sha) return { ...(await fixCommittedNothing(run, head, agentSha)), steps }
    // The fix is a new commit: where the branch stands is asked for again.
    run.standing = null
    head = await resolveHead({ ...config, sha: after }, deps)
  }
}

/** The polling gate's observation: its look waits until CI has completed (or the wall clock). */
async function observeUntilDone(...args: Parameters<typeof observe>) {
  const observed = await observe(...args)
  if ('kind' in observed) throw new RangeError('the polling gate waits until CI has completed')
  return observed
}

/**
 * A new commit to gate needs the agent's iteration file (when `iteration-file` is set): it is
 * an error, before anything is written, when the agent did not write it.
 */
function requireReportForNewCommit(run: GateRun, files: ProgramFiles, head: GatedHead): void {
  if (run.report !== null) return
  const kind = beginKind(files.ledger, { sha: head.sha, runId: run.deps.environment.runId ?? null })
  if (kind === 'first' || kind === 'fix')
    throw new ActionError(
      `The iteration file ${run.config.iterationFile} is missing, but ${head.sha.slice(0, 12)} on ${run.config.branch} is a new commit to gate: the agent must write the file whenever it pushes`,
      {
        fix: 'have the agent write {"metric": …, "improved": …, "change": "…"} (docs/gh-aw.md: "The files the workflow hands to the gate"); nothing was written'
      }
    )
}
