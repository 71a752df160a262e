/**
 * Shared by the record, reset and reconcile integration tests: state files seeded on the fake's
 * `memory/autoloop` branch, read back after the run, and checked with the scheduler rule.
 */
import { expect } from '@jest/globals'
import type { FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { createStateFile } from '../../src/state/markdown.js'
import type { MachineStatePatch } from '../../src/state/schema.js'
import { writeLedger, type Ledger } from '../../src/loop/ledger.js'
import { readLikeScheduler, type SchedulerReading } from '../helpers/scheduler-rule.js'
import { actionEnv } from '../helpers/fake-run.js'
import { runAction, type ActionRun } from '../helpers/run-action.js'

export const STATE_BRANCH = 'memory/autoloop'
export const ISSUE = 12

export function stateText(program: string, patch: MachineStatePatch = {}, ledger?: Ledger): string {
  const text = createStateFile(program, { machineState: patch })
  return ledger ? writeLedger(text, ledger) : text
}

/** The program's state file on the state branch now, or undefined. */
export function stateFileOf(fake: FakeGitHub, program: string): string | undefined {
  const head = fake.state.branches[STATE_BRANCH]
  return head ? fake.state.commits[head]?.files?.[`${program}.md`] : undefined
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

export async function runCommand(
  fake: FakeGitHub,
  inputs: Record<string, string>,
  env: Record<string, string | undefined> = {}
): Promise<ActionRun> {
  return runAction({ inputs, env: actionEnv(fake, env) })
}
