/**
 * The key lock (README: "Failure signatures"): today's parsers give the keys recorded under
 * today's signature scheme version, so no change to the keys lands without raising it.
 */
import { describe, expect, test } from '@jest/globals'
import {
  currentSignatures,
  lockVerdict,
  readKeysLock,
  type KeysLock
} from '../../../scripts/corpus/keys-lock.js'
import { SIGNATURE_SCHEME_VERSION } from '../../../src/core/signature/signature.js'

describe('the committed key lock', () => {
  // Every class's first file and every tuning fixture, read once for both tests.
  const current = currentSignatures()

  test('holds the signature of every class, as today’s parsers give it, under today’s scheme', () => {
    const lock = readKeysLock()
    expect(lock?.scheme).toBe(SIGNATURE_SCHEME_VERSION)
    // A failure here names the classes whose keys changed: raise SIGNATURE_SCHEME_VERSION,
    // then run `npx tsx scripts/corpus/keys-lock.ts`.
    expect(lockVerdict(lock, current, SIGNATURE_SCHEME_VERSION)).toEqual({
      kind: 'current'
    })
  })

  test('covers the generated classes and the quoted tuning fixtures, not the held-out ones', () => {
    const ids = Object.keys(current)
    expect(ids.filter((id) => !id.startsWith('quoted/')).length).toBeGreaterThanOrEqual(91)
    expect(ids.filter((id) => id.startsWith('quoted/')).length).toBeGreaterThan(0)
    expect(ids).not.toContain('quoted/cargo-test/old-panic-blocks')
    expect(ids).toContain('quoted/go-test/timeout-running-list')
  })
})

describe('lockVerdict', () => {
  const lock: KeysLock = { scheme: 3, signatures: { a: 'jest:a', b: 'go:b' } }

  test.each<[string, KeysLock | null, Record<string, string>, number, unknown]>([
    ['no lock yet', null, { a: 'jest:a' }, 3, { kind: 'write' }],
    ['a lock of an older scheme', lock, { a: 'jest:A' }, 4, { kind: 'write' }],
    ['the same keys', lock, { a: 'jest:a', b: 'go:b' }, 3, { kind: 'current' }],
    [
      'a class added',
      lock,
      { a: 'jest:a', b: 'go:b', c: 'x' },
      3,
      { kind: 'write-classes', classes: ['c'] }
    ],
    ['a class gone', lock, { a: 'jest:a' }, 3, { kind: 'write-classes', classes: ['b'] }],
    [
      'a key changed under the same scheme',
      lock,
      { a: 'jest:a2', b: 'go:b', c: 'x' },
      3,
      { kind: 'raise-version', classes: ['a'] }
    ]
  ])('%s', (_name, given, current, scheme, expected) => {
    expect(lockVerdict(given, current, scheme)).toEqual(expected)
  })
})
