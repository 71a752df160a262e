import { describe, expect, test } from '@jest/globals'
import fc from 'fast-check'
import {
  bytesToText,
  cleanLine,
  LineBlockSplitter,
  runnerMarker,
  stripTimestamp,
  type LineReaderOptions
} from '../../../src/core/signature/lines.js'
import { LineSplitter } from './reference-line-splitter.js'

const encoder = new TextEncoder()

/** Writes `bytes` to `splitter` cut at `cuts` (in any order), then ends it. */
function feedInCuts(
  splitter: { write(bytes: Uint8Array): void; end(): void },
  bytes: Uint8Array,
  cuts: number[]
): void {
  let from = 0
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    splitter.write(bytes.subarray(from, cut))
    from = cut
  }
  splitter.write(bytes.subarray(from))
  splitter.end()
}

function splitBytes(bytes: Uint8Array, cuts: number[], options?: LineReaderOptions) {
  const lines: string[] = []
  const splitter = new LineSplitter((line) => lines.push(line), options)
  feedInCuts(splitter, bytes, cuts)
  return { lines, splitter }
}

function blockLines(bytes: Uint8Array, cuts: number[], options?: LineReaderOptions) {
  const lines: string[] = []
  const splitter = new LineBlockSplitter((block) => {
    expect(block.endsWith('\n')).toBe(true)
    lines.push(...block.slice(0, -1).split('\n').map(bytesToText))
  }, options)
  feedInCuts(splitter, bytes, cuts)
  return { lines, splitter }
}

const textWithLines = fc
  .array(fc.string({ unit: fc.constantFrom('a', 'é', '●', '✓', '😀', ' ', '\t', 'Z', '1') }), {
    maxLength: 12
  })
  .map((lines) => lines.join('\n'))

describe('LineSplitter', () => {
  test('any chunking, even inside a UTF-8 sequence, gives the lines of the whole text', () => {
    fc.assert(
      fc.property(textWithLines, fc.array(fc.nat(), { maxLength: 8 }), (text, rawCuts) => {
        const bytes = encoder.encode(text)
        const cuts = rawCuts.map((cut) => cut % (bytes.length + 1))
        const expected = text === '' ? [] : text.split('\n')
        if (expected.at(-1) === '') expected.pop()
        expect(splitBytes(bytes, cuts).lines).toEqual(expected)
      })
    )
  })

  test('a multi-byte character split between two chunks decodes whole', () => {
    const bytes = encoder.encode('ab●cd\n')
    const { lines } = splitBytes(bytes, [3, 4])
    expect(lines).toEqual(['ab●cd'])
  })

  test('stops at the byte cap, marks the result truncated and drops the cut line', () => {
    const bytes = encoder.encode('first\nsecond\nthird\n')
    const { lines, splitter } = splitBytes(bytes, [4, 9], { maxBytes: 10 })
    expect(lines).toEqual(['first'])
    expect(splitter.truncated).toBe(true)
    expect(splitter.bytesRead).toBe(10)
    expect(splitter.write(encoder.encode('more\n'))).toBe(false)
  })

  test('a log within the cap is not truncated and its last line needs no newline', () => {
    const { lines, splitter } = splitBytes(encoder.encode('one\ntwo'), [], { maxBytes: 100 })
    expect(lines).toEqual(['one', 'two'])
    expect(splitter.truncated).toBe(false)
    expect(splitter.bytesRead).toBe(7)
  })

  test('cuts a line at the maximum length, across chunks too', () => {
    const long = 'x'.repeat(50)
    const { lines } = splitBytes(encoder.encode(`${long}\nshort\n${long}`), [7, 20, 60], {
      maxLineLength: 10
    })
    expect(lines).toEqual(['x'.repeat(10), 'short', 'x'.repeat(10)])
  })
})

describe('LineBlockSplitter', () => {
  test('its blocks hold the same lines as LineSplitter, for any chunking', () => {
    fc.assert(
      fc.property(textWithLines, fc.array(fc.nat(), { maxLength: 8 }), (text, rawCuts) => {
        const bytes = encoder.encode(text)
        const cuts = rawCuts.map((cut) => cut % (bytes.length + 1))
        expect(blockLines(bytes, cuts).lines).toEqual(splitBytes(bytes, cuts).lines)
      })
    )
  })

  test('stops at the byte cap and drops the cut line', () => {
    const { lines, splitter } = blockLines(encoder.encode('first\nsecond\nthird\n'), [3], {
      maxBytes: 10
    })
    expect(lines).toEqual(['first'])
    expect(splitter.truncated).toBe(true)
  })

  test('a line without newline never grows past the cap', () => {
    const { lines } = blockLines(encoder.encode(`${'y'.repeat(100)}\nend\n`), [10, 30, 50], {
      maxLineLength: 16
    })
    expect(lines).toEqual(['y'.repeat(16), 'end'])
  })
})

describe('cleanLine', () => {
  test('removes the runner timestamp prefix', () => {
    expect(cleanLine('2026-07-28T23:19:32.4965943Z FAIL src/a.test.ts')).toBe('FAIL src/a.test.ts')
    expect(stripTimestamp('2026-07-28T23:19:32Z x')).toBe('x')
    expect(stripTimestamp('2026-07-28 not a timestamp')).toBe('2026-07-28 not a timestamp')
  })

  test("removes a gh run view --log copy's job and step names, and the BOM after them", () => {
    expect(
      cleanLine(
        'test (ubuntu-latest, 20)\tRun tests\t\ufeff2026-07-28T23:19:32.4965943Z ##[group]Run npm test'
      )
    ).toBe('##[group]Run npm test')
    expect(cleanLine('build\tUNKNOWN STEP\t2026-07-28T23:19:32.4965943Z FAIL src/a.test.ts')).toBe(
      'FAIL src/a.test.ts'
    )
    // Tabs that no timestamp follows are the tool's own.
    expect(cleanLine('FAIL\texample.com/shop\t0.012s')).toBe('FAIL\texample.com/shop\t0.012s')
  })

  test('removes a BOM, CRLF and what a lone CR overwrote', () => {
    expect(cleanLine('\ufeff2026-07-28T23:19:32.4965943Z ##[group]Run npm test\r')).toBe(
      '##[group]Run npm test'
    )
    expect(cleanLine('progress 10%\rprogress 100%')).toBe('progress 100%')
  })

  test('removes 7-bit CSI, OSC hyperlinks, 8-bit CSI and stray C1 controls', () => {
    expect(cleanLine('\x1b[1m\x1b[31m FAIL \x1b[39m\x1b[22m src/a.ts')).toBe(' FAIL  src/a.ts')
    expect(cleanLine('see \x1b]8;;https://example.test/x\x07link\x1b]8;;\x07 here')).toBe(
      'see link here'
    )
    expect(cleanLine('\x9b31mred\x9b0m plain\x85')).toBe('red plain')
    // A raw 0x9b byte decodes to U+FFFD; its parameters go with it.
    expect(cleanLine('\ufffd32mgreen\ufffd0m')).toBe('green')
  })

  test("removes the Open Build Service's seconds, keeping the tool's own indentation", () => {
    // Lines of https://github.com/astral-sh/ruff/issues/19966 and
    // https://github.com/dask/dask/issues/9975 (fixtures quoted/pytest/obs-build-timer*)
    expect(cleanLine('[   14s] >           ruff_check(example, ExamplesConfig())')).toBe(
      '>           ruff_check(example, ExamplesConfig())'
    )
    expect(cleanLine('[   14s]     def test_ruff_offset():')).toBe('    def test_ruff_offset():')
    expect(cleanLine('[   14s] ')).toBe('')
    expect(cleanLine('[  260s]')).toBe('')
    expect(
      cleanLine(
        '[  260s] FAILED dataframe/io/tests/test_parquet.py::test_select_filtered_column[fastparquet]'
      )
    ).toBe('FAILED dataframe/io/tests/test_parquet.py::test_select_filtered_column[fastparquet]')
    // A bracket the tool prints itself stays: a duration with a fraction, text after the bracket.
    expect(cleanLine('[   0.004s] shop::tests::adds')).toBe('[   0.004s] shop::tests::adds')
    expect(cleanLine('[14s]elapsed')).toBe('[14s]elapsed')
  })

  test("removes Nix's builder prefixes: a derivation's name (nix build -L) and a failed build's tail", () => {
    // Lines of the fixtures quoted/go-test/nix-build-log-prefix and quoted/pytest/nix-log-tail-summary
    expect(cleanLine('mkuimage>     --- FAIL: TestUrootCmdline/template_command (0.91s)')).toBe(
      '    --- FAIL: TestUrootCmdline/template_command (0.91s)'
    )
    expect(cleanLine('python3.12-wandb-0.18.5> FAILED tests/a.py::test_x - AssertionError')).toBe(
      'FAILED tests/a.py::test_x - AssertionError'
    )
    expect(cleanLine('       > FAILED tests/a.py::test_x - AssertionError')).toBe(
      'FAILED tests/a.py::test_x - AssertionError'
    )
    expect(cleanLine('       >     test_dot')).toBe('    test_dot')
    expect(cleanLine('       >')).toBe('')
    expect(cleanLine('2026-07-28T23:19:32.4965943Z many-logs> :: doing stuff')).toBe(
      ':: doing stuff'
    )
    // Not a builder's prefix: other indentation before `>`, a blank or `>` inside the name,
    // pytest's own `>` line, Gradle's task line.
    expect(cleanLine('      > x')).toBe('      > x')
    expect(cleanLine('        > x')).toBe('        > x')
    expect(cleanLine('a b> x')).toBe('a b> x')
    expect(cleanLine('>           ruff_check(example)')).toBe('>           ruff_check(example)')
    expect(cleanLine('> Task :app:test FAILED')).toBe('> Task :app:test FAILED')
    expect(cleanLine('x>>y')).toBe('x>>y')
  })
})

describe('runnerMarker', () => {
  test('reads group titles as step names and drops endgroup and debug lines', () => {
    expect(runnerMarker('##[group]Run npx jest --ci')).toEqual({ step: 'npx jest --ci' })
    expect(runnerMarker('##[group]Set up job')).toEqual({ step: 'Set up job' })
    expect(runnerMarker('##[endgroup]')).toEqual({})
    expect(runnerMarker('##[debug]Evaluating condition')).toEqual({})
    expect(runnerMarker('##[error]Process completed with exit code 1.')).toBeUndefined()
    expect(runnerMarker('FAIL src/a.test.ts')).toBeUndefined()
  })
})
