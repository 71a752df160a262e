/**
 * `npm run demo`: the bundled action (dist/index.js) against the in-repo fake GitHub API and
 * a local bare git repository; no token, no network. One step runs a whole iteration:
 * the agent's commit is pushed and CI goes red (a real jest failure log); `fix-command` reads
 * the failure summary and commits a fix; the gate pushes it and CI goes green. Time is the
 * fake's virtual clock, so the simulated minutes of CI pass in a moment.
 */
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startFakeGitHub, type CheckRunPlan } from '../__fixtures__/fake-github/index.js'

const PROGRAM = 'demo-speedup'
const BRANCH = `autoloop/${PROGRAM}`
const ROOT = resolve(import.meta.dirname, '..')
const DIST = join(ROOT, 'dist/index.js')
const JEST_LOG = join(ROOT, '__fixtures__/corpus/jest/assertion/job-log.log')
const tmp = mkdtempSync(join(tmpdir(), 'autoloop-demo-'))
const bare = join(tmp, 'remote.git')
const work = join(tmp, 'work')
const stateDir = join(tmp, 'repo-memory')
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'autoloop agent',
  GIT_AUTHOR_EMAIL: 'agent@autoloop.invalid',
  GIT_COMMITTER_NAME: 'autoloop agent',
  GIT_COMMITTER_EMAIL: 'agent@autoloop.invalid'
}
const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: work, env: gitEnv, encoding: 'utf8' }).trim()

function commit(file: string, content: string, message: string): string {
  writeFileSync(join(work, file), content)
  git('add', file)
  git('commit', '-q', '-m', message)
  return git('rev-parse', 'HEAD')
}

const check = (
  head: number,
  name: string,
  seconds: number,
  conclusion: 'success' | 'failure',
  log?: string
): CheckRunPlan => ({
  branch: BRANCH,
  head,
  name,
  timeline: [
    { at: 0, status: 'queued' },
    { at: 20, status: 'in_progress' },
    { at: seconds, status: 'completed', conclusion }
  ],
  ...(log ? { log: { file: log } } : {})
})

const banner = (text: string) => console.log(`\n\x1b[1m━━━ ${text} ━━━\x1b[0m\n`)
const indent = (text: string, prefix = '  │ ') => text.replace(/\n$/, '').replace(/^/gm, prefix)

// The program's repository: main, and the branch the agent works on.
execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare])
execFileSync('git', ['init', '-q', '-b', 'main', work])
git('remote', 'add', 'origin', bare)
commit('cart.js', 'export const total = (prices) => prices.reduce((a, b) => a + b, 0)\n', 'base')
git('push', '-q', 'origin', 'main')
git('checkout', '-q', '-b', BRANCH)

const fake = await startFakeGitHub({
  scenario: {
    gitDir: bare,
    issues: [{ number: 1, title: `Autoloop: ${PROGRAM}`, labels: ['autoloop-program'] }],
    checkRuns: [
      check(1, 'test', 420, 'failure', JEST_LOG),
      check(1, 'lint', 120, 'success'),
      check(2, 'test', 450, 'success'),
      check(2, 'lint', 120, 'success')
    ]
  }
})

// What a fixer sees: the failure summary, then it commits a fix.
const fixCommand = [
  'echo "fixer: attempt $AUTOLOOP_ATTEMPT, signature: $AUTOLOOP_SIGNATURE"',
  'echo "fixer: summary for the agent ($AUTOLOOP_FAILURE_MD):"',
  'sed -n "1,12p" "$AUTOLOOP_FAILURE_MD"',
  `printf 'export const total = (prices) => prices.reduce((a, b) => a + b, 0) // off-by-one fixed\\n' > cart.js`,
  'git -c user.name=fixer -c user.email=fixer@autoloop.invalid commit -qam "fix: cart total"'
].join(' && ')

try {
  banner('The agent made the cart faster in its sandbox and committed; the gate takes over')
  commit(
    'cart.js',
    'export const total = (prices) => prices.slice(1).reduce((a, b) => a + b, 0)\n',
    'iteration 1: faster total()'
  )
  const outputFile = join(tmp, 'output')
  const summaryFile = join(tmp, 'summary')
  writeFileSync(outputFile, '')
  writeFileSync(summaryFile, '')
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: tmp,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: work,
    GITHUB_REPOSITORY: `${fake.state.owner}/${fake.state.repo}`,
    GITHUB_API_URL: fake.apiUrl,
    GITHUB_SERVER_URL: fake.serverUrl,
    GITHUB_RUN_ID: '4242',
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    RUNNER_TEMP: tmp,
    AUTOLOOP_CLOCK_URL: fake.clockUrl,
    'INPUT_GITHUB-TOKEN': 'demo-token',
    INPUT_PROGRAM: PROGRAM,
    INPUT_ISSUE: '1',
    'INPUT_STATE-DIR': stateDir,
    'INPUT_FIX-COMMAND': fixCommand,
    'INPUT_POLL-INTERVAL-SECONDS': '30',
    'INPUT_CHECKS-GRACE-SECONDS': '60'
  }
  console.log(`$ node dist/index.js   # gate ${PROGRAM}, with fix-command\n`)
  await new Promise<void>((done) => {
    const child = spawn(process.execPath, [DIST], {
      cwd: work,
      env,
      stdio: ['ignore', 'pipe', 'inherit']
    })
    let pending = ''
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n')
      pending = lines.pop() ?? ''
      for (const line of lines)
        if (line && !/^::(set-output|debug|add-mask)/.test(line)) console.log(`  ${line}`)
    })
    child.on('close', () => done())
  })

  const outputs: Record<string, string> = {}
  for (const match of readFileSync(outputFile, 'utf8').matchAll(
    /^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm
  ))
    outputs[match[1]!] = match[3]!

  banner('Job summary')
  console.log(indent(readFileSync(summaryFile, 'utf8')))
  banner('Outputs')
  for (const name of ['status', 'verdict', 'sha', 'pr-number', 'attempt', 'attempts-remaining'])
    console.log(`  ${name} = ${outputs[name] ?? ''}`)
  banner(`State file ${PROGRAM}.md (what the autoloop scheduler reads)`)
  const state = readFileSync(join(stateDir, `${PROGRAM}.md`), 'utf8')
  console.log(indent(state.slice(state.indexOf('## ⚙️ Machine State'), state.indexOf('## 📋'))))

  banner('Result')
  console.log(
    `  branch history: ${fake
      .headsOf(BRANCH)
      .map((sha) => sha.slice(0, 7))
      .join(' → ')}`
  )
  console.log(
    `  rate limit: ${fake.rateLimit.pointsSpent} points for ${fake.rateLimit.requestsSent} requests (${fake.rateLimit.notModified} answered 304)`
  )
  const invalid = fake.invalidRequests()
  console.log(`  requests invalid against GitHub's OpenAPI description: ${invalid.length}`)
  const ok = outputs.status === 'success' && outputs.attempt === '1' && invalid.length === 0
  console.log(
    ok
      ? '\n  red → fix → green: the iteration may be accepted.'
      : '\n  the demo did not end as expected'
  )
  if (!ok) process.exitCode = 1
} finally {
  await fake.close()
  rmSync(tmp, { recursive: true, force: true })
}
