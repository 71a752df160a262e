/**
 * The action's entry point (action.yml `main: dist/index.js`).
 */
import * as core from '@actions/core'
import { run } from './main.js'
import { systemClock } from './adapters/clock.js'
import { coreLogger, realConnect } from './deps.js'

await run({
  io: {
    readInput: (name) => core.getInput(name),
    setOutput: (name, value) => core.setOutput(name, value),
    async writeSummary(markdown) {
      if (process.env.GITHUB_STEP_SUMMARY) await core.summary.addRaw(markdown).write()
      else core.info(markdown)
    },
    setFailed: (message) => core.setFailed(message),
    setSecret: (value) => core.setSecret(value)
  },
  log: coreLogger,
  connect: realConnect({
    env: process.env,
    cwd: process.cwd(),
    log: coreLogger,
    clock: systemClock
  })
})
