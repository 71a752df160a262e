/**
 * The doctor's adapter (docs/commands.md: "doctor"): reads the workflow files from a checkout, or through
 * the contents API when the checkout has none, asks the API what only it knows (the default
 * branch, whether the state branch exists), and hands everything to the pure checks.
 */
import type { DoctorApi } from '../ports.js'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ActionError, errorMessage } from '../core/errors.js'
import { stateBranchOf, type DoctorOptions } from '../core/doctor/checks.js'
import {
  LOCK_FILE,
  WORKFLOW_FILE,
  WORKFLOWS_DIR,
  type DoctorReport,
  type RepoFacts,
  type RepoFile,
  type SetupFiles
} from '../core/doctor/model.js'
import { diagnose } from '../render/doctor-report.js'
import { parseSetup } from '../core/doctor/setup.js'

/** Other workflow files read at most (one contents request each). */
const MAX_OTHER_WORKFLOWS = 40

export interface DoctorSources {
  /** The repository checkout; its files win when it has `.github/workflows/`. */
  dir: string | null
  /** The API (the default branch, the state branch, the files without a checkout); null offline. */
  api: DoctorApi | null
  /** A state branch whose existence the caller knows already (reconcile read it with git). */
  known?: { branch: string; exists: boolean }
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
  const read = async (name: string): Promise<RepoFile | null> => {
    if (!names.includes(name)) return null
    const path = `${WORKFLOWS_DIR}/${name}`
    try {
      return { path, text: await readFile(join(dir, path), 'utf8') }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? errorMessage(error)
      throw new ActionError(`cannot read ${path} in ${dir} (${code})`, {
        fix: 'make it a readable file, or run the doctor on another checkout (--dir)'
      })
    }
  }
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

/** Nothing to read: no checkout with workflows, and no API. */
function nothingFound(sources: DoctorSources): SetupFiles {
  return {
    source: sources.dir
      ? `local: ${sources.dir} (no ${WORKFLOWS_DIR}/)`
      : 'nothing (no checkout, no API)',
    workflow: null,
    lock: null,
    others: [],
    skipped: 0
  }
}

async function stateBranchFacts(
  sources: DoctorSources,
  branch: string
): Promise<Pick<RepoFacts, 'stateBranchExists' | 'stateBranchNote'>> {
  if (sources.known?.branch === branch) return { stateBranchExists: sources.known.exists }
  if (!sources.api)
    return {
      stateBranchExists: null,
      stateBranchNote: 'offline (no token or repository to ask the API)'
    }
  try {
    return { stateBranchExists: (await sources.api.branchHead(branch)) !== null }
  } catch (error) {
    return {
      stateBranchExists: null,
      stateBranchNote: `the API answered: ${errorMessage(error).split('\n')[0]}`
    }
  }
}

/**
 * Reads the setup and checks it: the checkout's files when it has `.github/workflows/`, else the
 * default branch's through the API. Throws only when the API fails to list or read them.
 */
export async function runDoctor(
  sources: DoctorSources,
  options: DoctorOptions
): Promise<DoctorReport> {
  const { api } = sources
  const local = sources.dir ? await readLocal(sources.dir) : null
  const defaultBranch = api ? await api.defaultBranch() : null
  const files =
    local ??
    (api && defaultBranch !== null ? await readApi(api, defaultBranch) : nothingFound(sources))
  const setup = parseSetup(files)
  const facts: RepoFacts = { defaultBranch, stateBranchExists: null }
  if (setup.workflow)
    Object.assign(facts, await stateBranchFacts(sources, stateBranchOf(setup, options)))
  return diagnose(setup, facts, options)
}
