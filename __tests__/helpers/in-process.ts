/**
 * Runs the action in-process against the fake GitHub API (see `in-process-action.ts`), with
 * a temp folder for RUNNER_TEMP that is removed after the test file.
 */
import type { FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import {
  runActionInProcess,
  type InProcessOptions,
  type InProcessRun
} from './in-process-action.js'
import { tempDir } from './temp-dir.js'

export type { InProcessOptions, InProcessRun }

export async function runInProcess(
  fake: FakeGitHub,
  options: InProcessOptions
): Promise<InProcessRun> {
  return runActionInProcess(fake, { ...options, tempDir: tempDir('autoloop-run-') })
}
