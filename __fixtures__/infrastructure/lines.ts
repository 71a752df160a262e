/**
 * What the runner, npm and pip print when a job fails for a reason outside the project:
 * real lines, each quoted from the public thread named above it (never written here). Used by
 * the unit tests of the infrastructure classifier and the classification benchmark.
 */
export const REAL_INFRASTRUCTURE_LINES = {
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
