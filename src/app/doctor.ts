/**
 * The `doctor` command (docs/commands.md: "doctor"): checks that the repository's gh-aw setup lets the
 * loop work, read-only. One log line per check, a table in the job summary, `status`
 * `ok`/`warn`/`fail`, the report as JSON in the `doctor` output; the step fails on any `fail`.
 * `reconcile` runs the same checks fail-soft (`doctorForReconcile`).
 */
import type { Config } from '../core/inputs.js'
import { errorMessage } from '../core/errors.js'
import { oneLine } from '../core/text/untrusted.js'
import type { DoctorReport } from '../core/doctor/model.js'
import { type DoctorApi } from '../ports.js'
import { runDoctor, type DoctorSources } from './doctor-run.js'
import { reportJson, reportLines, reportMarkdown, reportTable } from '../render/doctor-report.js'
import type { CommandDeps, CommandResult } from './command-deps.js'

function apiOf(deps: CommandDeps): DoctorApi | null {
  const contents = deps.repoContents
  if (!contents) return null
  return {
    defaultBranch: () => deps.github.defaultBranch(),
    branchHead: (branch) => deps.github.branchHead(branch),
    getFile: (branch, path) => contents.getFile(branch, path),
    listDir: (branch, path) => contents.listDir(branch, path)
  }
}

function diagnoseRepository(
  config: Config,
  deps: CommandDeps,
  sources: Partial<DoctorSources> = {}
): Promise<DoctorReport> {
  return runDoctor(
    { checkout: deps.checkoutWorkflows, api: apiOf(deps), ...sources },
    { stateBranch: config.stateBranch }
  )
}

export async function runDoctorCommand(config: Config, deps: CommandDeps): Promise<CommandResult> {
  const report = await diagnoseRepository(config, deps)
  for (const line of reportLines(report)) deps.log.info(line)
  const failed = report.checks.filter((f) => f.level === 'fail').map((f) => f.id)
  return {
    outputs: { status: report.status, doctor: reportJson(report) },
    summary: reportMarkdown(report),
    message: `doctor: ${report.status} (read ${report.source})`,
    ...(failed.length > 0
      ? {
          failure: `doctor: ${failed.length} check(s) failed: ${failed.join(', ')}. Each one's fix is in the log and the job summary.`
        }
      : {})
  }
}

/**
 * The doctor as `reconcile` runs it: never throws, and sends no API request (reconcile's cost
 * stays what its programs need): it reads the checkout, and takes the state branch's existence
 * from reconcile's own read. Returns the summary section (empty when the workspace has no
 * autoloop workflow or every check is ok) and the `doctor` output.
 */
export async function doctorForReconcile(
  config: Config,
  deps: CommandDeps,
  known?: DoctorSources['known']
): Promise<{ summary: string; output: string }> {
  try {
    const report = await diagnoseRepository(config, deps, {
      api: null,
      ...(known ? { known } : {})
    })
    if (!report.found) return { summary: '', output: '' }
    const problems = report.checks.filter((f) => f.level !== 'ok')
    // A failed check is a warning on the run; a warning is a log line.
    for (const finding of problems) {
      const line = `doctor: ${finding.id}: ${finding.message}. Fix: ${finding.fix ?? ''}`
      if (finding.level === 'fail') deps.log.warning(line)
      else deps.log.info(line)
    }
    const summary =
      problems.length === 0
        ? ''
        : `\n### Setup (doctor): ${report.status}\n\n${reportTable(report, true)}\n`
    return { summary, output: reportJson(report) }
  } catch (error) {
    const reason = errorMessage(error).split('\n')[0] ?? ''
    deps.log.warning(`doctor could not run (reconcile goes on): ${reason}`)
    return {
      summary: `\n### Setup (doctor)\n\nThe doctor could not run: ${oneLine(reason, 300)}\n`,
      output: ''
    }
  }
}
