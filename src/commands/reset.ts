/** The `reset` command (SPEC §2). Not implemented yet. */
import type { ProgramConfig } from '../inputs.js'
import type { CommandDeps, CommandResult } from './types.js'
import { ActionError } from '../errors.js'

export async function runResetCommand(
  _config: ProgramConfig,
  _deps: CommandDeps
): Promise<CommandResult> {
  throw new ActionError('The `reset` command is not available in this version', {
    fix: 'upgrade autoloop-ci-gate.'
  })
}
