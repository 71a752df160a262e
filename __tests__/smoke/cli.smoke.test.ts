/**
 * The published CLI (`bin: autoloop-ci-gate` → dist/cli/index.js) runs without a build step.
 */
import { describe, expect, it } from '@jest/globals'
import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '../..')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>
}
const CLI = join(ROOT, pkg.bin['autoloop-ci-gate'] ?? '')
const CORPUS = join(ROOT, '__fixtures__/corpus')

describe('autoloop-ci-gate CLI', () => {
  it('is the committed bundle named in package.json bin, with a node shebang', () => {
    expect(pkg.bin['autoloop-ci-gate']).toBe('dist/cli/index.js')
    expect(readFileSync(CLI, 'utf8').startsWith('#!/usr/bin/env node')).toBe(true)
  })

  it('signature --json prints exactly one JSON object for a job log', () => {
    const out = execFileSync(
      process.execPath,
      [CLI, 'signature', '--json', '--log', join(CORPUS, 'jest/assertion/job-log.log')],
      { encoding: 'utf8' }
    )
    const parsed = JSON.parse(out) as { signature: string; short: string; keys: string[] }
    expect(Object.keys(parsed).sort()).toEqual(['keys', 'short', 'signature'])
    expect(parsed.keys).toEqual([
      'jest:__tests__/cart.test.js>cart > total > adds the prices of two items'
    ])
    expect(parsed.signature).toBe(parsed.keys.join('; '))
  })

  it('reads standard input, and gives the same signature for a noisy re-run of the same failure', () => {
    const run = (file: string) =>
      execFileSync(process.execPath, [CLI, 'signature', '--json'], {
        input: readFileSync(join(CORPUS, file)),
        encoding: 'utf8'
      })
    expect(run('jest/assertion/color.txt')).toBe(run('jest/assertion/workers.txt'))
    expect(run('jest/assertion/color.txt')).not.toBe(run('jest/type-error/in-band.txt'))
  })

  it('refuses a bad argument with exit code 2 and a message', () => {
    const result = spawnSync(process.execPath, [CLI, 'signature', '--bogus'], { encoding: 'utf8' })
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('--bogus')
  })

  it('refuses a bad program before any I/O', () => {
    const result = spawnSync(process.execPath, [CLI, 'gate', '--program', '../x'], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        GITHUB_REPOSITORY: 'o/r',
        GITHUB_TOKEN: 't',
        GITHUB_API_URL: 'http://127.0.0.1:9'
      }
    })
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('input `program`')
  })
})
