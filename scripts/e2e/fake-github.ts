/**
 * The fake GitHub for the action's own CI (`.github/workflows/ci.yml`, job `action`): the
 * in-repo fake API on real time, serving the workflow's repository (GITHUB_REPOSITORY), with
 * one commit whose checks go green and one whose checks go red a few seconds after start.
 * The job runs `uses: ./` against it through the `github-api-url` input (a workflow cannot
 * override GITHUB_API_URL).
 *
 *   tsx scripts/e2e/fake-github.ts <folder>
 *
 * writes `<folder>/api-url` once it listens, and on SIGTERM `<folder>/requests.json`: every
 * request that was invalid against GitHub's OpenAPI description or to a route the fake does
 * not serve (both must be empty), then exits.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { startFakeGitHub, type CheckRunPlan } from '../../__fixtures__/fake-github/index.js'

const TSC_LOG = resolve(
  import.meta.dirname,
  '../../__fixtures__/corpus/tsc/missing-property/job-log.log'
)

/** The commits the job gates (`sha` input, `push: false`). */
export const GREEN_SHA = '6e'.repeat(20)
export const RED_SHA = 'de'.repeat(20)

const check = (sha: string, name: string, conclusion: 'success' | 'failure'): CheckRunPlan => ({
  sha,
  name,
  timeline: [
    { at: 0, status: 'queued' },
    { at: 1, status: 'in_progress' },
    { at: 5, status: 'completed', conclusion }
  ],
  // A job log tsc really printed (the corpus, __fixtures__/corpus/tsc).
  ...(conclusion === 'failure' ? { log: { file: TSC_LOG } } : {})
})

const folder = process.argv[2]
if (!folder) {
  console.error('usage: tsx scripts/e2e/fake-github.ts <folder>')
  process.exit(2)
}
mkdirSync(folder, { recursive: true })
const [owner = 'octo-org', repo = 'demo'] = (process.env.GITHUB_REPOSITORY ?? '').split('/')
const fake = await startFakeGitHub({
  realTime: true,
  scenario: {
    owner,
    repo,
    branches: { 'autoloop/e2e-green': GREEN_SHA, 'autoloop/e2e-red': RED_SHA },
    checkRuns: [
      check(GREEN_SHA, 'test', 'success'),
      check(GREEN_SHA, 'lint', 'success'),
      check(RED_SHA, 'test', 'success'),
      check(RED_SHA, 'typecheck', 'failure')
    ]
  }
})
writeFileSync(join(folder, 'api-url'), `${fake.apiUrl}\n`)
console.log(`fake GitHub for ${owner}/${repo} at ${fake.apiUrl}`)

process.once('SIGTERM', () => {
  const problems = [
    ...fake.invalidRequests().map((r) => `${r.method} ${r.path}: ${r.openapi.errors.join('; ')}`),
    ...fake.unimplementedRequests().map((r) => `${r.method} ${r.path}: not served by the fake`)
  ]
  writeFileSync(
    join(folder, 'requests.json'),
    `${JSON.stringify({ requests: fake.requests.length, problems }, null, 2)}\n`
  )
  void fake.close().then(() => process.exit(0))
})
