/**
 * The doctor's adapter (README: "doctor"): reads the workflow files from a checkout, or through
 * the contents API when the checkout has none, asks the API what only it knows (the default
 * branch, whether the state branch exists), and hands everything to the pure checks.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { errorMessage } from '../errors.js'
import { stateBranchOf, type DoctorOptions } from './checks.js'
import {
  LOCK_FILE,
  WORKFLOW_FILE,
  WORKFLOWS_DIR,
  type DoctorReport,
  type RepoFacts,
  type RepoFile,
  type SetupFiles
} from './model.js'
import { diagnose } from './report.js'
import { parseSetup } from './setup.js'

/** Other workflow files read at most (one contents request each). */
export const MAX_OTHER_WORKFLOWS = 40

/** What the doctor asks the API; RestGitHub implements it. */
export interface DoctorApi {
  defaultBranch(): Promise<string>
  branchHead(branch: string): Promise<string | null>
  getFile(branch: string, path: string): Promise<{ text: string } | null>
  /** File names directly under `path`; empty when the folder does not exist. */
  listDir(branch: string, path: string): Promise<string[]>
}

export interface DoctorSources {
  /** The repository checkout; its files win when it has `.github/workflows/`. */
  dir: string | null
  /** The API; absent offline. */
  api: DoctorApi | null
}

const WORKFLOW_NAME = WORKFLOW_FILE.split('/').pop() as string
const LOCK_NAME = LOCK_FILE.split('/').pop() as string

/** Which files of `.github/workflows/` the doctor reads. */
function pick(names: readonly string[]): { others: string[]; skipped: number } {
  const others = names.filter((name) => /\.ya?ml$/.test(name) && !name.endsWith('.lock.yml')).sort()
  return {
    others: others.slice(0, MAX_OTHER_WORKFLOWS),
    skipped: Math.max(0, others.length - MAX_OTHER_WORKFLOWS)
  }
}

async function readLocal(dir: string): Promise<SetupFiles | null> {
  let names: string[]
  try {
    names = await readdir(join(dir, WORKFLOWS_DIR))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
  const read = async (name: string): Promise<RepoFile | null> =>
    names.includes(name)
      ? {
          path: `${WORKFLOWS_DIR}/${name}`,
          text: await readFile(join(dir, WORKFLOWS_DIR, name), 'utf8')
        }
      : null
  const { others, skipped } = pick(names)
  return {
    source: `local: ${dir}`,
    workflow: await read(WORKFLOW_NAME),
    lock: await read(LOCK_NAME),
    others: (await Promise.all(others.map(read))).filter((f): f is RepoFile => f !== null),
    skipped
  }
}

async function readApi(api: DoctorApi, branch: string): Promise<SetupFiles> {
  const names = await api.listDir(branch, WORKFLOWS_DIR)
  const read = async (name: string): Promise<RepoFile | null> => {
    if (!names.includes(name)) return null
    const file = await api.getFile(branch, `${WORKFLOWS_DIR}/${name}`)
    return file ? { path: `${WORKFLOWS_DIR}/${name}`, text: file.text } : null
  }
  const workflow = await read(WORKFLOW_NAME)
  // Without the autoloop workflow there is nothing to check: read nothing more.
  const { others, skipped } = workflow ? pick(names) : { others: [], skipped: 0 }
  return {
    source: `contents API at ${branch}`,
    workflow,
    lock: workflow ? await read(LOCK_NAME) : null,
    others: (await Promise.all(others.map(read))).filter((f): f is RepoFile => f !== null),
    skipped
  }
}

/**
 * Reads the setup and checks it. Throws only when neither the checkout nor the API can be read.
 */
export async function runDoctor(
  sources: DoctorSources,
  options: DoctorOptions
): Promise<DoctorReport> {
  const { api } = sources
  const local = sources.dir ? await readLocal(sources.dir) : null
  const defaultBranch = api ? await api.defaultBranch() : null
  let files = local
  if (!files) {
    if (!api || defaultBranch === null)
      return diagnose(
        parseSetup({
          source: sources.dir
            ? `local: ${sources.dir} (no ${WORKFLOWS_DIR}/)`
            : 'nothing (no checkout, no API)',
          workflow: null,
          lock: null,
          others: [],
          skipped: 0
        }),
        { defaultBranch: null, stateBranchExists: null },
        options
      )
    files = await readApi(api, defaultBranch)
  }
  const setup = parseSetup(files)
  const facts: RepoFacts = { defaultBranch, stateBranchExists: null }
  if (setup.workflow) {
    if (!api) facts.stateBranchNote = 'offline (no token or repository to ask the API)'
    else {
      try {
        facts.stateBranchExists = (await api.branchHead(stateBranchOf(setup, options))) !== null
      } catch (error) {
        facts.stateBranchNote = `the API answered: ${errorMessage(error).split('\n')[0]}`
      }
    }
  }
  return diagnose(setup, facts, options)
}
