/* global process */
// jest's module runtime (jest.config.js: `runtime`) with one V8 coverage session per worker
// process instead of one per test file (README: "Development").
//
// For every test file, jest opens an inspector session, enables the debugger and starts precise
// coverage, then takes it and stops everything again. Enabling the debugger and starting block
// coverage walk the whole heap of the worker: about 150 ms of CPU per test file, more than most
// unit test files take to run. Here the first test file of a worker starts the session and
// precise coverage, and every test file takes its coverage (V8 resets the counters on each
// take, so each file still gets what ran since the previous one), never stopping it. jest
// merges the files' coverage by script as before, so the figures are the same.
const { dirname } = require('node:path')
const { Session } = require('node:inspector')

const jestRuntime = require.resolve('jest-runtime')
// The module jest-runtime loads its instrumenter from (the same instance, so replacing its
// export changes what jest-runtime builds).
const collectV8Coverage = require(
  require.resolve('collect-v8-coverage', { paths: [dirname(jestRuntime)] })
)

/** @type {Promise<(method: string, params?: object) => Promise<any>> | undefined} */
let started

function startOnce() {
  started ??= (async () => {
    const session = new Session()
    session.connect()
    const post = (method, params) =>
      new Promise((resolve, reject) =>
        session.post(method, params, (error, result) => (error ? reject(error) : resolve(result)))
      )
    await post('Debugger.enable')
    await post('Profiler.enable')
    await post('Profiler.startPreciseCoverage', { callCount: true, detailed: true })
    return post
  })()
  return started
}

/** collect-v8-coverage's `CoverageInstrumenter`, on the worker's one session. */
class WorkerCoverage {
  async startInstrumenting() {
    await startOnce()
  }

  async stopInstrumenting() {
    const post = await startOnce()
    const { result } = await post('Profiler.takePreciseCoverage')
    if (process.platform === 'win32') {
      // as collect-v8-coverage does: file:////host/path is file://host/path to Node
      for (const entry of result) {
        if (entry.url.startsWith('file:////')) entry.url = `file://${entry.url.slice(9)}`
      }
    }
    return result
  }
}

collectV8Coverage.CoverageInstrumenter = WorkerCoverage

module.exports = require(jestRuntime)
