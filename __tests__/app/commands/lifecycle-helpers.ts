/**
 * Shared by the record, reset and reconcile integration tests: a program's two files (the
 * state file and its ledger `ci-gate/<program>.json`) seeded on the fake's `memory/autoloop`
 * branch, read back after the run, and checked with the scheduler rule; the action run
 * in-process against the fake.
 */
import { expect } from '@jest/globals'
import type { FakeGitHub } from '../../../__fixtures__/fake-github/index.js'
import { ledgerPath, serializeLedger, type Ledger } from '../../../src/core/ledger.js'
import { parseLedgerFile } from '../../../src/statefile/ledger-file.js'
import { projectStateFile } from '../../../src/statefile/projection.js'
import type { MachineStatePatch } from '../../../src/core/schema.js'
import { createStateFile } from '../../../src/statefile/template.js'
import { readLikeScheduler, type SchedulerReading } from '../../helpers/scheduler-rule.js'
import { runInProcess, type InProcessRun } from '../../helpers/in-process.js'

export const STATE_BRANCH = 'memory/autoloop'
export const ISSUE = 12
/** The default `state-max-bytes`. */
export const STATE_MAX_BYTES = 30_720

/**
 * `<program>.md` from the template with `patch`; with a ledger, projected from it the way the
 * action leaves the file (the CI Gate section pointing at the ledger's revision).
 */
export function stateText(program: string, patch: MachineStatePatch = {}, ledger?: Ledger): string {
  const text = createStateFile(program, { machineState: patch })
  return ledger
    ? projectStateFile(text, { ...ledger, program }, { program, maxBytes: STATE_MAX_BYTES })
    : text
}

/** The ledger file's text, as the action writes it. */
export function ledgerText(program: string, ledger: Ledger): string {
  return serializeLedger({ ...ledger, program })
}

/**
 * A program's files as the store holds them, for a scenario's `contents`: `<program>.md`, and
 * with a ledger also `ci-gate/<program>.json`.
 */
export function programFiles(
  program: string,
  patch: MachineStatePatch = {},
  ledger?: Ledger
): Record<string, string> {
  return {
    [`${program}.md`]: stateText(program, patch, ledger),
    ...(ledger ? { [ledgerPath(program)]: ledgerText(program, ledger) } : {})
  }
}

/** A file on the state branch now, or undefined. */
export function branchFileOf(fake: FakeGitHub, path: string): string | undefined {
  return fake.readFile(STATE_BRANCH, path)
}

/** The program's state file on the state branch now, or undefined. */
export function stateFileOf(fake: FakeGitHub, program: string): string | undefined {
  return branchFileOf(fake, `${program}.md`)
}

/** The program's ledger on the state branch now (validated), or undefined when there is none. */
export function ledgerOf(fake: FakeGitHub, program: string): Ledger | undefined {
  const text = branchFileOf(fake, ledgerPath(program))
  return text === undefined ? undefined : parseLedgerFile(text, ledgerPath(program))
}

/** Reads the file like the autoloop scheduler; every file a test produces goes through this. */
export function schedulerReads(fake: FakeGitHub, program: string): SchedulerReading {
  const text = stateFileOf(fake, program)
  expect(text).toBeDefined()
  return readLikeScheduler(text as string)
}

export function commentsOn(fake: FakeGitHub, issue = ISSUE): string[] {
  return fake.state.comments.filter((c) => c.issue === issue).map((c) => c.body)
}

/**
 * One gate of `commit` on `autoloop/<program>` as a workflow run would do it: the branch moved
 * to the commit, then the gate with `push: false` in run `runId` (attempt 1 unless `env` says).
 */
export async function gateCommit(
  fake: FakeGitHub,
  program: string,
  commit: string,
  runId: number,
  inputs: Record<string, string> = {},
  env: Record<string, string | undefined> = {}
): Promise<InProcessRun> {
  fake.setBranch(`autoloop/${program}`, commit)
  return runInProcess(fake, {
    inputs: { program, push: 'false', issue: String(ISSUE), ...inputs },
    env: { GITHUB_RUN_ID: String(runId), ...env }
  })
}

/** Runs one command in-process against the fake (GITHUB_RUN_ID 9000 unless `env` says otherwise). */
export async function runCommand(
  fake: FakeGitHub,
  inputs: Record<string, string>,
  env: Record<string, string | undefined> = {}
): Promise<InProcessRun> {
  return runInProcess(fake, { inputs, env })
}
