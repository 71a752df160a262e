/**
 * The fix-command runner with real processes: the timeout stops every process the command
 * started (its own process group), and the environment it gets holds no token.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { memoryLogger } from '../../__fixtures__/log.js'
import { fixCommandEnvironment, fixCommandRunner } from '../../src/adapters/fix-command.js'
import { tempDir } from '../helpers/temp-dir.js'

/** Whether `pid` is still a live process (a zombie waiting to be reaped is not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

/**
 * Whether `pid` is gone within `withinMs`. A process closes its pipes a moment before the
 * kernel marks it ended, so the runner may resolve inside that moment: the check waits it out.
 * A process the runner failed to stop (a `sleep 60`) is still there when the wait ends.
 */
async function goneWithin(pid: number, withinMs = 5_000): Promise<boolean> {
  const deadline = performance.now() + withinMs
  while (alive(pid)) {
    if (performance.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return true
}

function runner(graceMs = 5_000) {
  return fixCommandRunner({
    cwd: tempDir('autoloop-fix-cwd-'),
    env: { PATH: process.env.PATH ?? '' },
    log: memoryLogger(),
    graceMs
  })
}

const started: number[] = []
const readPid = (file: string) => {
  const pid = Number(readFileSync(file, 'utf8').trim())
  started.push(pid)
  return pid
}

// A runner that failed to stop its processes must not leave them to the next test.
afterEach(() => {
  for (const pid of started.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL')
})

describe('fixCommandRunner', () => {
  it('at the timeout, stops the command and the grandchild it started, promptly', async () => {
    const pidFile = join(tempDir('autoloop-fix-'), 'grandchild.pid')
    // The grandchild holds the output pipe, as `npm test` under `bash -c` does.
    const command = `sh -c 'echo $$ > "${pidFile}"; exec sleep 60' & wait`
    const started = performance.now()
    const result = await runner()(command, {}, 500)
    const elapsed = performance.now() - started
    expect(result.timedOut).toBe(true)
    expect(result.exitCode).not.toBe(0)
    expect(elapsed).toBeLessThan(10_000)
    expect(await goneWithin(readPid(pidFile))).toBe(true)
  }, 40_000)

  it('kills (SIGKILL) a process that ignores SIGTERM once the grace period ends', async () => {
    const pidFile = join(tempDir('autoloop-fix-'), 'stubborn.pid')
    const command = `sh -c 'trap "" TERM; echo $$ > "${pidFile}"; while :; do sleep 0.1; done' & wait`
    const started = performance.now()
    const result = await runner(300)(command, {}, 500)
    expect(performance.now() - started).toBeLessThan(10_000)
    expect(result.timedOut).toBe(true)
    expect(await goneWithin(readPid(pidFile))).toBe(true)
  }, 40_000)

  it('a command that ends leaves nothing running, and its exit code is kept', async () => {
    const pidFile = join(tempDir('autoloop-fix-'), 'background.pid')
    const started = performance.now()
    const result = await runner()(`sleep 60 & echo $! > "${pidFile}"; exit 3`, {}, 60_000)
    expect(performance.now() - started).toBeLessThan(10_000)
    expect(result).toEqual({ exitCode: 3, timedOut: false })
    expect(await goneWithin(readPid(pidFile))).toBe(true)
  }, 40_000)

  it('passes the extra variables and forwards the output to the log', async () => {
    const log = memoryLogger()
    const run = fixCommandRunner({ cwd: tempDir('autoloop-fix-cwd-'), env: {}, log })
    const result = await run(
      'echo "attempt $AUTOLOOP_ATTEMPT"; echo oops >&2',
      { AUTOLOOP_ATTEMPT: '2' },
      10_000
    )
    expect(result).toEqual({ exitCode: 0, timedOut: false })
    // The command's own output reaches the log (stdout and stderr).
    expect(log.lines.join('\n')).toContain('attempt 2')
    expect(log.lines.join('\n')).toContain('oops')
  })

  it('a command that cannot start ends with exit code 127', async () => {
    const run = fixCommandRunner({ cwd: '/nonexistent/folder', env: {}, log: memoryLogger() })
    await expect(run('true', {}, 10_000)).resolves.toEqual({ exitCode: 127, timedOut: false })
  })
})

describe('fixCommandEnvironment', () => {
  const GITHUB = 'ghs_githubTokenValue0123456789'
  const PUSH = 'github_pat_pushTokenValue0123456789'
  const runnerEnv = {
    PATH: '/usr/bin',
    HOME: '/home/runner',
    GITHUB_WORKSPACE: '/work',
    GITHUB_SHA: 'a'.repeat(40),
    'INPUT_GITHUB-TOKEN': GITHUB,
    'INPUT_PUSH-TOKEN': PUSH,
    INPUT_PROGRAM: 'coverage',
    ACTIONS_RUNTIME_TOKEN: 'runtime-token',
    ACTIONS_RUNTIME_URL: 'https://runtime.example/',
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-token',
    ACTIONS_ID_TOKEN_REQUEST_URL: 'https://oidc.example/',
    GITHUB_TOKEN: GITHUB,
    GH_TOKEN: 'gh-cli-token',
    DEPLOY_URL: `https://x-access-token:${PUSH}@github.example/o/r.git`,
    NPM_TOKEN: 'npm-token',
    UNSET: undefined
  }

  it('withholds inputs, runner tokens and any variable holding a token', () => {
    const env = fixCommandEnvironment(runnerEnv, { passOn: [], secrets: [GITHUB, PUSH] })
    expect(Object.keys(env).sort()).toEqual(
      ['GITHUB_SHA', 'GITHUB_WORKSPACE', 'HOME', 'NPM_TOKEN', 'PATH'].sort()
    )
    expect(JSON.stringify(env)).not.toContain(GITHUB)
    expect(JSON.stringify(env)).not.toContain(PUSH)
  })

  it('passes on exactly the variables fix-command-env names', () => {
    const env = fixCommandEnvironment(runnerEnv, {
      passOn: ['GH_TOKEN', 'INPUT_PROGRAM'],
      secrets: [GITHUB, PUSH, '']
    })
    expect(env).toMatchObject({ GH_TOKEN: 'gh-cli-token', INPUT_PROGRAM: 'coverage' })
    expect(env).not.toHaveProperty('ACTIONS_RUNTIME_TOKEN')
    expect(env).not.toHaveProperty('INPUT_PUSH-TOKEN')
  })
})
