/**
 * autoloop's own scheduler (`workflows/scripts/autoloop_scheduler.py` of githubnext/autoloop
 * at 438782ff), run on state files the gate wrote: it reads `<program>.md` from
 * /tmp/gh-aw/repo-memory/autoloop/ and program definitions from `.autoloop/programs/` in its
 * working folder, and writes its selection to /tmp/gh-aw/autoloop.json. autoloop has no
 * licence file, so the script is read where a checkout of autoloop sits beside this
 * repository and never copied; tests that need it say so and are skipped without it.
 * Its GitHub lookups (issue programs, an existing PR) get no token and a proxy that refuses
 * at once, so they fail fast as it allows.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ghAwWorld, spawnStep, startJob } from '../conformance/gh-aw-runtime.js'
import { tempDir } from './temp-dir.js'

export const SCHEDULER_PATH = resolve(
  import.meta.dirname,
  '../../../shared/autoloop/438782ff/workflows/scripts/autoloop_scheduler.py'
)

/** Why the scheduler cannot run here, or null when it can. */
export function schedulerMissing(): string | null {
  if (!existsSync(SCHEDULER_PATH))
    return `autoloop's scheduler is absent (expected at ${SCHEDULER_PATH}): its tests are skipped`
  if (spawnSync('python3', ['--version'], { stdio: 'ignore' }).status !== 0)
    return "python3 is not on PATH: the tests that run autoloop's scheduler are skipped"
  return null
}

/** What the scheduler wrote to /tmp/gh-aw/autoloop.json. */
export interface SchedulerSelection {
  selected: string | null
  deferred: string[]
  skipped: Array<{ name: string; reason: string }>
  unconfigured: string[]
  head_branch: string | null
}

export interface SchedulerRun {
  exitCode: number
  selection: SchedulerSelection | undefined
  stdout: string
}

/** A configured program definition (no placeholders), as `.autoloop/programs/<name>.md`. */
export function programDefinition(name: string): string {
  return `# ${name}\n\n## Goal\n\nRaise the ${name} metric.\n\n## Evaluation\n\n\`\`\`bash\nnpm test\n\`\`\`\n`
}

/**
 * Runs the scheduler with these state files (`<program>.md` texts, by program) in its memory
 * folder and a definition for each program (plus `definitionsOnly`, programs with no state
 * file yet); `forced` is the dispatched `program` input (AUTOLOOP_PROGRAM).
 */
export async function runScheduler(options: {
  states: Record<string, string>
  definitionsOnly?: string[]
  forced?: string
}): Promise<SchedulerRun> {
  const world = ghAwWorld(tempDir('autoloop-scheduler-'))
  const job = startJob(world, 'agent', 1)
  const memory = join(job.ghAwDir, 'repo-memory', 'autoloop')
  const programs = join(job.dir, 'workspace', '.autoloop', 'programs')
  mkdirSync(memory, { recursive: true })
  mkdirSync(programs, { recursive: true })
  for (const [name, text] of Object.entries(options.states)) {
    writeFileSync(join(memory, `${name}.md`), text)
    writeFileSync(join(programs, `${name}.md`), programDefinition(name))
  }
  for (const name of options.definitionsOnly ?? [])
    writeFileSync(join(programs, `${name}.md`), programDefinition(name))
  const refuse = 'http://127.0.0.1:9'
  const run = await spawnStep(
    job,
    ['python3', SCHEDULER_PATH],
    {
      ...job.env,
      GITHUB_TOKEN: '',
      AUTOLOOP_PROGRAM: options.forced ?? '',
      HTTPS_PROXY: refuse,
      https_proxy: refuse,
      NO_PROXY: '',
      no_proxy: ''
    },
    join(job.dir, 'workspace')
  )
  const output = join(job.ghAwDir, 'autoloop.json')
  return {
    exitCode: run.exitCode,
    stdout: run.stdout,
    selection: existsSync(output)
      ? (JSON.parse(readFileSync(output, 'utf8')) as SchedulerSelection)
      : undefined
  }
}
