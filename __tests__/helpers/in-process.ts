/**
 * The action run in-process against the fake GitHub API (see
 * `__fixtures__/run-in-process.ts`), with a temporary folder as RUNNER_TEMP and workspace
 * that is removed after the test file.
 */
import type { FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import {
  runActionInProcess,
  type InProcessOptions,
  type InProcessRun
} from '../../__fixtures__/run-in-process.js'
import { tempDir } from './temp-dir.js'

export type { InProcessOptions, InProcessRun }

export function runInProcess(fake: FakeGitHub, options: InProcessOptions): Promise<InProcessRun> {
  return runActionInProcess(fake, tempDir('autoloop-run-'), options)
}
