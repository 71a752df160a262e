/**
 * The held-out set of real logs (`__fixtures__/held-out/`) and its scorer. The score itself is
 * measured, not asserted (BENCHMARKS.md): asserting it would make the set one to tune on.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from '@jest/globals'
import {
  factsCarried,
  factsOf,
  HELD_OUT_BATCH_2_DIR,
  HELD_OUT_BATCH_3_DIR,
  HELD_OUT_DIR,
  NOISY_COPIES,
  scoreHeldOut,
  verdictOf
} from '../../../scripts/bench/held-out.js'
import { extractFailuresFromString } from '../../../src/core/signature/extract.js'

interface Manifest {
  logs: { file: string; source: string; expected: string[] }[]
}

describe.each([
  ['first batch', HELD_OUT_DIR, 60],
  ['second batch', HELD_OUT_BATCH_2_DIR, 10],
  ['third batch', HELD_OUT_BATCH_3_DIR, 35]
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

/**
 * The third batch (issue 27) has a floor: a little below the good logs it scored when its
 * manifest, written first, was first run (39 of 46, none wrong), so a parser change that loses
 * good logs or names something that is not the failure shows here. The floor is not a target:
 * the parsers are still not tuned on these logs.
 */
describe('held-out real logs, third batch, floor', () => {
  const scored = scoreHeldOut(HELD_OUT_BATCH_3_DIR)
  test('at least 36 good logs', () => {
    expect(scored.filter((log) => log.verdict === 'good').length).toBeGreaterThanOrEqual(36)
  })
  test('no wrong log', () => {
    expect(scored.filter((log) => log.verdict === 'wrong').map((log) => log.file)).toEqual([])
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

describe('brief facts carried', () => {
  const log = readFileSync(join(HELD_OUT_DIR, '23-testify-test-line.log'), 'utf8')
  const findings = extractFailuresFromString(log).findings
  test('a fact is carried when the rendered brief holds it, blanks collapsed; else missed', () => {
    const line = findings[0]?.details?.[0] ?? ''
    expect(line).not.toBe('')
    const spaced = line.trim().replace(/ /g, '   ')
    const result = factsCarried('x.log', findings, [spaced, 'no such fact anywhere'])
    expect(result.carried).toEqual([spaced])
    expect(result.missed).toEqual(['no such fact anywhere'])
  })
  test('facts are read from every field, a string or a list', () => {
    expect(factsOf({ message: 'a', expected: ['b', 'c'] })).toEqual(['a', 'b', 'c'])
    expect(factsOf(undefined)).toEqual([])
  })
})

describe('noisy copies', () => {
  const text =
    '2026-01-02T03:04:05.1234567Z /home/runner/work/shop/shop/src/a.ts(3,13): error TS2339: x\n'
  test('each changes a log that has what it changes', () => {
    for (const copy of NOISY_COPIES) expect(copy.apply(text)).not.toBe(text)
  })
  test('a raw paste gets timestamps; the macOS root goes back to Linux', () => {
    const [timestamps, , root] = NOISY_COPIES
    expect(timestamps?.apply('FAIL x\n')).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z FAIL x\n$/)
    expect(root?.apply('/Users/runner/work/a/a/b.ts')).toBe('/home/runner/work/a/a/b.ts')
  })
})
