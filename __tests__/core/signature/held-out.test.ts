/**
 * The held-out set of real logs (`__fixtures__/held-out/`) and its scorer. The score itself is
 * measured, not asserted (BENCHMARKS.md): asserting it would make the set one to tune on.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from '@jest/globals'
import {
  HELD_OUT_BATCH_2_DIR,
  HELD_OUT_DIR,
  scoreHeldOut,
  verdictOf
} from '../../../scripts/bench/held-out.js'

interface Manifest {
  logs: { file: string; source: string; expected: string[] }[]
}

describe.each([
  ['first batch', HELD_OUT_DIR, 60],
  ['second batch', HELD_OUT_BATCH_2_DIR, 10]
])('held-out real logs, %s', (_name, dir, atLeast) => {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest

  test(`at least ${atLeast} logs, each quoted from a public thread it names`, () => {
    expect(manifest.logs.length).toBeGreaterThanOrEqual(atLeast)
    for (const log of manifest.logs) {
      expect(existsSync(join(dir, log.file))).toBe(true)
      expect(log.source).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+\/(?:issues|pull)\/\d+$/)
      expect(Array.isArray(log.expected)).toBe(true)
    }
  })

  test('every log is scored', () => {
    const scored = scoreHeldOut(dir)
    expect(scored.map((log) => log.file)).toEqual(manifest.logs.map((log) => log.file))
  })
})

describe('verdictOf', () => {
  test('good: exactly the named keys', () => {
    expect(verdictOf(['jest:a.test.ts>adds'], ['jest:a.test.ts>adds'])).toBe('good')
  })

  test('a log that names no key is good with the fallback or nothing, wrong with a tool key', () => {
    expect(verdictOf([], [])).toBe('good')
    expect(verdictOf([], ['error:Error: boom', 'gha:exit code N'])).toBe('good')
    expect(verdictOf([], ['vite:cannot resolve:x'])).toBe('wrong')
  })

  test('partial: some named keys and nothing else; empty: only the fallback', () => {
    expect(verdictOf(['go:TestA', 'go:TestB'], ['go:TestA'])).toBe('partial')
    expect(verdictOf(['go:TestA'], ['error:FAIL'])).toBe('empty')
    expect(verdictOf(['go:TestA'], [])).toBe('empty')
  })

  test('wrong: a tool key for something else, or another line than the named fallback', () => {
    expect(verdictOf(['go:TestA'], ['go:TestA', 'go:TestZ'])).toBe('wrong')
    expect(verdictOf(['error:Error: Cannot find module x'], ['error:npm ERR! code N'])).toBe(
      'wrong'
    )
  })
})
