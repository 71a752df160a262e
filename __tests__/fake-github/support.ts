/** What the fake's tests share: the repository, a silent Octokit log, status of a call. */
import { expect } from '@jest/globals'
import type { FakeGitHub } from '../../__fixtures__/fake-github/index.js'

export const repo = { owner: 'octo-org', repo: 'demo' }
export const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} }

/** The HTTP status a call ended with (200 for any success). */
export const statusOf = (p: Promise<unknown>): Promise<number | string> =>
  p.then(
    () => 200,
    (e: { status?: number }) => e.status ?? 'no status'
  )

/**
 * Every request valid against the OpenAPI description and to a served route; the fake is
 * closed even when not.
 */
export async function closeCheckingRequests(fake: FakeGitHub | undefined): Promise<void> {
  try {
    if (fake) {
      expect(
        fake.invalidRequests().map((r) => `${r.method} ${r.path}: ${r.openapi.errors.join('; ')}`)
      ).toEqual([])
      expect(fake.unimplementedRequests().map((r) => `${r.method} ${r.path}`)).toEqual([])
    }
  } finally {
    await fake?.close()
  }
}
