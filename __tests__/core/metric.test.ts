import { describe, expect, it } from '@jest/globals'
import { formatDelta, isBetter, reachesTarget } from '../../src/core/metric.js'

describe('formatDelta', () => {
  it.each([
    [0.8731, 0.8612, '+0.0119'],
    [0.74, 0.86, '-0.12'],
    [12, 10, '+2'],
    [1.5, 1.5, '0'],
    [1e-7, 0, '+0.0000001'],
    [100, 100.25, '-0.25']
  ])('%p − %p = %p', (next, previous, expected) => {
    expect(formatDelta(next, previous)).toBe(expected)
  })
})

describe('isBetter', () => {
  it.each([
    ['higher', 0.9, 0.8, true],
    ['higher', 0.8, 0.8, false],
    ['higher', 0.7, 0.8, false],
    ['lower', 90, 100, true],
    ['lower', 100, 100, false],
    ['lower', 110, 100, false]
  ] as const)(
    'in direction %s: %p against %p is better = %p',
    (direction, candidate, reference, better) => {
      expect(isBetter(candidate, reference, direction)).toBe(better)
    }
  )

  it('any value is better than no best yet', () => {
    expect(isBetter(0, null, 'higher')).toBe(true)
    expect(isBetter(0, null, 'lower')).toBe(true)
  })
})

describe('reachesTarget', () => {
  it.each([
    ['higher', 0.95, 0.95, true],
    ['higher', 0.949, 0.95, false],
    ['lower', 120, 120, true],
    ['lower', 121, 120, false]
  ] as const)(
    'in direction %s: %p against target %p reached = %p',
    (direction, metric, target, reached) => {
      expect(reachesTarget(metric, target, direction)).toBe(reached)
    }
  )
})
