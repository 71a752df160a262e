import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { Octokit } from '@octokit/rest'
import { startFakeGitHub } from '../../__fixtures__/fake-github/index.js'
import type { FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import { openApiValidator } from '../../__fixtures__/fake-github/openapi.js'
import { quiet, repo } from './support.js'

let fake: FakeGitHub
let octokit: Octokit

beforeAll(async () => {
  fake = await startFakeGitHub({ scenario: { issues: [{ number: 3 }] } })
  octokit = new Octokit({ baseUrl: fake.apiUrl, log: quiet })
})

afterAll(async () => {
  await fake.close()
})

/** Sends what Octokit's types would refuse: the point of these tests. */
function untyped(route: string, params: Record<string, unknown>): Promise<unknown> {
  return octokit.request(route, params)
}

async function lastRequestAfter(send: () => Promise<unknown>) {
  await send().catch(() => undefined)
  const last = fake.requests[fake.requests.length - 1]
  if (!last) throw new Error('no request was recorded')
  return last
}

describe('OpenAPI validation of requests', () => {
  it('passes valid requests', async () => {
    const sent = [
      await lastRequestAfter(() =>
        octokit.rest.checks.listForRef({ ...repo, ref: 'main', filter: 'all', per_page: 100 })
      ),
      await lastRequestAfter(() =>
        octokit.rest.issues.createComment({ ...repo, issue_number: 3, body: 'x' })
      ),
      await lastRequestAfter(() =>
        octokit.rest.issues.addLabels({ ...repo, issue_number: 3, labels: ['a'] })
      ),
      await lastRequestAfter(() =>
        octokit.rest.repos.getCombinedStatusForRef({ ...repo, ref: 'main' })
      )
    ]
    expect(sent.map((r) => [r.route, r.openapi])).toEqual([
      ['GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { valid: true, errors: [] }],
      ['POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { valid: true, errors: [] }],
      ['POST /repos/{owner}/{repo}/issues/{issue_number}/labels', { valid: true, errors: [] }],
      ['GET /repos/{owner}/{repo}/commits/{ref}/status', { valid: true, errors: [] }]
    ])
  })

  it('flags a query parameter the operation does not declare', async () => {
    const r = await lastRequestAfter(() =>
      octokit.request('GET /repos/{owner}/{repo}/pulls', { ...repo, head_ref: 'x' })
    )
    expect(r.openapi).toEqual({
      valid: false,
      errors: ['query parameter "head_ref" is not declared for this operation']
    })
    expect(r.status).toBe(200)
  })

  it('flags a query value outside its enum or type', async () => {
    const r = await lastRequestAfter(() =>
      untyped('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
        ...repo,
        ref: 'main',
        filter: 'newest',
        per_page: 'many'
      })
    )
    expect(r.openapi.valid).toBe(false)
    expect(r.openapi.errors.join('\n')).toMatch(
      /query\/filter must be equal to one of the allowed values/
    )
    expect(r.openapi.errors.join('\n')).toMatch(/query\/per_page must be integer/)
  })

  it('flags a body of the wrong type and a missing required body field', async () => {
    const wrongType = await lastRequestAfter(() =>
      untyped('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        ...repo,
        issue_number: 3,
        body: 42
      })
    )
    expect(wrongType.openapi).toEqual({ valid: false, errors: ['body/body must be string'] })
    const missing = await lastRequestAfter(() =>
      untyped('PUT /repos/{owner}/{repo}/contents/{path}', {
        ...repo,
        path: 'a.md',
        content: 'eA=='
      })
    )
    expect(missing.openapi).toEqual({
      valid: false,
      errors: ['body is missing required "message"']
    })
  })

  it('flags a path parameter that does not fit its schema', async () => {
    const r = await lastRequestAfter(() =>
      fetch(`${fake.apiUrl}/repos/octo-org/demo/check-runs/abc`)
    )
    expect(r.route).toBe('GET /repos/{owner}/{repo}/check-runs/{check_run_id}')
    expect(r.openapi.errors).toEqual(['path/check_run_id must be integer'])
    expect(r.status).toBe(404)
  })

  it('answers 404 to an unknown route and records it', async () => {
    const r = await lastRequestAfter(() =>
      octokit.request('GET /repos/{owner}/{repo}/no-such-thing', repo)
    )
    expect(r).toMatchObject({ status: 404, route: null, implemented: false })
    expect(r.openapi.errors).toEqual([
      "no path of GitHub's REST API matches /repos/octo-org/demo/no-such-thing"
    ])
    expect(fake.unimplementedRequests()).toContain(r)
  })

  it('flags a method the path does not have', async () => {
    const r = await lastRequestAfter(() => fetch(`${fake.apiUrl}/rate_limit`, { method: 'DELETE' }))
    expect(r.openapi).toEqual({
      valid: false,
      errors: ['DELETE is not an operation of /rate_limit (it has GET)']
    })
  })

  it('answers 404 to a real GitHub route the fake does not serve, valid but unimplemented', async () => {
    const r = await lastRequestAfter(() => octokit.rest.repos.listReleases(repo))
    expect(r).toMatchObject({
      status: 404,
      route: 'GET /repos/{owner}/{repo}/releases',
      implemented: false
    })
    expect(r.openapi.valid).toBe(true)
  })
})

describe('route matching', () => {
  const validator = openApiValidator()
  const match = (method: string, path: string) =>
    validator.validate({ method, path, query: new URLSearchParams(), body: undefined })

  it('prefers more literal segments over a multi-segment parameter', () => {
    expect(match('GET', '/repos/o/r/commits/abc/status').route).toBe(
      'GET /repos/{owner}/{repo}/commits/{ref}/status'
    )
    expect(match('GET', '/repos/o/r/commits/abc').route).toBe(
      'GET /repos/{owner}/{repo}/commits/{ref}'
    )
    expect(match('GET', '/repos/o/r/issues/comments/5').route).toBe(
      'GET /repos/{owner}/{repo}/issues/comments/{comment_id}'
    )
  })

  it('takes what GitHub takes where the description reads stricter: a numeric workflow id, the search syntax of `created`', () => {
    const runs = (workflow: string, created: string) =>
      validator.validate({
        method: 'GET',
        path: `/repos/o/r/actions/workflows/${workflow}/runs`,
        query: new URLSearchParams({ created }),
        body: undefined
      })
    expect(runs('1000001', '>=2026-03-01T12:00:00Z')).toMatchObject({ valid: true, errors: [] })
    expect(runs('autoloop.lock.yml', '2026-03-01..2026-03-02')).toMatchObject({ valid: true })
    // the rest of the parameters are checked as before
    const paged = validator.validate({
      method: 'GET',
      path: '/repos/o/r/actions/runs',
      query: new URLSearchParams({ created: '>=2026-03-01', per_page: 'many' }),
      body: undefined
    })
    expect(paged.errors).toEqual(['query/per_page must be integer'])
  })

  it('decodes parameters and lets multi-segment ones span slashes', () => {
    expect(match('GET', '/repos/o/r/contents/dir/x%20y.md').params.path).toBe('dir/x y.md')
    expect(match('GET', '/repos/o/r/git/ref/heads%2Fautoloop%2Fx').params.ref).toBe(
      'heads/autoloop/x'
    )
    expect(match('GET', '/repos/o/r/git/ref/heads/autoloop/x').params.ref).toBe('heads/autoloop/x')
  })
})
