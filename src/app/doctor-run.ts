/**
 * The doctor's reading (docs/commands.md: "doctor"): the workflow files of the checkout, or of
 * the default branch through the contents API when the checkout has none; what only the API
 * knows (the default branch, whether the state branch exists, which workflow files the
 * default branch has); then the pure checks.
 */
import type { DoctorApi, WorkflowFolder } from '../ports.js'
import { errorMessage } from '../core/errors.js'
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
import { settleWorkflows } from '../core/doctor/settle-workflow.js'

/** Other workflow files read at most (one contents request each). */
const MAX_OTHER_WORKFLOWS = 40

export interface DoctorSources {
  /** The checkout's workflow folder; its files win when it exists. */
  checkout: WorkflowFolder | null
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

/** A branch's workflow folder, read through the contents API. */
function branchFolder(api: DoctorApi, branch: string): WorkflowFolder {
  return {
    source: `contents API at ${branch}`,
    names: () => api.listDir(branch, WORKFLOWS_DIR),
    read: async (name) => (await api.getFile(branch, `${WORKFLOWS_DIR}/${name}`))?.text ?? null
  }
}

/**
 * The setup files in `folder`, whose files are `names`. Without the autoloop workflow there is
 * nothing to check, so nothing more is read (through the API, each file is a request).
 */
async function readSetupFiles(
  folder: WorkflowFolder,
  names: readonly string[]
): Promise<SetupFiles> {
  const read = async (name: string): Promise<RepoFile | null> => {
    if (!names.includes(name)) return null
    const text = await folder.read(name)
    return text === null ? null : { path: `${WORKFLOWS_DIR}/${name}`, text }
  }
  const workflow = await read(WORKFLOW_NAME)
  const { others, skipped } = workflow ? pick(names) : { others: [], skipped: 0 }
  return {
    source: folder.source,
    workflow,
    lock: workflow ? await read(LOCK_NAME) : null,
    others: (await Promise.all(others.map(read))).filter((f): f is RepoFile => f !== null),
    skipped
  }
}

/** The setup files in `folder`; null when it does not exist. */
async function readFolder(folder: WorkflowFolder): Promise<SetupFiles | null> {
  const names = await folder.names()
  return names ? readSetupFiles(folder, names) : null
}

/** Nothing to read: no checkout with workflows, and no API. */
function nothingFound(sources: DoctorSources): SetupFiles {
  return {
    source: sources.checkout
      ? `${sources.checkout.source} (no ${WORKFLOWS_DIR}/)`
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

/** The workflow files on the default branch: listed already when they were read from there. */
async function defaultBranchFacts(
  sources: DoctorSources,
  defaultBranch: string | null,
  listed: string[] | null
): Promise<Pick<RepoFacts, 'defaultBranchWorkflows' | 'defaultBranchNote'>> {
  if (listed) return { defaultBranchWorkflows: listed }
  if (!sources.api || defaultBranch === null)
    return {
      defaultBranchWorkflows: null,
      defaultBranchNote: 'offline (no token or repository to ask the API)'
    }
  try {
    return { defaultBranchWorkflows: await sources.api.listDir(defaultBranch, WORKFLOWS_DIR) }
  } catch (error) {
    return {
      defaultBranchWorkflows: null,
      defaultBranchNote: `the API answered: ${errorMessage(error).split('\n')[0]}`
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
  const { api, checkout } = sources
  const local = checkout ? await readFolder(checkout) : null
  const defaultBranch = api ? await api.defaultBranch() : null
  const remote = !local && api && defaultBranch !== null ? branchFolder(api, defaultBranch) : null
  // Through the API a missing folder lists as empty: the report names the branch read.
  const remoteNames = !local && remote ? ((await remote.names()) ?? []) : null
  const files =
    local ?? (remote ? await readSetupFiles(remote, remoteNames ?? []) : nothingFound(sources))
  const setup = parseSetup(files)
  const facts: RepoFacts = { defaultBranch, stateBranchExists: null }
  if (setup.workflow)
    Object.assign(facts, await stateBranchFacts(sources, stateBranchOf(setup, options)))
  // Whether the settle workflow is on the default branch: one listing, only when there is one.
  if (setup.workflow && settleWorkflows(setup).length > 0)
    Object.assign(facts, await defaultBranchFacts(sources, defaultBranch, remoteNames))
  return diagnose(setup, facts, options)
}
