/**
 * `autoloop-ci-gate doctor [--dir PATH] [--json] [--state-branch BRANCH]` (docs/commands.md: "doctor"):
 * checks a checkout's gh-aw setup. Read-only. With GITHUB_TOKEN (or GH_TOKEN) and
 * GITHUB_REPOSITORY set it also asks the API (the state branch, the default branch, and the
 * files when the folder has no `.github/workflows/`); without them it checks the files alone.
 * Exit code 1 when a check fails, 2 for bad arguments.
 */
import { parseArgs } from 'node:util'
import { resolve } from 'node:path'
import { errorMessage } from '../core/errors.js'
import type { DoctorApi } from '../ports.js'
import { runDoctor } from '../app/doctor-run.js'
import { checkoutWorkflowFolder } from '../adapters/workflow-folder.js'
import { reportJson, reportLines } from '../render/doctor-report.js'
import { branchNameProblem } from '../core/inputs.js'

export interface DoctorCliIo {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
  cwd: string
  /** The API for this environment, or null offline. */
  connect(): DoctorApi | null
}

const USAGE = 'usage: autoloop-ci-gate doctor [--dir PATH] [--json] [--state-branch BRANCH]'

export async function runDoctorCli(args: string[], io: DoctorCliIo): Promise<number> {
  let values: { dir?: string; json?: boolean; 'state-branch'?: string; help?: boolean }
  try {
    values = parseArgs({
      args,
      options: {
        dir: { type: 'string' },
        json: { type: 'boolean' },
        'state-branch': { type: 'string' },
        help: { type: 'boolean', short: 'h' }
      },
      strict: true,
      allowPositionals: false
    }).values
  } catch (error) {
    // parseArgs' errors carry the option in their message.
    const message = String((error as { message?: unknown }).message ?? errorMessage(error))
    io.stderr.write(
      `error: ${message}: the doctor takes --dir PATH, --json and --state-branch BRANCH\n${USAGE}\n`
    )
    return 2
  }
  if (values.help) {
    io.stdout.write(
      `${USAGE}\n\nChecks that a repository's gh-aw autoloop setup lets the CI gate work: one line per\n` +
        `check (ok, warn, fail, each with its fix). --dir is the checkout (default: this folder);\n` +
        `--json prints one object {"status", "source", "checks": [...]}. Set GITHUB_TOKEN and\n` +
        `GITHUB_REPOSITORY to let it ask the API too. Exit code 1 when a check fails.\n`
    )
    return 0
  }
  const stateBranch = values['state-branch'] ?? 'memory/autoloop'
  const problem = branchNameProblem(stateBranch)
  if (problem) {
    io.stderr.write(`error: --state-branch "${stateBranch}" is not a branch name: it ${problem}\n`)
    return 2
  }
  let report
  try {
    report = await runDoctor(
      { checkout: checkoutWorkflowFolder(resolve(io.cwd, values.dir ?? '.')), api: io.connect() },
      { stateBranch }
    )
  } catch (error) {
    io.stderr.write(
      `error: the doctor could not read the repository: ${errorMessage(error)}\n` +
        'Fix: check --dir, and that the token may read the repository (contents: read).\n'
    )
    return 2
  }
  io.stdout.write(values.json ? `${reportJson(report)}\n` : `${reportLines(report).join('\n')}\n`)
  return report.status === 'fail' ? 1 : 0
}
