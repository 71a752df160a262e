/**
 * `github-api-url` (docs/inputs-outputs.md: "Inputs"): the API the action talks to when it is not the
 * runner's GITHUB_API_URL, which a workflow cannot override (the action's own CI points the
 * action at the fake GitHub this way).
 */
import { describe, expect, it } from '@jest/globals'
import { BRANCH, PROGRAM, SHA, withFake } from '../helpers/fake-run.js'
import { runInProcess } from '../helpers/in-process.js'
import { tempDir } from '../helpers/temp-dir.js'

describe('github-api-url', () => {
  it('wins over GITHUB_API_URL', async () => {
    const scenario = {
      branches: { [BRANCH]: SHA },
      checkRuns: [
        {
          sha: SHA,
          name: 'test',
          timeline: [
            { at: 0, status: 'queued' as const },
            { at: 240, status: 'completed' as const, conclusion: 'success' as const }
          ]
        }
      ]
    }
    await withFake(scenario, async (fake) => {
      const run = await runInProcess(fake, {
        inputs: {
          program: PROGRAM,
          push: 'false',
          'state-dir': tempDir('autoloop-state-'),
          'github-api-url': `${fake.apiUrl}/`
        },
        // Nothing listens on port 9: a request sent there would fail the gate.
        env: { GITHUB_API_URL: 'http://127.0.0.1:9' }
      })
      expect(run.outputs).toMatchObject({ status: 'success', verdict: 'green', sha: SHA })
      expect(fake.requests.some((r) => r.route?.endsWith('/check-runs'))).toBe(true)
    })
  })
})
