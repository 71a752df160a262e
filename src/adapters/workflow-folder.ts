/**
 * A checkout's `.github/workflows/` folder, as the doctor reads it (docs/commands.md: "doctor").
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ActionError, errorMessage } from '../core/errors.js'
import { WORKFLOWS_DIR } from '../core/doctor/model.js'
import type { WorkflowFolder } from '../ports.js'

/** The workflow folder of the checkout in `dir`; a file it cannot read is an error that names it. */
export function checkoutWorkflowFolder(dir: string): WorkflowFolder {
  const folder = join(dir, WORKFLOWS_DIR)
  return {
    source: `local: ${dir}`,
    async names() {
      try {
        return await readdir(folder)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
        throw error
      }
    },
    async read(name) {
      try {
        return await readFile(join(folder, name), 'utf8')
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? errorMessage(error)
        throw new ActionError(`cannot read ${WORKFLOWS_DIR}/${name} in ${dir} (${code})`, {
          fix: 'make it a readable file, or run the doctor on another checkout (--dir)'
        })
      }
    }
  }
}
