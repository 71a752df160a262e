import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import {
  LEDGER_LIMITS,
  LedgerSchema,
  attemptAt,
  beginKind,
  compactLedger,
  completeAttempt,
  emptyLedger,
  finishIteration,
  hashKey,
  inFlightAttempts,
  isIterationOpen,
  latestAttempt,
  ledgerBytes,
  ledgerPath,
  pausedSignatureOf,
  rememberPausedSignature,
  serializeLedger,
  signatureRecord,
  updateAttempt,
  withStateWrite,
  type Attempt,
  type Ledger
} from '../../src/core/ledger.js'
import { parseLedgerFile } from '../../src/statefile/ledger-file.js'
import { renderHistoryEntry } from '../../src/statefile/history.js'
import {
  MINUTE,
  PROGRAM,
  START,
  begin,
  fresh,
  redAttempts,
  redVerdict,
  sha,
  sig
} from './ledger-helpers.js'

const iso = (ms: number): string => new Date(ms).toISOString()
const SOURCE = 'ci-gate/perf.json (branch memory/autoloop)'

/** Attempt 0 of a new iteration on sha(0), red with signature `a`. */
function redFirst(): Ledger {
  return redAttempts([sig('a')])
}

describe('the empty ledger and its path', () => {
  it('has no iteration, no attempts, revision 0, and validates', () => {
    const ledger = emptyLedger('perf', START)
    expect(ledger).toEqual({
      version: 2,
      program: 'perf',
      revision: 0,
      updatedAt: iso(START),
      iteration: null,
      earlierSignatureHashes: [],
      attempts: [],
      pausedSignatures: [],
      baseFailures: null,
      writes: []
    })
    expect(LedgerSchema.parse(ledger)).toEqual(ledger)
    expect(latestAttempt(ledger)).toBeUndefined()
    expect(isIterationOpen(ledger)).toBe(false)
    expect(isIterationOpen(null)).toBe(false)
    expect(ledgerPath('perf.v2')).toBe('ci-gate/perf.v2.json')
  })

  it('an iteration without attempts (or attempts without one) is not a ledger', () => {
    const ledger = redFirst()
    expect(LedgerSchema.safeParse({ ...ledger, attempts: [] }).success).toBe(false)
    expect(LedgerSchema.safeParse({ ...ledger, iteration: null }).success).toBe(false)
  })
})

describe('beginAttempt', () => {
  it('first: attempt 0 of a new iteration, in flight, with the run, the budget and the wall clock', () => {
    const began = begin(fresh(), {
      sha: sha('abc').toUpperCase(),
      agentSha: sha('agent').toUpperCase(),
      runId: 123,
      runAttempt: 2,
      now: START,
      maxFixAttempts: 3,
      timeoutMinutes: 45
    })
    expect(began.kind).toBe('first')
    expect(began.attempt).toEqual({
      index: 0,
      sha: sha('abc'),
      agentSha: sha('agent'),
      runId: 123,
      runAttempt: 2,
      startedAt: iso(START),
      endedAt: null,
      state: 'in-flight',
      signature: null
    })
    expect(began.ledger.iteration).toEqual({
      id: `${iso(START)}/${sha('abc').slice(0, 12)}`,
      startedAt: iso(START),
      finishedAt: null,
      outcome: null,
      maxFixAttempts: 3,
      timeoutMinutes: 45
    })
    expect(LedgerSchema.parse(began.ledger)).toEqual(began.ledger)
  })

  it('refuses what is not a commit SHA, before anything changes', () => {
    expect(() => begin(fresh(), { sha: 'HEAD', now: START })).toThrow(/not a commit SHA: "HEAD"/)
    expect(() => begin(fresh(), { sha: 'abc', now: START })).toThrow(/not a commit SHA/)
  })

  it('fix: a new SHA in the open iteration is the next attempt; attempts left in flight are abandoned', () => {
    const first = begin(fresh(), { sha: sha(0), runId: 1, now: START })
    const second = begin(first.ledger, {
      sha: sha(1),
      runId: 2,
      now: START + 5 * MINUTE,
      maxFixAttempts: 7
    })
    expect(second.kind).toBe('fix')
    expect(second.attempt).toMatchObject({ index: 1, sha: sha(1), runId: 2, state: 'in-flight' })
    expect(second.ledger.attempts[0]).toMatchObject({
      state: 'abandoned',
      endedAt: iso(START + 5 * MINUTE)
    })
    expect(inFlightAttempts(second.ledger).map((a) => a.index)).toEqual([1])
    // The wall clock keeps counting from the first gate; the budget is the latest gate's.
    expect(second.ledger.iteration).toMatchObject({
      startedAt: iso(START),
      maxFixAttempts: 7,
      id: first.ledger.iteration?.id
    })
  })

  it('rerun: the latest SHA in the same workflow run re-uses the attempt, never counted twice', () => {
    const ledger = redFirst()
    const again = begin(ledger, { sha: sha(0), runId: 100, runAttempt: 2, now: START + MINUTE })
    expect(again.kind).toBe('rerun')
    expect(again.ledger.attempts).toHaveLength(1)
    expect(again.attempt).toMatchObject({
      index: 0,
      runId: 100,
      runAttempt: 2,
      state: 'in-flight',
      endedAt: null,
      startedAt: iso(START)
    })
  })

  it('rerun: a re-run of the run that ended the iteration green re-opens it', () => {
    let ledger = begin(fresh(), { sha: sha(0), runId: 100, now: START }).ledger
    ledger = completeAttempt(ledger, 0, { state: 'green', now: START + MINUTE })
    expect(ledger.iteration).toMatchObject({ outcome: 'green', finishedAt: iso(START + MINUTE) })
    const again = begin(ledger, { sha: sha(0), runId: 100, runAttempt: 2, now: START + 2 * MINUTE })
    expect(again.kind).toBe('rerun')
    expect(again.ledger.iteration).toMatchObject({ outcome: null, finishedAt: null })
  })

  it('resumed: the latest SHA left in flight by another run is re-used by this one', () => {
    const left = begin(fresh(), { sha: sha(0), runId: 100, now: START }).ledger
    const resumed = begin(left, { sha: sha(0), runId: 200, now: START + MINUTE })
    expect(resumed.kind).toBe('resumed')
    expect(resumed.ledger.attempts).toHaveLength(1)
    expect(resumed.attempt).toMatchObject({ index: 0, runId: 200, state: 'in-flight' })
    const abandoned = updateAttempt(left, 0, (a) => ({ ...a, state: 'abandoned' }))
    expect(begin(abandoned, { sha: sha(0), runId: 200, now: START + MINUTE }).kind).toBe('resumed')
  })

  it.each(['red', 'no-checks'] as const)(
    'no-new-commit: the latest SHA, %s, gated by another run is a new attempt on the same SHA',
    (state) => {
      let ledger = begin(fresh(), {
        sha: sha(0),
        agentSha: sha('agent'),
        runId: 100,
        now: START
      }).ledger
      ledger = completeAttempt(ledger, 0, { ...redVerdict(sig('a'), START + MINUTE), state })
      const began = begin(ledger, { sha: sha(0), runId: 200, now: START + 30 * MINUTE })
      expect(began.kind).toBe('no-new-commit')
      expect(began.attempt).toEqual({
        index: 1,
        sha: sha(0),
        agentSha: sha('agent'),
        runId: 200,
        runAttempt: 1,
        startedAt: iso(START + 30 * MINUTE),
        endedAt: null,
        state: 'in-flight',
        signature: null,
        noNewCommit: true
      })
      // The attempt before keeps its verdict and signature, for the guards to compare.
      expect(attemptAt(began.ledger, 0)).toMatchObject({
        state,
        signature: { hash: sig('a').hash }
      })
    }
  )

  it.each(['green', 'green-except-pre-existing', 'recorded'] as const)(
    'already-gated: the SHA of an iteration that ended %s, gated by another run, changes nothing',
    (outcome) => {
      let ledger = begin(fresh(), { sha: sha(0), runId: 100, now: START }).ledger
      ledger = completeAttempt(ledger, 0, { state: 'green', now: START + MINUTE })
      ledger = finishIteration(ledger, outcome, START + MINUTE)
      const began = begin(ledger, { sha: sha(0), runId: 200, now: START + 2 * MINUTE })
      expect(began.kind).toBe('already-gated')
      expect(began.ledger).toBe(ledger)
      expect(began.attempt).toBe(latestAttempt(ledger))
    }
  )

  it.each(['paused', 'reset'] as const)(
    'first: after an iteration that ended %s, any gate starts a new iteration with a fresh budget',
    (outcome) => {
      const ended = finishIteration(redAttempts([sig('a'), sig('b')]), outcome, START + 20 * MINUTE)
      const later = START + 3 * 60 * MINUTE
      // Another run on the same SHA, a new SHA, and a re-run of the very run that paused.
      for (const input of [
        { sha: sha(1), runId: 500 },
        { sha: sha(9), runId: 500 },
        { sha: sha(1), runId: 101, runAttempt: 2 }
      ]) {
        const began = begin(ended, { ...input, now: later })
        expect({ input, kind: began.kind }).toEqual({ input, kind: 'first' })
        expect(began.attempt.index).toBe(0)
        expect(began.ledger.attempts).toHaveLength(1)
        expect(began.ledger.iteration).toMatchObject({ startedAt: iso(later), outcome: null })
        expect(began.ledger.earlierSignatureHashes).toEqual([])
      }
    }
  )

  it('keeps what survives the iteration when a new one starts', () => {
    let ledger = redAttempts([sig('a')])
    ledger = rememberPausedSignature(ledger, {
      signature: sig('a'),
      reason: 'stuck',
      now: START + MINUTE
    })
    ledger = withStateWrite(ledger, { machineState: { paused: true } }, START + MINUTE)
    ledger = finishIteration(ledger, 'paused', START + MINUTE)
    const began = begin(ledger, { sha: sha(5), runId: 900, now: START + 60 * MINUTE })
    expect(began.ledger.pausedSignatures).toEqual(ledger.pausedSignatures)
    expect(began.ledger.writes).toEqual(ledger.writes)
  })
})

describe('beginKind: what a gate would begin, asked without beginning it', () => {
  const opened = begin(fresh(), { sha: sha(0), runId: 100, now: START }).ledger
  const red = completeAttempt(opened, 0, redVerdict(sig('a'), START + MINUTE))
  const green = finishIteration(
    completeAttempt(opened, 0, { state: 'green', now: START + MINUTE }),
    'green',
    START + MINUTE
  )
  const paused = finishIteration(red, 'paused', START + MINUTE)
  const cases: [string, Ledger, { sha: string; runId: number | null }, string][] = [
    ['no gate yet', fresh(), { sha: sha(0), runId: 1 }, 'first'],
    ['a new SHA in the open iteration', red, { sha: sha(1), runId: 200 }, 'fix'],
    ['the red SHA again, another run', red, { sha: sha(0), runId: 200 }, 'no-new-commit'],
    ['the red SHA again, the same run', red, { sha: sha(0), runId: 100 }, 'rerun'],
    ['left in flight by another run', opened, { sha: sha(0), runId: 200 }, 'resumed'],
    ['left in flight, no run id', opened, { sha: sha(0), runId: null }, 'resumed'],
    ['gated green by another run', green, { sha: sha(0), runId: 200 }, 'already-gated'],
    ['gated green by this run', green, { sha: sha(0), runId: 100 }, 'rerun'],
    ['after a pause, the same SHA', paused, { sha: sha(0), runId: 200 }, 'first'],
    ['after a pause, a new SHA', paused, { sha: sha(1), runId: 200 }, 'first']
  ]
  it.each(cases)('%s: %#', (_, ledger, input, kind) => {
    expect(beginKind(ledger, input)).toBe(kind)
    // The same answer beginAttempt acts on.
    expect(begin(ledger, { ...input, now: START + 5 * MINUTE }).kind).toBe(kind)
  })
})

describe('completeAttempt', () => {
  it('records the verdict, cutting every list to the per-attempt limits', () => {
    const { ledger } = begin(fresh(), { sha: sha(0), now: START })
    const keys = Array.from(
      { length: 60 },
      (_, i) => `tsc:TS2339:f${i}:src/${'x'.repeat(i * 10)}.ts`
    )
    const done = completeAttempt(ledger, 0, {
      state: 'red',
      now: START + 90_000,
      signature: sig('many', keys),
      failingChecks: Array.from({ length: 30 }, (_, i) => ({
        name: `job ${i} ${'n'.repeat(200)}`,
        conclusion: 'failure'.repeat(10),
        url: i === 0 ? null : `https://example.test/runs/${i}/${'u'.repeat(400)}`
      })),
      errorLines: Array.from({ length: 20 }, (_, i) => `error ${i} ${'y'.repeat(300)}`),
      classification: {
        preExisting: keys,
        baseSha: sha('base'),
        baseNote: 'n'.repeat(1000),
        flaky: Array.from({ length: 30 }, (_, i) => ({ check: `flaky ${i}`, url: null })),
        infrastructure: [{ check: 'build', cause: 'c'.repeat(1000), url: 'u'.repeat(1000) }]
      },
      note: 'why '.repeat(400)
    })
    const attempt = latestAttempt(done) as Attempt
    const L = LEDGER_LIMITS
    expect(attempt.state).toBe('red')
    expect(attempt.endedAt).toBe(iso(START + 90_000))
    expect(attempt.signature).toMatchObject({
      keyCount: 60,
      cut: true,
      hash: sig('many', keys).hash
    })
    // Every key stays (long ones cut to maxKeyChars, hence `cut`).
    expect(attempt.signature?.keys).toHaveLength(60)
    expect(attempt.signature?.keys?.[0]).toBe(sig('many', keys).keys[0])
    expect(attempt.failingChecks).toHaveLength(L.maxFailingChecks)
    expect(attempt.failingChecks?.[0]?.url).toBeNull()
    for (const check of attempt.failingChecks ?? []) {
      expect(check.name.length).toBeLessThanOrEqual(L.maxCheckNameChars)
      expect(check.conclusion.length).toBeLessThanOrEqual(L.maxCheckConclusionChars)
      expect((check.url ?? '').length).toBeLessThanOrEqual(L.maxCheckUrlChars)
    }
    expect(attempt.errorLines).toHaveLength(L.maxErrorLines)
    expect(attempt.errorLines?.every((line) => line.length <= L.maxErrorLineChars)).toBe(true)
    expect(attempt.errorLines?.[0]?.endsWith('…')).toBe(true)
    expect(attempt.classification?.preExisting).toHaveLength(L.maxKeys)
    expect(attempt.classification?.flaky).toHaveLength(L.maxFailingChecks)
    expect(attempt.classification?.baseNote?.length).toBe(L.maxNoteChars)
    expect(attempt.classification?.infrastructure[0]?.cause.length).toBe(L.maxNoteChars)
    expect(attempt.note?.length).toBe(L.maxAttemptNoteChars)
    expect(done.iteration?.finishedAt).toBeNull()
    expect(() => completeAttempt(done, 7, { state: 'red', now: START })).toThrow(/no attempt 7/)
  })

  it.each(['green', 'green-except-pre-existing'] as const)(
    '%s on the latest attempt ends the iteration with that outcome',
    (state) => {
      const { ledger } = begin(fresh(), { sha: sha(0), now: START })
      expect(completeAttempt(ledger, 0, { state, now: START + MINUTE }).iteration).toMatchObject({
        outcome: state,
        finishedAt: iso(START + MINUTE)
      })
    }
  )

  it('a late green verdict on an older attempt does not end the iteration', () => {
    let ledger = begin(fresh(), { sha: sha(0), now: START }).ledger
    ledger = begin(ledger, { sha: sha(1), now: START + MINUTE }).ledger
    const late = completeAttempt(ledger, 0, { state: 'green', now: START + 2 * MINUTE })
    expect(late.iteration?.finishedAt).toBeNull()
    expect(attemptAt(late, 0).state).toBe('green')
  })

  it.each(['red', 'no-checks', 'blocked', 'ci-timeout', 'error'] as const)(
    '%s leaves the iteration open',
    (state) => {
      const { ledger } = begin(fresh(), { sha: sha(0), now: START })
      expect(completeAttempt(ledger, 0, { state, now: START }).iteration?.finishedAt).toBeNull()
    }
  )
})

describe('signatureRecord', () => {
  it('keeps the hash of the whole set, and says when keys or the full form were cut', () => {
    const small = sig('small')
    expect(signatureRecord(small)).toEqual({
      hash: small.hash,
      short: small.short,
      keyCount: 1,
      keys: small.keys,
      full: small.full
    })
    const long = sig('long', [`jest:${'k'.repeat(300)}`])
    expect(signatureRecord(long)).toMatchObject({ hash: long.hash, keyCount: 1, cut: true })
    expect(signatureRecord({ hash: 'h', short: 'a\n b\t c' }).short).toBe('a b c')
  })
})

describe('paused signatures', () => {
  it('are remembered once each, with when, why and in which iteration, cut to the compared hash', () => {
    const ledger = redFirst()
    const once = rememberPausedSignature(ledger, {
      signature: sig('a'),
      reason: 'stuck in CI fix loop: a',
      now: START + MINUTE
    })
    expect(once.pausedSignatures).toEqual([
      {
        hash: hashKey(sig('a').hash),
        short: sig('a').short,
        reason: 'stuck in CI fix loop: a',
        pausedAt: iso(START + MINUTE),
        iterationId: ledger.iteration?.id,
        resetAt: null,
        resetBy: null
      }
    ])
    expect(hashKey(sig('a').hash)).toHaveLength(LEDGER_LIMITS.hashChars)
    // The same failure again keeps its first entry: when and why it first stuck.
    const twice = rememberPausedSignature(once, {
      signature: sig('a'),
      reason: 'ci-fix-exhausted: a',
      now: START + 9 * MINUTE
    })
    expect(twice).toBe(once)
    expect(pausedSignatureOf(twice, sig('a').hash)?.reason).toBe('stuck in CI fix loop: a')
    expect(pausedSignatureOf(twice, sig('b').hash)).toBeUndefined()
  })

  it('are bounded: the oldest is dropped first', () => {
    let ledger = redFirst()
    const count = LEDGER_LIMITS.maxPausedSignatures + 5
    for (let i = 0; i < count; i += 1)
      ledger = rememberPausedSignature(ledger, {
        signature: sig(`s${i}`),
        reason: `r${i}`,
        now: START + i
      })
    expect(ledger.pausedSignatures).toHaveLength(LEDGER_LIMITS.maxPausedSignatures)
    expect(ledger.pausedSignatures[0]?.reason).toBe('r5')
    expect(pausedSignatureOf(ledger, sig('s4').hash)).toBeUndefined()
    expect(pausedSignatureOf(ledger, sig(`s${count - 1}`).hash)).toBeDefined()
  })
})

describe('withStateWrite', () => {
  it('logs the write under the next revision, keeping the last few', () => {
    let ledger: Ledger = { ...redFirst(), revision: 41 }
    ledger = withStateWrite(
      ledger,
      { machineState: { paused: true }, historyEntry: { runKey: '9001', lines: ['### x'] } },
      START
    )
    expect(ledger.writes).toEqual([
      {
        revision: 42,
        at: iso(START),
        machineState: { paused: true },
        historyEntry: { runKey: '9001', lines: ['### x'] }
      }
    ])
    for (let i = 0; i < 20; i += 1)
      ledger = withStateWrite(
        { ...ledger, revision: ledger.revision + 1 },
        { machineState: { iterationCount: i } },
        START
      )
    expect(ledger.writes).toHaveLength(LEDGER_LIMITS.maxWrites)
    expect(ledger.writes.at(-1)?.machineState).toEqual({ iterationCount: 19 })
  })
})

describe('compaction', () => {
  /** The largest attempts the per-attempt limits allow, with multi-byte text everywhere. */
  function worstCase(attempts: number): Ledger {
    let ledger = fresh()
    for (let i = 0; i < attempts; i += 1) {
      const began = begin(ledger, { sha: sha(i), runId: 99_999_999_999, runAttempt: 3, now: START })
      ledger = completeAttempt(began.ledger, began.attempt.index, {
        state: 'red',
        now: START + 1,
        signature: {
          hash: `${i}`.padEnd(64, 'e'),
          short: '🚀'.repeat(160),
          keys: Array.from({ length: 60 }, (_, k) => `${k}${'ü'.repeat(300)}`)
        },
        failingChecks: Array.from({ length: 30 }, () => ({
          name: 'n'.repeat(500),
          conclusion: 'c'.repeat(100),
          url: 'u'.repeat(1000)
        })),
        errorLines: Array.from({ length: 50 }, () => '€'.repeat(1000)),
        classification: {
          preExisting: Array.from({ length: 60 }, (_, k) => `${k}${'ö'.repeat(300)}`),
          baseSha: sha('base'),
          baseNote: '🚀'.repeat(400),
          flaky: [],
          infrastructure: []
        },
        note: '€'.repeat(400)
      })
      ledger = rememberPausedSignature(ledger, {
        signature: { hash: `${i}`.padEnd(64, 'e'), short: '🚀'.repeat(160) },
        reason: '🚀'.repeat(400),
        now: START
      })
      // What the action logs per write: a pause patch, and a history entry as record renders it.
      ledger = withStateWrite(
        ledger,
        {
          machineState: { pauseReason: '€'.repeat(500), recentStatuses: Array(10).fill('é') },
          historyEntry: {
            runKey: String(99_999_999_999 - i),
            lines: renderHistoryEntry({
              iteration: i,
              outcome: 'accepted',
              at: START,
              metric: 0.1,
              previousBest: 0.2,
              change: '€'.repeat(300),
              reason: '€'.repeat(300),
              commit: sha(i),
              runUrl: `https://github.com/acme/widgets/actions/runs/${'9'.repeat(300)}`,
              runKey: String(i),
              fixAttempts: 5
            })
          }
        },
        START
      )
      // The ledger as written: updateProgram compacts every ledger before it writes it.
      ledger = compactLedger({ ...ledger, revision: ledger.revision + 1 })
    }
    return ledger
  }

  it.each([1, 3, 6, 30, 101])(
    'stays within the byte bound with %s worst-case attempts',
    (count) => {
      const ledger = worstCase(count)
      expect(ledgerBytes(ledger)).toBeLessThanOrEqual(LEDGER_LIMITS.maxBytes)
      const latest = latestAttempt(ledger) as Attempt
      expect(latest.index).toBe(count - 1)
      expect(latest.signature?.hash).toBe(`${count - 1}`.padEnd(64, 'e'))
      // Paused signatures always stay (bounded by their own limit).
      expect(ledger.pausedSignatures).toHaveLength(
        Math.min(count, LEDGER_LIMITS.maxPausedSignatures)
      )
      expect(parseLedgerFile(serializeLedger(ledger), SOURCE)).toEqual(ledger)
    }
  )

  it('keeps full details for the latest attempts of a realistic six-attempt iteration', () => {
    const ledger = redAttempts(
      Array.from({ length: 6 }, (_, i) =>
        sig(`s${i}`, [
          `tsc:TS2339:fromArrays:tests/eval${i}.test.ts`,
          `jest:tests/a${i}.test.ts>adds`
        ])
      ),
      { limits: { maxFixAttempts: 10 } }
    )
    const detailed = ledger.attempts.filter((a) => a.errorLines !== undefined).map((a) => a.index)
    expect(detailed).toEqual([3, 4, 5])
    // An older record keeps its full key set, not its other details.
    expect(ledger.attempts[0]?.signature).toEqual({
      hash: sig('s0', ['tsc:TS2339:fromArrays:tests/eval0.test.ts', 'jest:tests/a0.test.ts>adds'])
        .hash,
      short: expect.any(String),
      keyCount: 2,
      keys: ['jest:tests/a0.test.ts>adds', 'tsc:TS2339:fromArrays:tests/eval0.test.ts']
    })
    expect(ledger.attempts).toHaveLength(6)
    expect(ledgerBytes(ledger)).toBeLessThan(LEDGER_LIMITS.maxBytes / 4)
  })

  it('keeps the full key set of every attempt, 150 keys each, and what changed between them', () => {
    const keysOf = (from: number) =>
      Array.from({ length: 150 }, (_, i) => `jest:tests/t${from + i}.test.ts>fails`)
    const ledger = redAttempts([sig('a', keysOf(0)), sig('b', keysOf(100)), sig('c', keysOf(200))])
    for (const [i, attempt] of ledger.attempts.entries()) {
      expect(attempt.signature?.keys).toEqual([...keysOf(i * 100)].sort())
      expect(attempt.signature?.cut).toBeUndefined()
    }
    expect(ledgerBytes(ledger)).toBeLessThanOrEqual(LEDGER_LIMITS.maxBytes)
  })

  it("keeps the latest attempt's failure details verbatim, the first failures whole within maxDetailBytes", () => {
    const details = Array.from({ length: 100 }, (_, i) => ({
      check: 'test',
      key: `jest:tests/t${i}.test.ts>fails`,
      lines: [
        '    Expected: 6',
        '    Received: 5',
        `      at Object.<anonymous> (tests/t${i}.test.ts:10:29)`,
        'x'.repeat(400)
      ]
    }))
    const ledger = redAttempts([sig('a')], { details })
    const kept = latestAttempt(ledger)?.details ?? []
    expect(kept.length).toBeGreaterThan(10)
    expect(kept.length).toBeLessThan(100)
    expect(kept).toEqual(details.slice(0, kept.length))
    expect(Buffer.byteLength(JSON.stringify(kept))).toBeLessThanOrEqual(
      LEDGER_LIMITS.maxDetailBytes
    )
  })

  it("over the byte bound, drops older key sets before the latest attempt's (3,000 long keys each)", () => {
    const keysOf = (n: number) =>
      Array.from({ length: 3000 }, (_, i) => `jest:tests/${'x'.repeat(120)}/a${n}-${i}.test.ts>f`)
    const ledger = redAttempts([sig('a', keysOf(0)), sig('b', keysOf(1)), sig('c', keysOf(2))])
    expect(ledgerBytes(ledger)).toBeLessThanOrEqual(LEDGER_LIMITS.maxBytes)
    const latest = latestAttempt(ledger) as Attempt
    expect(latest.signature?.keys).toHaveLength(3000)
    // The older records that stayed keep their hash (the no-progress guard needs no more).
    for (const attempt of ledger.attempts.slice(0, -1)) {
      expect(attempt.signature?.keys).toBeUndefined()
      expect(attempt.signature?.hash).toMatch(/^[0-9a-f]{64}$/)
    }
  })

  it('keeps at most maxAttemptRecords records; a dropped one leaves its hash for the no-progress guard', () => {
    const count = LEDGER_LIMITS.maxAttemptRecords + 6
    const ledger = redAttempts(
      Array.from({ length: count }, (_, i) => sig(`s${i}`)),
      { limits: { maxFixAttempts: 100 } }
    )
    expect(ledger.attempts).toHaveLength(LEDGER_LIMITS.maxAttemptRecords)
    expect(ledger.attempts[0]?.index).toBe(6)
    expect(ledger.earlierSignatureHashes).toEqual(
      Array.from({ length: 6 }, (_, i) => hashKey(sig(`s${i}`).hash))
    )
  })

  it('is idempotent', () => {
    const ledger = worstCase(8)
    expect(compactLedger(ledger)).toEqual(ledger)
  })

  it('any sequence of operations keeps the invariants and reads back from its file', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('begin' as const),
        sha: fc.nat(4),
        run: fc.constantFrom(1, 2, 3)
      }),
      fc.record({
        kind: fc.constant('complete' as const),
        state: fc.constantFrom(
          'green' as const,
          'green-except-pre-existing' as const,
          'red' as const,
          'no-checks' as const,
          'blocked' as const,
          'ci-timeout' as const,
          'error' as const
        ),
        sig: fc.constantFrom('a', 'b', 'c'),
        lines: fc.nat(12)
      }),
      fc.record({
        kind: fc.constant('finish' as const),
        outcome: fc.constantFrom('paused' as const, 'recorded' as const, 'reset' as const)
      }),
      fc.record({ kind: fc.constant('remember' as const), sig: fc.constantFrom('a', 'b', 'c') }),
      fc.record({ kind: fc.constant('write' as const), count: fc.nat(100) })
    )
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 60 }), (ops) => {
        let now = START
        let ledger = fresh()
        for (const step of ops) {
          now += 1000
          const latest = latestAttempt(ledger)
          if (step.kind === 'begin')
            ledger = begin(ledger, { sha: sha(step.sha), runId: step.run, now }).ledger
          else if (latest && step.kind === 'complete')
            ledger = completeAttempt(ledger, latest.index, {
              ...redVerdict(sig(step.sig), now),
              state: step.state,
              errorLines: Array.from({ length: step.lines }, () => 'x'.repeat(150))
            })
          else if (step.kind === 'finish') ledger = finishIteration(ledger, step.outcome, now)
          else if (step.kind === 'remember')
            ledger = rememberPausedSignature(ledger, { signature: sig(step.sig), reason: 'r', now })
          else if (step.kind === 'write')
            ledger = withStateWrite(ledger, { machineState: { iterationCount: step.count } }, now)
          const indexes = ledger.attempts.map((a) => a.index)
          expect(indexes).toEqual(indexes.map((_, i) => (indexes[0] as number) + i))
          expect(ledgerBytes(ledger)).toBeLessThanOrEqual(LEDGER_LIMITS.maxBytes)
          const last = latestAttempt(ledger)
          expect(inFlightAttempts(ledger).filter((a) => a.index !== last?.index)).toEqual([])
          expect(parseLedgerFile(serializeLedger(ledger), SOURCE)).toEqual(ledger)
        }
      }),
      { numRuns: 150 }
    )
  })
})

describe('attempt lookups', () => {
  it('attemptAt and updateAttempt find attempts by index', () => {
    const ledger = redAttempts([sig('a'), sig('b')])
    expect(attemptAt(ledger, 1).signature?.hash).toBe(sig('b').hash)
    expect(() => attemptAt(ledger, 2)).toThrow(RangeError)
    const noted = updateAttempt(ledger, 0, (a) => ({ ...a, note: 'n' }))
    expect(attemptAt(noted, 0).note).toBe('n')
    expect(attemptAt(noted, 1)).toBe(attemptAt(ledger, 1))
    expect(PROGRAM).toBe(ledger.program)
  })
})
