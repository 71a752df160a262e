/** The `record` command (SPEC §2). Not implemented yet. */
import type { ProgramConfig } from '../inputs.js'
import type { CommandDeps, CommandResult } from './types.js'
import { ActionError } from '../errors.js'

export async function runRecordCommand(
  _config: ProgramConfig,
  _deps: CommandDeps
): Promise<CommandResult> {
  throw new ActionError('The `record` command is not available in this version', {
    fix: 'upgrade autoloop-ci-gate.'
  })
}
