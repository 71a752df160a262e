import { describe, expect, it } from '@jest/globals'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { infrastructureCause } from '../../src/failures/infrastructure.js'

/**
 * Real lines, each quoted from the public thread named above it (never written here): what
 * the runner, npm and pip print when the failure is not the project's.
 */
const REAL = {
  // https://github.com/actions/runner/issues/2427 (job log output)
  shutdown:
    '2023-02-09T20:11:49.9484027Z ##[error]The runner has received a shutdown signal. This can happen when the runner service is stopped, or a manually started runner is canceled.',
  // https://github.com/actions/runner/issues/2427 (the line after it)
  canceled: '2023-02-09T20:11:49.9966268Z ##[error]The operation was canceled.',
  // https://github.com/actions/runner-images/issues/9823
  hostedLost:
    'The hosted runner: GitHub Actions 8 lost communication with the server. Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its network access can cause this error.',
  // https://github.com/actions/runner/issues/2624
  selfHostedLost:
    'The self-hosted runner: xxx lost communication with the server. Verify the machine is running and has a healthy network connection. Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its network access can cause this error.',
  // https://github.com/actions/runner-images/issues/10699
  disk: "System.IO.IOException: No space left on device : '/home/runner/runners/2.319.1/_diag/Worker_20240929-071716-utc.log'",
  // https://github.com/actions/runner-images/issues/3737 (npm 9 and earlier)
  npmReset: ['npm ERR! code ECONNRESET', 'npm ERR! network aborted'],
  // https://github.com/docker/github-builder/pull/190 (npm 10 and later)
  npmResetNew: ['npm error code ECONNRESET', 'npm error network aborted'],
  // https://github.com/luxonis/depthai/issues/1129
  pipDns:
    "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0xffff9f2197b0>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')': /simple/pip/"
}

describe('infrastructureCause', () => {
  it.each([
    ['the runner shut down', [REAL.shutdown, REAL.canceled], 'the runner was shut down'],
    ['a hosted runner lost', [REAL.hostedLost], 'the runner lost communication with GitHub'],
    [
      'a self-hosted runner lost',
      [REAL.selfHostedLost],
      'the runner lost communication with GitHub'
    ],
    ['the disk full', [REAL.disk], 'the machine ran out of disk space'],
    ['npm reset (npm 9)', REAL.npmReset, 'the network failed while installing dependencies'],
    ['npm reset (npm 10)', REAL.npmResetNew, 'the network failed while installing dependencies'],
    ['pip unable to resolve', [REAL.pipDns], 'the network failed while installing dependencies'],
    ['the system cancelling the job', [REAL.canceled], 'the job was cancelled by the system']
  ])('recognises %s from the real lines', (_name, lines, cause) => {
    expect(infrastructureCause('failure', lines, 1)).toBe(cause)
  })

  it('names the first cause in its order when a log shows several (a shutdown cancels the step)', () => {
    expect(infrastructureCause('failure', [REAL.canceled, REAL.shutdown], 0)).toBe(
      'the runner was shut down'
    )
  })

  it('a cancelled check that showed no failure of the project counts as cancelled by the system', () => {
    expect(infrastructureCause('cancelled', [], 0)).toBe(
      'the job was cancelled before it finished, with no failure of the project in its log'
    )
    // With a failure of its own, it is the project's.
    expect(infrastructureCause('cancelled', ['FAIL __tests__/cart.test.js'], 1)).toBeNull()
    expect(infrastructureCause('failure', [], 0)).toBeNull()
  })

  it("never takes a real tool's own failure output for infrastructure (the whole corpus)", () => {
    const corpus = fileURLToPath(new URL('../../__fixtures__/corpus/', import.meta.url))
    const files = readdirSync(corpus, { recursive: true, encoding: 'utf8' }).filter((path) =>
      /\.(txt|log)$/.test(path)
    )
    expect(files.length).toBeGreaterThan(100)
    const misread = files.filter((path) => {
      const lines = readFileSync(join(corpus, path), 'utf8').split(/\r?\n/)
      return infrastructureCause('failure', lines, 1) !== null
    })
    expect(misread).toEqual([])
  })
})
