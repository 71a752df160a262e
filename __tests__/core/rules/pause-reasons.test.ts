import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import {
  CI_PAUSE_STATUS,
  PAUSE_KINDS,
  endsFixLoop,
  isCiPause,
  pauseKindOf,
  pauseReason
} from '../../../src/core/rules/pause-reasons.js'
import { readMachineState, updateMachineState } from '../../../src/statefile/machine-state.js'
import { createStateFile } from '../../../src/statefile/template.js'
import { readLikeScheduler } from '../../helpers/scheduler-rule.js'

const KINDS = PAUSE_KINDS

describe('pauseReason', () => {
  it.each([
    ['stuck', 'jest:a>b', 'stuck in CI fix loop: jest:a>b'],
    ['exhausted', 'tsc:TS2339:x', 'ci-fix-exhausted: tsc:TS2339:x'],
    ['timeout', undefined, 'ci-timeout'],
    ['blocked', 'no CI ran on abc within 180 s', 'ci-blocked: no CI ran on abc within 180 s'],
    ['base-red', 'eslint:x', 'ci-base-red: eslint:x'],
    ['consecutive-errors', undefined, 'consecutive errors']
  ] as const)('%s with %j → %j', (kind, detail, reason) => {
    expect(pauseReason(kind, detail)).toBe(reason)
  })

  it('is one table cell: no pipe, no line break, whatever the detail', () => {
    expect(pauseReason('stuck', 'a | b\nc\r\nd\u2028e')).toBe('stuck in CI fix loop: a ¦ b c d e')
    fc.assert(
      fc.property(
        fc.constantFrom(...KINDS),
        fc.string({ unit: 'binary', maxLength: 200 }),
        (kind, detail) => {
          const reason = pauseReason(kind, detail)
          expect(reason).not.toMatch(/[|\r\n\u2028\u2029]/)
          // What is written is what the scheduler reads back.
          const text = updateMachineState(createStateFile('p'), {
            paused: true,
            pauseReason: reason
          })
          expect(readLikeScheduler(text).fields.pause_reason).toBe(reason)
          expect(readMachineState(text).pauseReason).toBe(reason)
        }
      ),
      { numRuns: 200 }
    )
  })
})

describe('pauseKindOf', () => {
  it('reads back the kind of every reason this action writes', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...KINDS),
        fc.option(fc.string({ maxLength: 80 })),
        (kind, detail) => {
          expect(pauseKindOf(pauseReason(kind, detail ?? undefined))).toBe(kind)
        }
      ),
      { numRuns: 200 }
    )
  })

  it.each([null, '', 'manual', 'paused by hand: see #12', 'ci-timeouts', 'stuck', 'CI-TIMEOUT'])(
    'a reason this action did not write (%j) is none of its kinds',
    (reason) => {
      expect(pauseKindOf(reason)).toBeNull()
      expect(isCiPause(pauseKindOf(reason))).toBe(false)
    }
  )

  it('tolerates the blanks a human leaves around it', () => {
    expect(pauseKindOf('  ci-timeout ')).toBe('timeout')
  })
})

describe('which pauses are whose', () => {
  it('reconcile may lift every CI pause, never consecutive errors', () => {
    expect(KINDS.filter((kind) => isCiPause(pauseKindOf(pauseReason(kind, 'x'))))).toEqual([
      'stuck',
      'exhausted',
      'timeout',
      'blocked',
      'base-red'
    ])
  })

  it('only stuck, exhausted and timeout end the fix loop (and append ci-fix-exhausted)', () => {
    expect(KINDS.filter(endsFixLoop)).toEqual(['stuck', 'exhausted', 'timeout'])
    expect(CI_PAUSE_STATUS).toBe('ci-fix-exhausted')
  })
})
