import { createHash } from 'node:crypto'
import { describe, expect, test } from '@jest/globals'
import fc from 'fast-check'
import {
  SHORT_SIGNATURE_MAX_LENGTH,
  SIGNATURE_SCHEME_VERSION,
  signatureOf
} from '../../../src/core/signature/signature.js'

const key = fc.stringMatching(/^[a-z]{2,6}:[A-Za-z0-9_./> -]{1,60}$/)

describe('signatureOf', () => {
  test('sorts and de-duplicates the keys and joins them with "; "', () => {
    const signature = signatureOf(['jest:b.test.ts>x', 'eslint:no-var:a.js', 'jest:b.test.ts>x'])
    expect(signature.keys).toEqual(['eslint:no-var:a.js', 'jest:b.test.ts>x'])
    expect(signature.full).toBe('eslint:no-var:a.js; jest:b.test.ts>x')
    expect(signature.short).toBe(signature.full)
  })

  test('the hash is SHA-256 of the scheme version and the sorted keys, one per line', () => {
    const keys = ['go:pkg:TestB', 'go:pkg:TestA']
    const expected = createHash('sha256')
      .update(`autoloop-ci-gate signature v${SIGNATURE_SCHEME_VERSION}\ngo:pkg:TestA\ngo:pkg:TestB`)
      .digest('hex')
    expect(signatureOf(keys).hash).toBe(expected)
  })

  test('the order and repetition of keys never change the signature', () => {
    fc.assert(
      fc.property(fc.array(key, { minLength: 1, maxLength: 30 }), fc.nat(), (keys, seed) => {
        const shuffled = [...keys, ...keys.slice(0, seed % keys.length)].sort(() => 0).reverse()
        const a = signatureOf(keys)
        const b = signatureOf(shuffled)
        expect(b).toEqual(a)
      })
    )
  })

  test('an empty set gives empty strings', () => {
    expect(signatureOf([])).toMatchObject({ keys: [], full: '', short: '' })
  })

  test('the one-line form keeps whole leading keys, then +N more with 8 hex digits of the hash', () => {
    const keys = Array.from(
      { length: 12 },
      (_, i) => `pytest:tests/test_orders.py::test_case_${i + 10}`
    )
    const signature = signatureOf(keys)
    expect(signature.short.length).toBeLessThanOrEqual(SHORT_SIGNATURE_MAX_LENGTH)
    const match = /^(.*) \+(\d+) more \(hash ([0-9a-f]{8})\)$/.exec(signature.short)
    expect(match).not.toBeNull()
    const kept = (match?.[1] ?? '').split('; ')
    expect(kept).toEqual(signature.keys.slice(0, kept.length))
    expect(Number(match?.[2])).toBe(keys.length - kept.length)
    expect(match?.[3]).toBe(signature.hash.slice(0, 8))
    // One more whole key would not have fitted.
    const withOneMore = signature.keys.slice(0, kept.length + 1).join('; ')
    const suffix = ` +${keys.length - kept.length - 1} more (hash ${signature.hash.slice(0, 8)})`
    expect(withOneMore.length + suffix.length).toBeGreaterThan(SHORT_SIGNATURE_MAX_LENGTH)
  })

  test('the one-line form is never longer than 160 characters and never holds #<digit>', () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 40 }), (keys) => {
        const { short, full } = signatureOf(keys)
        expect(short.length).toBeLessThanOrEqual(SHORT_SIGNATURE_MAX_LENGTH)
        expect(short).not.toMatch(/#\d/)
        if (full.length <= SHORT_SIGNATURE_MAX_LENGTH) expect(short).toBe(full)
      })
    )
  })

  test('different key sets that share the first keys still differ in the one-line form', () => {
    const base = Array.from({ length: 10 }, (_, i) => `jest:src/a.test.ts>case number ${i}`)
    const a = signatureOf([...base, 'jest:src/z.test.ts>one'])
    const b = signatureOf([...base, 'jest:src/z.test.ts>two'])
    expect(a.short).not.toBe(b.short)
  })

  test('the scheme is versioned, and a new version never matches an old hash', () => {
    const keys = ['jest:tests/a.test.ts>sum adds']
    const unversioned = createHash('sha256').update(keys.join('\n')).digest('hex')
    expect(signatureOf(keys).hash).not.toBe(unversioned)
  })
})
