/**
 * One fake GitHub API + one in-process run of the action against it, on the fake's virtual
 * clock, and the check that every request the action sent is valid against GitHub's OpenAPI
 * description.
 */
import { expect } from '@jest/globals'
import {
  startFakeGitHub,
  type FakeGitHub,
  type Scenario
} from '../../__fixtures__/fake-github/index.js'
import { runInProcess, type InProcessRun } from './in-process.js'

export const SHA = 'c0ffee'.padEnd(40, '0')
export const PROGRAM = 'perf'
export const BRANCH = `autoloop/${PROGRAM}`
export const OWN_RUN_ID = 9000

export interface FakeRun {
  fake: FakeGitHub
  run: InProcessRun
}

/** Every request valid against the OpenAPI description, and none to an unknown route. */
export function expectValidRequests(fake: FakeGitHub): void {
  const invalid = fake
    .invalidRequests()
    .map((r) => `${r.method} ${r.path}: ${r.openapi.errors.join('; ')}`)
  expect(invalid).toEqual([])
  expect(fake.unimplementedRequests().map((r) => `${r.method} ${r.path}`)).toEqual([])
}

export async function withFake<T>(
  scenario: Scenario,
  body: (fake: FakeGitHub) => Promise<T>,
  options: { prefix?: string } = {}
): Promise<T> {
  const fake = await startFakeGitHub({ scenario, ...options })
  try {
    const result = await body(fake)
    expectValidRequests(fake)
    return result
  } finally {
    await fake.close()
  }
}

/** Gates SHA on BRANCH without pushing (the scenario already has the branch at SHA). */
export async function gateOnce(
  scenario: Scenario,
  inputs: Record<string, string> = {},
  options: { prefix?: string; env?: Record<string, string | undefined> } = {}
): Promise<FakeRun> {
  return withFake(
    { branches: { [BRANCH]: SHA }, ...scenario },
    async (fake) => {
      const run = await runInProcess(fake, {
        inputs: { program: PROGRAM, push: 'false', ...inputs },
        ...(options.env ? { env: options.env } : {})
      })
      return { fake, run }
    },
    options.prefix === undefined ? {} : { prefix: options.prefix }
  )
}
