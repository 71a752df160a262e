/**
 * `npm run demo`: the bundled action (dist/index.js) against the in-repo fake GitHub API and
 * a local bare git repository. No token, no network. An iteration is pushed and CI goes red;
 * a fix is committed and gated again; CI goes green. Time is the fake's virtual clock, so
 * the simulated minutes of CI pass in a moment.
 */
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startFakeGitHub, type CheckRunPlan } from '../__fixtures__/fake-github/index.js'

const PROGRAM = 'demo-speedup'
const BRANCH = `autoloop/${PROGRAM}`
const DIST = resolve(import.meta.dirname, '../dist/index.js')
const root = mkdtempSync(join(tmpdir(), 'autoloop-demo-'))
const bare = join(root, 'remote.git')
const work = join(root, 'work')
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'autoloop agent',
  GIT_AUTHOR_EMAIL: 'agent@autoloop.invalid',
  GIT_COMMITTER_NAME: 'autoloop agent',
  GIT_COMMITTER_EMAIL: 'agent@autoloop.invalid'
}
const git = (...args: string[]) => execFileSync('git', args, { cwd: work, env: gitEnv, encoding: 'utf8' }).trim()

function commit(file: string, content: string, message: string): string {
  writeFileSync(join(work, file), content)
  git('add', file)
  git('commit', '-q', '-m', message)
  return git('rev-parse', 'HEAD')
}

const red = (name: string, seconds: number, log: string): CheckRunPlan => ({
  branch: BRANCH,
  head: 1,
  name,
  timeline: [
    { at: 0, status: 'queued' },
    { at: 15, status: 'in_progress' },
    { at: seconds, status: 'completed', conclusion: 'failure' }
  ],
  log
})
const green = (name: string, head: number | 'each', seconds: number): CheckRunPlan => ({
  branch: BRANCH,
  head,
  name,
  timeline: [
    { at: 0, status: 'queued' },
    { at: 15, status: 'in_progress' },
    { at: seconds, status: 'completed', conclusion: 'success' }
  ]
})

function banner(text: string): void {
  console.log(`\n\x1b[1m━━━ ${text} ━━━\x1b[0m\n`)
}

async function gate(fake: Awaited<ReturnType<typeof startFakeGitHub>>, runId: number): Promise<Record<string, string>> {
  const outputFile = join(root, `output-${runId}`)
  const summaryFile = join(root, `summary-${runId}`)
  writeFileSync(outputFile, '')
  writeFileSync(summaryFile, '')
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: root,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: work,
    GITHUB_REPOSITORY: `${fake.state.owner}/${fake.state.repo}`,
    GITHUB_API_URL: fake.apiUrl,
    GITHUB_SERVER_URL: fake.serverUrl,
    GITHUB_RUN_ID: String(runId),
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    AUTOLOOP_CLOCK_URL: fake.clockUrl,
    'INPUT_GITHUB-TOKEN': 'demo-token',
    INPUT_PROGRAM: PROGRAM,
    'INPUT_POLL-INTERVAL-SECONDS': '30',
    'INPUT_CHECKS-GRACE-SECONDS': '60'
  }
  console.log(`$ node dist/index.js   # command: gate, program: ${PROGRAM}\n`)
  await new Promise<void>((done) => {
    const child = spawn(process.execPath, [DIST], { cwd: work, env, stdio: ['ignore', 'pipe', 'inherit'] })
    child.stdout.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (line && !/^::(set-output|debug|add-mask)/.test(line)) console.log(`  ${line}`)
      }
    })
    child.on('close', () => done())
  })
  const outputs: Record<string, string> = {}
  const text = readFileSync(outputFile, 'utf8')
  for (const match of text.matchAll(/^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)) outputs[match[1]!] = match[3]!
  console.log('\nJob summary:\n')
  console.log(readFileSync(summaryFile, 'utf8').replace(/^/gm, '  │ '))
  console.log('Outputs:')
  for (const name of ['status', 'verdict', 'sha', 'pr-number', 'attempt', 'signature', 'pause-reason']) {
    if (outputs[name]) console.log(`  ${name} = ${outputs[name]}`)
  }
  return outputs
}

execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare])
execFileSync('git', ['init', '-q', '-b', 'main', work])
git('remote', 'add', 'origin', bare)
commit('speed.js', 'export const speed = () => 1\n', 'base')
git('push', '-q', 'origin', 'main')
git('checkout', '-q', '-b', BRANCH)

const failingLog = [
  '2026-11-22T10:00:01.0000000Z ##[group]Run npm test',
  '2026-11-22T10:00:01.0000000Z npm test',
  '2026-11-22T10:00:01.0000000Z ##[endgroup]',
  '2026-11-22T10:00:09.0000000Z ##[error]Process completed with exit code 1.'
].join('\n')

const fake = await startFakeGitHub({
  scenario: {
    gitDir: bare,
    checkRuns: [red('test', 420, failingLog), green('lint', 1, 120), green('test', 2, 480), green('lint', 2, 120)]
  }
})

try {
  banner('Iteration: the agent made speed() faster in its sandbox and committed')
  commit('speed.js', 'export const speed = () => 2\n', 'iteration 1: faster speed()')
  const first = await gate(fake, 101)

  banner('CI is red: the fixer commits a fix on the same branch')
  commit('speed.js', 'export const speed = () => 2 // keeps the contract\n', 'fix: keep speed() contract')
  const second = await gate(fake, 102)

  banner('Result')
  console.log(`  attempt 0 (${first.sha?.slice(0, 12)}): ${first.verdict}`)
  console.log(`  attempt 1 (${second.sha?.slice(0, 12)}): ${second.verdict}`)
  console.log(
    `  rate limit: ${fake.rateLimit.pointsSpent} points for ${fake.rateLimit.requestsSent} requests (${fake.rateLimit.notModified} answered 304)`
  )
  const invalid = fake.invalidRequests()
  console.log(`  requests invalid against GitHub's OpenAPI description: ${invalid.length}`)
  if (first.verdict !== 'red' || second.verdict !== 'green' || invalid.length > 0) process.exitCode = 1
} finally {
  await fake.close()
  rmSync(root, { recursive: true, force: true })
}
