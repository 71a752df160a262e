/**
 * The gate's decision as tables: one row per settlement kind, and the guard order of the fix
 * loop (no progress → budget → wall clock). Ledgers come from the ledger's own operations,
 * causes from the pure rules that build them (`blockedCause`, `judgeFixerRun`,
 * `safeOutputsBlocked`).
 */
import { describe, expect, it } from '@jest/globals'
import {
  decide,
  needsFindings,
  type DecideConfig,
  type Observed,
  type RedFacts,
  type Settlement
} from '../../../src/core/rules/decide.js'
import { blockedCause, type Blocked } from '../../../src/core/rules/classify.js'
import { judgeFixerRun, safeOutputsBlocked } from '../../../src/core/rules/fixer-run.js'
import { latestAttempt, rememberPausedSignature, type Ledger } from '../../../src/core/ledger.js'
import { signatureOf } from '../../../src/core/signature/signature.js'
import {
  LIMITS,
  MINUTE,
  START,
  awaitingApproval,
  begin,
  redAttempts,
  sha,
  sig
} from '../ledger-helpers.js'

const CONFIG: DecideConfig = {
  preExistingFailures: 'block',
  dispatchWorkflow: true,
  fixCommand: false
}

const A = sig('a')
const B = sig('b')

/** Red attempts on `signatures`, then attempt `signatures.length` begun on a new commit. */
function inFlight(signatures = [A], at = START + 30 * MINUTE) {
  const red = redAttempts(signatures)
  const began = begin(red, { sha: sha('new'), runId: 900, now: at })
  return { ledger: began.ledger, index: began.attempt.index }
}

function facts(keys: string[], preExisting: string[] = []): RedFacts {
  return {
    failing: [
      {
        name: 'test',
        conclusion: 'failure',
        url: 'https://github.com/o/r/actions/runs/1/job/2',
        keys: [...keys, ...preExisting],
        firstErrorLines: ['Expected: 1', 'Received: 2 token=hunter2', 'at x', 'at y', 'at z'],
        details: [
          ...keys.map((key) => ({ key, lines: [`detail of ${key}`] })),
          ...preExisting.map((key) => ({ key, lines: ['base detail'] }))
        ]
      }
    ],
    newKeys: keys,
    classification: {
      preExisting,
      baseSha: preExisting.length > 0 ? sha('base') : null,
      baseNote: null,
      flaky: [],
      infrastructure: []
    },
    reruns: []
  }
}

function checks(index: number, extra: Partial<Extract<Observed, { kind: 'checks' }>>): Observed {
  return { kind: 'checks', index, verdict: 'red', blocked: null, findings: null, ...extra }
}

function run(
  ledger: Ledger,
  observed: Observed,
  options: { config?: Partial<DecideConfig>; now?: number } = {}
): Settlement {
  return decide({
    ledger,
    observed,
    config: { ...CONFIG, ...options.config },
    now: options.now ?? START + 40 * MINUTE,
    maskedValues: ['hunter2']
  })
}

function pauseOf(settlement: Settlement) {
  if (settlement.kind !== 'paused') throw new Error(`expected a pause, got ${settlement.kind}`)
  return settlement.pause
}

const noChecks = blockedCause({
  sha: sha('new'),
  awaitingApproval: [],
  noChecks: true,
  pushed: true,
  pushToken: false,
  ciTriggerCommit: false,
  checksGraceSeconds: 120
}) as Blocked
const approval = awaitingApproval(sha('new'))

describe('decide: one row per settlement kind', () => {
  it('has real causes to decide on', () => {
    expect(noChecks).not.toBeNull()
    expect(approval).not.toBeNull()
  })

  it('green settles green on its attempt, with the fix attempts the iteration has left', () => {
    const { ledger, index } = inFlight()
    expect(run(ledger, checks(index, { verdict: 'green' }))).toEqual({
      kind: 'green',
      index,
      attemptsRemaining: LIMITS.maxFixAttempts - index
    })
  })

  it('checks running at the wall clock pause `ci-timeout`, spending the budget', () => {
    const { ledger, index } = inFlight()
    const pause = pauseOf(run(ledger, checks(index, { verdict: 'ci-timeout' })))
    expect(pause).toMatchObject({
      kind: 'timeout',
      index,
      reason: 'ci-timeout',
      verdict: 'ci-timeout',
      remember: false,
      attemptsRemaining: 0
    })
    expect(pause.record.state).toBe('ci-timeout')
    expect(pause.signature?.keys).toEqual(['ci-timeout'])
  })

  it.each([
    ['no CI at all', 'no-checks' as const, noChecks, 'no-checks'],
    ['a run waiting for approval', 'red' as const, approval, 'blocked']
  ])('%s pauses `ci-blocked`, spending no attempt', (_, verdict, blocked, shown) => {
    const { ledger, index } = inFlight()
    const pause = pauseOf(run(ledger, checks(index, { verdict, blocked })))
    expect(pause).toMatchObject({
      kind: 'blocked',
      index,
      reason: `ci-blocked: ${blocked.cause}`,
      verdict: shown,
      signature: null,
      blocked,
      // Fix attempt `index` is not judged: the budget is what it was before it.
      attemptsRemaining: LIMITS.maxFixAttempts - (index - 1)
    })
    expect(index).toBeGreaterThan(0)
    expect(pause.record).toMatchObject({ state: 'blocked', note: blocked.advice })
  })

  it('a red verdict no cause blocks needs its failures first', () => {
    const { ledger, index } = inFlight()
    expect(() => run(ledger, checks(index, {}))).toThrow(RangeError)
    expect(needsFindings('red', null)).toBe(true)
    expect(needsFindings('no-checks', null)).toBe(true)
    expect(needsFindings('no-checks', noChecks)).toBe(false)
    expect(needsFindings('green', null)).toBe(false)
    expect(needsFindings('ci-timeout', null)).toBe(false)
  })

  it('failures that are all pre-existing: accepted with `allow`', () => {
    const { ledger, index } = inFlight()
    const settlement = run(ledger, checks(index, { findings: facts([], ['jest:base>fails']) }), {
      config: { preExistingFailures: 'allow' }
    })
    expect(settlement).toEqual({
      kind: 'green-except-pre-existing',
      index,
      attemptsRemaining: LIMITS.maxFixAttempts - index,
      preExisting: ['jest:base>fails']
    })
  })

  it('failures that are all pre-existing: paused `ci-base-red` with `block`, no attempt spent', () => {
    const { ledger, index } = inFlight()
    const pause = pauseOf(run(ledger, checks(index, { findings: facts([], ['jest:base>fails']) })))
    const signature = signatureOf(['jest:base>fails'])
    expect(pause).toMatchObject({
      kind: 'base-red',
      reason: `ci-base-red: ${signature.short}`,
      verdict: 'red',
      remember: false,
      attemptsRemaining: LIMITS.maxFixAttempts - index
    })
    expect(pause.signature?.hash).toBe(signature.hash)
    expect(pause.record.signature?.hash).toBe(signature.hash)
  })

  it.each([
    [{ dispatchWorkflow: true, fixCommand: false }, ['dispatch']],
    [{ dispatchWorkflow: false, fixCommand: true }, ['fix-command']],
    [{ dispatchWorkflow: true, fixCommand: true }, ['dispatch', 'fix-command']],
    [{ dispatchWorkflow: false, fixCommand: false }, []]
  ])('red with budget left (%j): next steps %j', (config, next) => {
    const { ledger, index } = inFlight()
    const settlement = run(ledger, checks(index, { findings: facts(B.keys) }), { config })
    expect(settlement).toMatchObject({
      kind: 'red',
      index,
      attemptsRemaining: LIMITS.maxFixAttempts - index,
      next
    })
  })

  it('red keeps what the ledger needs: own keys only, error lines capped and redacted', () => {
    const { ledger, index } = inFlight()
    const settlement = run(ledger, checks(index, { findings: facts(B.keys, ['jest:base>x']) }))
    if (settlement.kind !== 'red') throw new Error(settlement.kind)
    expect(settlement.signature.hash).toBe(B.hash)
    expect(settlement.record.errorLines).toHaveLength(4)
    expect(settlement.record.errorLines?.join('\n')).not.toContain('hunter2')
    expect(settlement.record.details).toEqual([
      { check: 'test', key: B.keys[0], lines: [`detail of ${B.keys[0]}`] }
    ])
    expect(settlement.record.classification?.preExisting).toEqual(['jest:base>x'])
  })
})

describe('decide: the guard order (no progress → budget → wall clock)', () => {
  const late = START + 5 * 60 * MINUTE
  it('a signature seen earlier in the iteration is stuck, even at the budget and past the wall clock', () => {
    const { ledger, index } = inFlight([A, B, sig('c'), sig('d'), sig('e')], late)
    expect(index).toBe(LIMITS.maxFixAttempts)
    const pause = pauseOf(run(ledger, checks(index, { findings: facts(B.keys) }), { now: late }))
    expect(pause).toMatchObject({ kind: 'stuck', remember: true, attemptsRemaining: 0 })
  })

  it('a new signature at the budget is exhausted, even past the wall clock', () => {
    const { ledger, index } = inFlight([A, B, sig('c'), sig('d'), sig('e')], late)
    const pause = pauseOf(
      run(ledger, checks(index, { findings: facts(['jest:new>x']) }), { now: late })
    )
    expect(pause).toMatchObject({ kind: 'exhausted', remember: true })
    expect(pause.reason).toMatch(/^ci-fix-exhausted: /)
  })

  it('a new signature with budget left past the wall clock pauses `ci-timeout`, remembering nothing', () => {
    const { ledger, index } = inFlight([A], late)
    const pause = pauseOf(run(ledger, checks(index, { findings: facts(B.keys) }), { now: late }))
    expect(pause).toMatchObject({ kind: 'timeout', reason: 'ci-timeout', remember: false })
  })

  it('a signature the loop paused on before (kept across resets) is stuck', () => {
    const { ledger, index } = inFlight([A])
    const remembered = rememberPausedSignature(ledger, {
      signature: B,
      reason: 'stuck in CI fix loop: b',
      now: START
    })
    expect(pauseOf(run(remembered, checks(index, { findings: facts(B.keys) }))).kind).toBe('stuck')
  })
})

describe('decide: the fixer pushed nothing, or no fix could arrive', () => {
  it('no new commit: the previous signature again is stuck, its failures carried over', () => {
    const red = redAttempts([A])
    const began = begin(red, { sha: sha(0), runId: 901, now: START + 30 * MINUTE })
    expect(began.kind).toBe('no-new-commit')
    const pause = pauseOf(run(began.ledger, { kind: 'no-new-commit', index: began.attempt.index }))
    expect(pause).toMatchObject({ kind: 'stuck', verdict: 'red', remember: true })
    expect(pause.signature?.hash).toBe(A.hash)
    expect(pause.record.note).toBe('no new commit since attempt 0: the fixer pushed nothing')
  })

  it.each([
    ['the push did not land (safe_outputs failed)', safeOutputsBlocked('failure', 42)],
    [
      'the fixer run never ran its agent',
      (() => {
        const verdict = judgeFixerRun(77, { kind: 'not-found' }, [])
        return verdict.kind === 'no-fix' ? verdict.blocked : null
      })()
    ]
  ])('%s: paused `ci-blocked` on the red attempt itself, no attempt spent', (_, blocked) => {
    expect(blocked).not.toBeNull()
    const ledger = redAttempts([A])
    const latest = latestAttempt(ledger)!
    const pause = pauseOf(
      run(ledger, { kind: 'no-fix-arrived', latest, blocked: blocked as Blocked })
    )
    expect(pause).toMatchObject({
      kind: 'blocked',
      index: latest.index,
      verdict: 'blocked',
      reason: `ci-blocked: ${(blocked as Blocked).cause}`,
      remember: false,
      attemptsRemaining: LIMITS.maxFixAttempts - latest.index
    })
    expect(pause.record).toMatchObject({ state: 'red', note: (blocked as Blocked).cause })
    expect(pause.signature?.hash).toBe(A.hash)
  })
})
