/**
 * What every command returns to the shell (`main.ts`): its outputs, the job summary, and
 * whether the step must fail although the action itself worked (`fail-on-red`).
 */
import type { Outputs } from '../outputs.js'
import type { GateCommandDeps } from './gate-command.js'
import { updateState } from '../state/store.js'

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

/**
 * Changes one program's state file by compare-and-swap (`updateState`) with the command's
 * clock, jitter and log. `apply` gets the current text (null when there is none) and may run
 * more than once; the value it returns beside the text is the one of the run that was written.
 */
export async function updateProgramState<T>(
  deps: Pick<CommandDeps, 'store' | 'clock' | 'random' | 'log'>,
  program: string,
  apply: (text: string | null) => { text: string; value: T }
): Promise<{ text: string; value: T }> {
  let value: { current: T } | undefined
  const written = await updateState(
    deps.store,
    program,
    (text) => {
      const applied = apply(text)
      value = { current: applied.value }
      return applied.text
    },
    {
      clock: deps.clock,
      ...(deps.random ? { random: deps.random } : {}),
      log: { info: (line: string) => deps.log.info(line) }
    }
  )
  if (!value) throw new Error(`the state of ${program} was written without being computed`)
  return { text: written.text, value: value.current }
}
