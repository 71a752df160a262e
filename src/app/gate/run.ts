/**
 * One gate run's context, shared by its phases (README: "The fix loop"): the program's
 * configuration, the ports, what the agent handed over, and the program's files as this run
 * last read or wrote them, from which every write starts.
 */
import type { ReducePolicy } from '../../core/checks/reduce.js'
import type { ProgramConfig } from '../../core/inputs.js'
import type { BranchStanding } from '../../core/github.js'
import type { IterationReport } from '../../statefile/handover.js'
import type { Ledger } from '../../core/ledger.js'
import { decide, type Observed, type Settlement } from '../../core/rules/decide.js'
import { updateProgram, type ProgramFiles, type ProgramUpdate } from '../program-files.js'
import type { CommandDeps } from '../command-deps.js'

export interface GateRun {
  config: ProgramConfig
  deps: CommandDeps
  /** The agent's iteration file: undefined without `iteration-file`, null when it is missing. */
  report: IterationReport | null | undefined
  policy?: ReducePolicy
  /**
   * The program's files as this run last read or wrote them: each write starts from them
   * instead of reading them again (a conflict reads them again). Undefined until read.
   */
  known?: ProgramFiles
  /**
   * Where the branch stood when the gate started (its head commit, its open PR, the bases'
   * heads), read with the program's files; null when it was not read at once (each is asked
   * for on its own). Used for the first commit gated only.
   */
  standing?: BranchStanding | null
}

/** A compare-and-swap write of the program's ledger (and its projection), from the ledger as last known. */
export async function write<T>(
  run: GateRun,
  apply: (current: ProgramFiles) => { ledger: Ledger; value: T }
): Promise<ProgramUpdate<T>> {
  const { config, deps } = run
  const written = await updateProgram(
    deps,
    config.program,
    { maxBytes: config.stateMaxBytes, ...(run.known ? { known: run.known } : {}) },
    apply
  )
  run.known = written.files
  return written
}

export function stoppedReason(files: ProgramFiles): string | null {
  const { machine } = files
  if (machine.completed)
    return `completed${machine.completedReason ? ` (${machine.completedReason})` : ''}`
  if (machine.paused) return `paused: ${machine.pauseReason ?? 'no reason given'}`
  return null
}

/** The iteration an attempt was settled in (every settled attempt has one). */
export function iterationOf(ledger: Ledger): NonNullable<Ledger['iteration']> {
  if (!ledger.iteration) throw new RangeError('a settled attempt belongs to an iteration')
  return ledger.iteration
}

export function decideOn(run: GateRun, ledger: Ledger, observed: Observed): Settlement {
  const { config, deps } = run
  return decide({
    ledger,
    observed,
    config: {
      preExistingFailures: config.preExistingFailures,
      dispatchWorkflow: Boolean(config.dispatchWorkflow),
      fixCommand: Boolean(config.fixCommand)
    },
    now: deps.clock.now(),
    maskedValues: deps.maskedValues
  })
}
