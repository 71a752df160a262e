import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { compactHistory } from '../../src/statefile/history.js'
import { START } from '../core/ledger-helpers.js'
import { fixtureText, toCrlf, withHistory } from './helpers.js'

/** Entries an hour apart (`spacing`), one in three rejected, of growing change text. */
const historyOf = (text: string, entries: number, spacing = 3_600_000): string =>
  withHistory(
    text,
    entries,
    (i) => ({
      iteration: 40 + i,
      outcome: i % 3 === 0 ? 'rejected' : 'accepted',
      at: START + i * spacing,
      metric: 0.5 + i / 100,
      change: `change ${'y'.repeat(i % 30)}`
    }),
    30_000
  )

describe('compactHistory and its budget', () => {
  it('fits any budget at least the fully collapsed size (the blank line before the collapsed block counted)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 6_000 }),
        (entries, crlf, extra) => {
          let text = historyOf(fixtureText(), entries)
          if (crlf) text = toCrlf(text)
          const floor = compactHistory(text, 0, 'higher').bytes
          const result = compactHistory(text, floor + extra, 'higher')
          expect(result.fits).toBe(true)
          expect(result.bytes).toBe(Buffer.byteLength(result.text, 'utf8'))
          expect(result.bytes).toBeLessThanOrEqual(floor + extra)
        }
      ),
      { numRuns: 100 }
    )
  })

  it('counts the blank line it adds before the collapsed block (an entry edited to end without one)', () => {
    for (const crlf of [false, true]) {
      const eol = crlf ? '\r\n' : '\n'
      let text = historyOf(fixtureText(), 120, 5 * 86_400_000)
      if (crlf) text = toCrlf(text)
      const marker = '<!-- autoloop-ci-gate:collapsed -->'
      // One entry left and three or more range lines (too far apart to merge within the span).
      const floor = compactHistory(text, 0, 'higher').bytes
      let once = ''
      for (let budget = floor; once === ''; budget += 10) {
        const result = compactHistory(text, budget, 'higher').text
        const ranges = (result.split(marker)[1] ?? '').split(eol).filter((l) => l.startsWith('- '))
        if (ranges.length >= 3) once = result
      }
      // The entry before the block edited to end without its blank line.
      const edited = once.replace(`${eol}${eol}${marker}`, `${eol}${marker}`)
      expect(edited).not.toBe(once)
      const least = compactHistory(edited, 0, 'higher').bytes
      for (let maxBytes = least; maxBytes < Buffer.byteLength(edited, 'utf8'); maxBytes += 1) {
        const result = compactHistory(edited, maxBytes, 'higher')
        expect({ maxBytes, bytes: result.bytes, fits: result.fits }).toEqual({
          maxBytes,
          bytes: Buffer.byteLength(result.text, 'utf8'),
          fits: true
        })
        expect(result.bytes).toBeLessThanOrEqual(maxBytes)
      }
    }
  })
})
