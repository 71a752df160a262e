/**
 * What every command returns to the shell (`main.ts`): its outputs, the job summary, and
 * whether the step must fail although the action itself worked (`fail-on-red`).
 */
import type { Outputs } from '../outputs.js'
import type { GateCommandDeps } from './gate-command.js'

export interface CommandResult {
  outputs: Outputs
  /** Markdown for the job summary. */
  summary: string
  /** One line for the log. */
  message: string
  failure?: string
}

/** The adapters every command gets (the same set as the gate). */
export type CommandDeps = GateCommandDeps
