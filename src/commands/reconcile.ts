/** The `reconcile` command (SPEC §2). Not implemented yet. */
import type { Config } from '../inputs.js'
import type { CommandDeps, CommandResult } from './types.js'
import { ActionError } from '../errors.js'

export async function runReconcileCommand(
  _config: Config,
  _deps: CommandDeps
): Promise<CommandResult> {
  throw new ActionError('The `reconcile` command is not available in this version', {
    fix: 'upgrade autoloop-ci-gate.'
  })
}
