/**
 * Beginning an attempt: `beginAttempt` before waiting on a SHA. The attempt is written
 * `in-flight` with the run id, so another run can tell it was abandoned; what it means depends
 * on what the ledger holds (`BeginKind`).
 */
import {
  iso,
  type Attempt,
  type AttemptState,
  type Iteration,
  type IterationOutcome,
  type Ledger
} from './model.js'
import { isIterationOpen, latestAttempt, replaceAttempt } from './attempts.js'
import { compactLedger } from './compact.js'

export interface BeginAttemptInput {
  sha: string
  /** The agent's commit under gh-aw's empty CI-trigger commit `sha`, when there is one. */
  agentSha?: string | null
  /** `GITHUB_RUN_ID` of the run that waits on this attempt (null when not in Actions). */
  runId: number | null
  /** `GITHUB_RUN_ATTEMPT`. */
  runAttempt?: number | null
  now: number
  maxFixAttempts: number
  timeoutMinutes: number
}

/**
 * - `first`: attempt 0 of a new iteration;
 * - `fix`: a new SHA in the open iteration, the next fix attempt (in place of a blocked one,
 *   which was never judged and spent nothing);
 * - `rerun`: the latest SHA again in the same workflow run (a re-run after a crash): re-used;
 * - `resumed`: the latest SHA, left in flight (or abandoned) by another run: re-used;
 * - `no-new-commit`: the latest SHA, already red, gated by another run: the fixer pushed
 *   nothing; a new attempt carrying the previous signature, for the guards to judge;
 * - `already-gated`: the SHA an ended iteration already gated: nothing new to gate.
 */
type BeginKind = 'first' | 'fix' | 'rerun' | 'resumed' | 'no-new-commit' | 'already-gated'

export interface BeganAttempt {
  kind: BeginKind
  ledger: Ledger
  attempt: Attempt
}

/**
 * Attempt states that await a fix: the fixer is to push one, so gating the same SHA again in
 * another run means it pushed nothing, and `record` leaves the iteration to the gate.
 */
const AWAITING_FIX = ['red', 'no-checks'] as const satisfies readonly AttemptState[]

/** Whether an attempt in `state` awaits a fix (see AWAITING_FIX). */
export function awaitsFix(state: AttemptState): state is (typeof AWAITING_FIX)[number] {
  return (AWAITING_FIX as readonly AttemptState[]).includes(state)
}
/** Iteration endings after which the same SHA has nothing new to gate. */
const ACCEPTED_OUTCOMES: ReadonlySet<IterationOutcome | null> = new Set([
  'green',
  'green-except-pre-existing',
  'recorded'
])

function freshAttempt(index: number, input: BeginAttemptInput, sha: string): Attempt {
  return {
    index,
    sha,
    ...(input.agentSha ? { agentSha: input.agentSha.toLowerCase() } : {}),
    runId: input.runId,
    runAttempt: input.runAttempt ?? null,
    startedAt: iso(input.now),
    endedAt: null,
    state: 'in-flight',
    signature: null
  }
}

function isSameRun(attempt: Attempt, runId: number | null): boolean {
  return runId !== null && attempt.runId === runId
}

/**
 * What gating `sha` in run `runId` would begin (see the module comment and `BeginKind`),
 * without beginning it: the question `beginAttempt` answers first.
 */
export function beginKind(ledger: Ledger, input: { sha: string; runId: number | null }): BeginKind {
  const sha = input.sha.toLowerCase()
  const latest = latestAttempt(ledger)
  if (latest && ledger.iteration && latest.sha === sha) {
    const open = ledger.iteration.finishedAt === null
    const accepted = !open && ACCEPTED_OUTCOMES.has(ledger.iteration.outcome)
    // A paused or reset iteration is over: a re-run of its run starts a new one, fresh budget.
    if (isSameRun(latest, input.runId) && (open || accepted)) return 'rerun'
    if (accepted) return 'already-gated'
    if (open && awaitsFix(latest.state)) return 'no-new-commit'
    if (open) return 'resumed'
  }
  return latest && isIterationOpen(ledger) ? 'fix' : 'first'
}

/** Records the start of a gate on `sha` (see the module comment and `BeginKind`). */
export function beginAttempt(ledger: Ledger, input: BeginAttemptInput): BeganAttempt {
  const sha = input.sha.toLowerCase()
  if (!/^[0-9a-f]{7,64}$/.test(sha))
    throw new RangeError(`not a commit SHA: ${JSON.stringify(input.sha)}`)
  const now = iso(input.now)
  const limits = { maxFixAttempts: input.maxFixAttempts, timeoutMinutes: input.timeoutMinutes }
  const latest = latestAttempt(ledger)
  const run = { runId: input.runId, runAttempt: input.runAttempt ?? null }
  const reuse = (kind: BeginKind, reopen: boolean): BeganAttempt => {
    const attempt: Attempt = { ...(latest as Attempt), ...run, state: 'in-flight', endedAt: null }
    const iteration = ledger.iteration as Iteration
    const next = compactLedger(
      replaceAttempt(
        {
          ...ledger,
          iteration: reopen
            ? { ...iteration, ...limits, finishedAt: null, outcome: null }
            : { ...iteration, ...limits }
        },
        attempt.index,
        attempt
      )
    )
    return { kind, ledger: next, attempt: latestAttempt(next) as Attempt }
  }

  const kind = beginKind(ledger, { sha, runId: input.runId })
  switch (kind) {
    case 'rerun':
      return reuse('rerun', true)
    case 'resumed':
      return reuse('resumed', false)
    case 'already-gated':
      return { kind, ledger, attempt: latest as Attempt }
    case 'no-new-commit':
      return appendNoNewCommit(ledger, input)
    case 'fix': {
      const previous = latest as Attempt
      // A blocked commit was never judged: the next commit takes its place and its budget.
      const replaced = previous.state === 'blocked'
      const abandoned = ledger.attempts
        .filter((a) => !replaced || a.index !== previous.index)
        .map((a) =>
          a.state === 'in-flight' ? { ...a, state: 'abandoned' as const, endedAt: now } : a
        )
      const index = replaced ? previous.index : previous.index + 1
      const next = compactLedger({
        ...ledger,
        iteration: { ...(ledger.iteration as Iteration), ...limits },
        attempts: [...abandoned, freshAttempt(index, input, sha)]
      })
      return { kind, ledger: next, attempt: latestAttempt(next) as Attempt }
    }
    case 'first': {
      const next = compactLedger({
        ...ledger,
        iteration: {
          id: `${now}/${sha.slice(0, 12)}`,
          startedAt: now,
          finishedAt: null,
          outcome: null,
          ...limits
        },
        earlierSignatureHashes: [],
        attempts: [freshAttempt(0, input, sha)]
      })
      return { kind, ledger: next, attempt: latestAttempt(next) as Attempt }
    }
  }
}

/**
 * The fixer pushed nothing: a new attempt on the latest attempt's SHA, marked `noNewCommit`,
 * for the guards to judge with the latest attempt's signature (the same signature: stuck).
 */
export function appendNoNewCommit(ledger: Ledger, input: BeginAttemptInput): BeganAttempt {
  const latest = latestAttempt(ledger)
  if (!latest || !ledger.iteration) throw new RangeError('no attempt to repeat')
  const attempt: Attempt = {
    ...freshAttempt(latest.index + 1, input, latest.sha),
    ...(latest.agentSha ? { agentSha: latest.agentSha } : {}),
    noNewCommit: true
  }
  const next = compactLedger({
    ...ledger,
    iteration: {
      ...ledger.iteration,
      maxFixAttempts: input.maxFixAttempts,
      timeoutMinutes: input.timeoutMinutes
    },
    attempts: [...ledger.attempts, attempt]
  })
  return { kind: 'no-new-commit', ledger: next, attempt: latestAttempt(next) as Attempt }
}
