/**
 * How fast the fake is: start-up with and without its git repository, a contents write (one
 * commit through git plumbing), an uncached contents read, an API read with and without a
 * repository to keep in step, a shallow clone over HTTP, the build of GitHub's GraphQL schema
 * (once per process: its time and the heap it holds) and a GraphQL read of a branch's head and
 * file. Medians of repeated runs.
 *
 *   node --expose-gc --import tsx __fixtures__/fake-github/bench.ts
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Octokit } from '@octokit/rest'
import { githubSchema } from './graphql.js'
import { startFakeGitHub, type Scenario } from './index.js'

const run = promisify(execFile)
const repo = { owner: 'octo-org', repo: 'demo' }
const MEMORY = 'memory/autoloop'
const SHA = 'a'.repeat(40)
const checksOnly: Scenario = {
  checkRuns: [{ sha: SHA, name: 'test', timeline: [{ at: 0, status: 'queued' }] }]
}

async function measure(label: string, times: number, action: () => Promise<unknown>) {
  const ms: number[] = []
  for (let i = 0; i < times; i++) {
    const started = performance.now()
    await action()
    ms.push(performance.now() - started)
  }
  ms.sort((a, b) => a - b)
  const median = ms[Math.floor(ms.length / 2)] ?? 0
  return `| ${label} | ${median.toFixed(1)} | ${(ms[0] ?? 0).toFixed(1)}–${(ms[ms.length - 1] ?? 0).toFixed(1)} | ${times} |`
}

const startAndClose = (scenario: Scenario) => async () =>
  (await startFakeGitHub({ scenario })).close()

/** The schema's build time and the heap it holds (exact with `--expose-gc`). */
function schemaBuild(): string {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  const heap = process.memoryUsage().heapUsed
  const started = performance.now()
  const { version } = githubSchema()
  const ms = performance.now() - started
  gc?.()
  const held = (process.memoryUsage().heapUsed - heap) / 2 ** 20
  return `| GitHub's GraphQL schema build (@octokit/graphql-schema ${version}), heap held ${held.toFixed(1)} MiB${gc ? '' : ' (no --expose-gc: with garbage)'} | ${ms.toFixed(1)} | – | 1 |`
}

async function main(): Promise<void> {
  const schemaRow = schemaBuild()
  await startAndClose({})() // the OpenAPI description is parsed and cached once per machine
  const manyFiles = Object.fromEntries(
    Array.from({ length: 300 }, (_, i) => [`notes/n${i}.md`, `note ${i}\n`])
  )
  const rows = [
    schemaRow,
    await measure('start + close, check runs only (no git)', 20, startAndClose(checksOnly)),
    await measure(
      'start + close, contents: 1 branch, 2 files',
      20,
      startAndClose({ contents: { [MEMORY]: { 'perf.md': 'x', 'ci-gate/perf.json': '{}' } } })
    ),
    await measure(
      'start + close, contents: 1 branch, 300 files',
      10,
      startAndClose({ contents: { [MEMORY]: manyFiles } })
    )
  ]

  const fake = await startFakeGitHub({ scenario: { contents: { [MEMORY]: { 'perf.md': 'x' } } } })
  const octokit = new Octokit({ baseUrl: fake.apiUrl })
  const current = await octokit.rest.repos.getContent({ ...repo, path: 'perf.md', ref: MEMORY })
  let blob: string | undefined = (current.data as { sha: string }).sha
  let n = 0
  rows.push(
    await measure('contents PUT (a commit)', 30, async () => {
      const written = await octokit.rest.repos.createOrUpdateFileContents({
        ...repo,
        path: 'perf.md',
        branch: MEMORY,
        message: 'write',
        content: Buffer.from(`v${++n}`).toString('base64'),
        sha: blob
      })
      blob = written.data.content?.sha
    }),
    await measure('memory push + contents GET of the new commit', 30, async () => {
      fake.memoryPush(MEMORY, { 'other.md': `v${++n}` })
      await octokit.rest.repos.getContent({ ...repo, path: 'other.md', ref: MEMORY })
    }),
    await measure('check-runs GET, git repository present', 50, () =>
      octokit.rest.checks.listForRef({ ...repo, ref: MEMORY })
    )
  )
  rows.push(
    await measure('GraphQL query: a branch head and a file (parse, validate, execute)', 50, () =>
      octokit.graphql(
        `query($owner: String!, $name: String!, $ref: String!, $file: String!) {
          repository(owner: $owner, name: $name) {
            head: ref(qualifiedName: $ref) { target { oid } }
            file: object(expression: $file) { ... on Blob { oid text isBinary isTruncated } }
          }
        }`,
        {
          owner: repo.owner,
          name: repo.repo,
          ref: `refs/heads/${MEMORY}`,
          file: `${MEMORY}:perf.md`
        }
      )
    )
  )
  const clones = mkdtempSync(join(tmpdir(), 'fake-github-bench-'))
  rows.push(
    await measure('git clone --depth 1 --single-branch over HTTP', 10, () =>
      run('git', [
        'clone',
        '-q',
        '--depth',
        '1',
        '--single-branch',
        '--branch',
        MEMORY,
        fake.gitUrl,
        join(clones, `c${++n}`)
      ])
    )
  )
  rmSync(clones, { recursive: true, force: true })
  await fake.close()

  const plain = await startFakeGitHub({ scenario: checksOnly })
  const plainOctokit = new Octokit({ baseUrl: plain.apiUrl })
  rows.push(
    await measure('check-runs GET, no git repository', 50, () =>
      plainOctokit.rest.checks.listForRef({ ...repo, ref: SHA })
    )
  )
  await plain.close()
  console.log(
    ['| operation | median ms | range ms | runs |', '|---|---:|---:|---:|', ...rows].join('\n')
  )
}

await main()
