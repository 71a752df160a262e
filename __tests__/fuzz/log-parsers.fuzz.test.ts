/**
 * Every log parser against random and adversarial lines: each parser directly (no line cap,
 * no trigger prefilter) and the extractor with `everyLine: true`. They must terminate, never
 * throw, and emit well-formed keys (one line, bounded, starting with their tool). Time is
 * measured outside the tests: `npx tsx scripts/chaos/parser-timing.ts` (RELIABILITY.md).
 */
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { PARSERS } from '../../src/core/signature/parsers/index.js'
import { extractFailuresFromString } from '../../src/core/signature/extract.js'
import { MAX_KEY_LENGTH, buildKey } from '../../src/core/signature/normalise.js'
import type { Finding } from '../../src/core/signature/types.js'
import { LINE_PREFIXES, RUN_UNITS, adversarialLine } from '../../scripts/chaos/adversarial.js'

function expectWellFormed(findings: readonly Finding[], tool?: string): void {
  for (const { key } of findings) {
    expect(typeof key).toBe('string')
    expect(key).not.toMatch(/[\n\r|]/)
    expect(key.length).toBeLessThanOrEqual(MAX_KEY_LENGTH)
    if (tool) expect(key.split(':')[0]).toBe(tool)
  }
}

function feedParser(entry: (typeof PARSERS)[number], lines: readonly string[]): Finding[] {
  const parser = entry.create()
  let previous: string | undefined
  for (const line of lines) {
    parser.push(line, previous)
    previous = line
  }
  return parser.finish()
}

/** Characters the patterns care about, weighted towards them. */
const alphabet = fc.constantFrom(
  ...' \t:/()<>[]{}`\'"\\|#.,-_=+*✕✖●›×→✓0123456789aAeEsStTxX'.split(''),
  'error',
  'Error: ',
  'FAIL',
  'not ok ',
  '::',
  '.ts',
  '.py',
  'TS2339',
  '🚀',
  '\u200b'
)
const randomLine = fc.array(alphabet, { maxLength: 200 }).map((parts) => parts.join(''))
const randomPrefixedLine = fc
  .tuple(fc.constantFrom(...LINE_PREFIXES), randomLine)
  .map(([prefix, rest]) => prefix + rest)

describe('log parsers under random lines', () => {
  it('each parser, fed random logs line by line, terminates with well-formed keys', () => {
    fc.assert(
      fc.property(fc.array(randomPrefixedLine, { minLength: 1, maxLength: 30 }), (lines) => {
        for (const entry of PARSERS) expectWellFormed(feedParser(entry, lines), entry.tool)
        expectWellFormed(extractFailuresFromString(lines.join('\n'), { everyLine: true }).findings)
      }),
      { numRuns: 300 }
    )
  })
})

describe('log parsers under adversarial runs', () => {
  // Every prefix × unit pair at 8 KiB through every parser; a few long ones below.
  it(`${LINE_PREFIXES.length} prefixes × ${RUN_UNITS.length} runs of 8 KiB through every parser`, () => {
    for (const prefix of LINE_PREFIXES) {
      for (const unit of RUN_UNITS) {
        const line = adversarialLine(prefix, unit, 8 * 1024)
        for (const entry of PARSERS) expectWellFormed(feedParser(entry, [line, line]), entry.tool)
        expectWellFormed(
          extractFailuresFromString(`${line}\n${line}\n`, { everyLine: true }).findings
        )
      }
    }
  })

  it('a 1 MB line through the extractor (cut at its line cap) and every parser directly', () => {
    const mb = adversarialLine('src/a.ts(1,1): error TS2339: ', ' :/(>`✕', 1 << 20)
    expectWellFormed(extractFailuresFromString(`${mb}\n${mb}\n`, { everyLine: true }).findings)
    for (const entry of PARSERS) expectWellFormed(feedParser(entry, [mb]), entry.tool)
  })

  // Regression: node-test's `not ok N - (.*?)(?:\s+# SKIP…)?$` was quadratic on a run of
  // blanks (86 s per MiB at 64 KiB, growing ×5 from 16 KiB; parser-timing.ts measures it).
  // Now the directive is found by one forward search; the names must read as before.
  it('node-test terminates on `not ok 1 - ` and 256 KiB of blanks, and keeps its names', () => {
    const nodeTest = PARSERS.find((entry) => entry.tool === 'node-test')
    if (!nodeTest) throw new Error('no node-test parser')
    const names = (line: string) => feedParser(nodeTest, [line]).map((f) => f.key)
    for (const unit of [' ', '\t', ' \t'])
      expect(names(adversarialLine('not ok 1 - ', unit, 256 * 1024))).toEqual(['node-test:'])
    expect(names('not ok 1 - adds   # SKIP not yet')).toEqual(['node-test:adds'])
    expect(names('not ok 2 - a # b # TODO later')).toEqual(['node-test:a # b'])
    expect(names('not ok 3 - uses \\# SKIPPING')).toEqual(['node-test:uses # SKIPPING'])
    expect(names('not ok 4 - trailing   ')).toEqual(['node-test:trailing'])
  })

  it('node-test reads the same names as the old (quadratic) pattern on short lines', () => {
    const OLD = /^\s*not ok \d+ - (.*?)(?:\s+# (?:SKIP|TODO)\b.*)?$/
    const nodeTest = PARSERS.find((entry) => entry.tool === 'node-test')
    if (!nodeTest) throw new Error('no node-test parser')
    const piece = fc.constantFrom(
      ' ',
      '\t',
      '#',
      '# SKIP',
      '# TODO',
      'SKIPPED',
      'a',
      'b c',
      '\\#',
      '  '
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const line = `not ok 7 - ${pieces.join('')}`
        const old = OLD.exec(line)
        const keys = feedParser(nodeTest, [line]).map((f) => f.key)
        expect(keys).toEqual([buildKey('node-test', (old?.[1] ?? '').replaceAll('\\#', '#'))])
      }),
      { numRuns: 500 }
    )
  })
})
