/**
 * The client's retries of 5xx answers and dropped connections (`src/adapters/github/client.ts`), against
 * the fake API in memory: which answers are tried again, how often, and how long it waits
 * between tries, on the injected clock; and the spacing of writes on that clock.
 */
import { describe, expect, it } from '@jest/globals'
import { manualClock } from '../../__fixtures__/clock.js'
import type { FakeGitHub, FaultSpec } from '../../__fixtures__/fake-github/index.js'
import { memoryLogger } from '../../__fixtures__/log.js'
import {
  createGitHubClient,
  NOTIFYING_WRITE_SPACING_MS,
  WRITE_SPACING_MS
} from '../../src/adapters/github/client.js'
import { withFake } from '../helpers/fake-run.js'

const ROUTE = 'GET /repos/{owner}/{repo}'

/** The client against the fake in memory, on a manual clock started at the fake's time. */
function clientOn(fake: FakeGitHub) {
  const clock = manualClock(fake.now())
  const client = createGitHubClient({
    token: 't',
    baseUrl: fake.apiUrl,
    clock,
    log: memoryLogger(),
    fetch: fake.fetch
  })
  return { clock, client }
}

/** One `GET /repos/{owner}/{repo}` with `faults` on it: the result, the answers, the wait. */
async function getRepo(faults: Array<Omit<FaultSpec, 'route'>>, request?: { retries: number }) {
  return withFake({ faults: faults.map((fault) => ({ ...fault, route: ROUTE })) }, async (fake) => {
    const { clock, client } = clientOn(fake)
    const started = clock.now()
    const result = await client
      .request(ROUTE, {
        owner: fake.state.owner,
        repo: fake.state.repo,
        ...(request ? { request } : {})
      })
      .then(
        (response) => response.status,
        (error: { status?: number }) => `error ${error.status}`
      )
    const answered = fake.requests.filter((r) => r.route === ROUTE).map((r) => r.status)
    return { result, answered, waitedMs: clock.now() - started }
  })
}

describe('the client retries 5xx answers and dropped connections', () => {
  it('three 502s in a row: asked again 1, 4 and 9 seconds later, then answered', async () => {
    const { result, answered, waitedMs } = await getRepo([
      { kind: 'status', status: 502, count: 3 }
    ])
    expect(result).toBe(200)
    expect(answered).toEqual([502, 502, 502, 200])
    expect(waitedMs).toBe((1 + 4 + 9) * 1000)
  })

  it('5xx answers that never stop: four tries, then the last answer is the error', async () => {
    const { result, answered } = await getRepo([{ kind: 'status', status: 503, count: 'always' }])
    expect(result).toBe('error 503')
    expect(answered).toEqual([503, 503, 503, 503])
  })

  it('a dropped connection is asked again', async () => {
    const { result, answered, waitedMs } = await getRepo([{ kind: 'drop-connection' }])
    expect(result).toBe(200)
    expect(answered).toEqual([null, 200])
    expect(waitedMs).toBe(1000)
  })

  it('a request sent with `request: { retries: 0 }` is tried once', async () => {
    const { result, answered, waitedMs } = await getRepo([{ kind: 'status', status: 502 }], {
      retries: 0
    })
    expect(result).toBe('error 502')
    expect(answered).toEqual([502])
    expect(waitedMs).toBe(0)
  })

  it.each([400, 401, 404, 409, 410, 422, 451])(
    'a %i says the request itself is wrong: not asked again',
    async (status) => {
      const { result, answered } = await getRepo([{ kind: 'status', status }])
      expect(result).toBe(`error ${status}`)
      expect(answered).toEqual([status])
    }
  )
})

/**
 * The throttling plugin spaces writes through the groups the client hands it (an undocumented
 * seam of `@octokit/plugin-throttling`, README: "Libraries, and why"): on the injected clock, a second
 * apart between writes, three seconds between writes that notify people. If the plugin stopped
 * taking those groups, it would space them on its own real-time scheduler and the injected
 * clock would not move.
 */
describe('writes are spaced on the injected clock', () => {
  it('a second between writes, three seconds between comments', async () => {
    await withFake(
      { issues: [{ number: 7, title: 'program' }], labels: ['a', 'b'] },
      async (fake) => {
        const { clock, client } = clientOn(fake)
        const repo = { owner: fake.state.owner, repo: fake.state.repo, issue_number: 7 }
        const timeOf = async (send: () => Promise<unknown>) => {
          await send()
          return clock.now()
        }
        const label = (name: string) => () =>
          client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
            ...repo,
            labels: [name]
          })
        const comment = (body: string) => () =>
          client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
            ...repo,
            body
          })
        const labelled = [await timeOf(label('a')), await timeOf(label('b'))]
        const commented = [await timeOf(comment('one')), await timeOf(comment('two'))]
        expect(labelled[1]! - labelled[0]!).toBeGreaterThanOrEqual(WRITE_SPACING_MS)
        expect(commented[1]! - commented[0]!).toBeGreaterThanOrEqual(NOTIFYING_WRITE_SPACING_MS)
        expect(fake.state.comments.map((c) => c.body)).toEqual(['one', 'two'])
      }
    )
  })
})
