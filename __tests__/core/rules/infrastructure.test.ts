import { describe, expect, it } from '@jest/globals'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { infrastructureCause } from '../../../src/core/rules/infrastructure.js'
import { REAL_INFRASTRUCTURE_LINES as REAL } from '../../../__fixtures__/infrastructure/lines.js'

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
    const corpus = fileURLToPath(new URL('../../../__fixtures__/corpus/', import.meta.url))
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
