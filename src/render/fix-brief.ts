/**
 * The fix brief: what the `## 🚦 CI Gate` section of `<program>.md` tells the next run, in
 * plain markdown an agent reads first (docs/decisions.md: "The fix brief"). Pure: rendered from the
 * ledger alone, so `reconcile` can write it again after a memory push reverted the file.
 *
 * On red with budget left it says which fix attempt is next and how much wall clock is left,
 * the failing checks with links, the signature, what changed since the previous attempt, the
 * failures that are not the iteration's doing (pre-existing on the base branch, flaky,
 * infrastructure), the first error lines (fenced, sanitised), and what to do. Its size is
 * bounded (`maxBytes`): details are dropped, most expendable first, until it fits.
 */
import { renderFailureDetails } from './failure-details.js'
import { missingRequiredChecks } from '../core/signature/signature.js'
import { diffKeys, linkTarget } from './failure-summary.js'
import { fence, inlineCode, oneLine } from '../core/text/untrusted.js'
import { deadlineOf } from '../core/rules/guard.js'
import { pauseKindIn } from '../core/rules/pause.js'
import {
  LEDGER_LIMITS,
  latestAttempt,
  pausedSignatureOf,
  type Attempt,
  type Iteration,
  type Ledger,
  type PausedSignature
} from '../core/ledger.js'

export interface BriefContext {
  program: string
  /** The program's branch, `autoloop/<program>` unless set otherwise. */
  branch: string
  /** Machine State's Paused and Pause Reason, when the program is paused. */
  pauseReason: string | null
  /** UTF-8 bytes the brief's lines may take at most (joined with line breaks). */
  maxBytes: number
}

/** How much detail a rendering keeps; `renderFixBrief` lowers it until the brief fits. */
interface Detail {
  errorLines: number
  keys: number
  checks: number
}

const DETAIL_LEVELS: readonly Detail[] = [
  { errorLines: 20, keys: 12, checks: 10 },
  { errorLines: 10, keys: 8, checks: 6 },
  { errorLines: 4, keys: 4, checks: 3 },
  { errorLines: 0, keys: 2, checks: 2 },
  { errorLines: 0, keys: 0, checks: 0 }
]

const utf8Bytes = (lines: readonly string[]): number =>
  new TextEncoder().encode(lines.join('\n')).length

/** Where the failure details go: filled with what is left of the budget (docs/failure-details.md: "Failure details"). */
const DETAILS_PLACE = '\u0000failure details\u0000'

/**
 * The brief's lines; never longer than `context.maxBytes` unless even the shortest form is.
 * One budget: the brief without failure details first, at the most detail that fits; then the
 * failure details in what is left (the first failures in full, cut at line boundaries).
 */
export function renderFixBrief(ledger: Ledger, context: BriefContext): string[] {
  let lines: string[] = []
  for (const detail of DETAIL_LEVELS) {
    lines = render(ledger, context, detail)
    if (utf8Bytes(lines.filter((line) => line !== DETAILS_PLACE)) <= context.maxBytes)
      return withDetails(lines, ledger, context.maxBytes)
  }
  return lines.filter((line) => line !== DETAILS_PLACE)
}

function withDetails(lines: string[], ledger: Ledger, maxBytes: number): string[] {
  const at = lines.indexOf(DETAILS_PLACE)
  if (at === -1) return lines
  const rest = [...lines.slice(0, at), ...lines.slice(at + 1)]
  // The details and the blank line before them.
  const room = maxBytes - utf8Bytes(rest) - 2
  const latest = latestAttempt(ledger)
  const details = renderFailureDetails(
    latest?.details ?? [],
    room,
    {},
    latest?.signature?.keyCount ?? 0
  )
  return details.length === 0
    ? rest
    : [...lines.slice(0, at), '', ...details, ...lines.slice(at + 1)]
}

function render(ledger: Ledger, context: BriefContext, detail: Detail): string[] {
  const latest = latestAttempt(ledger)
  const iteration = ledger.iteration
  if (!iteration || !latest) return ['_No CI gate has run for this program yet._']
  if (context.pauseReason !== null) return pausedBrief(ledger, latest, context, detail)
  if (iteration.outcome === 'reset') return resetBrief(ledger)
  if (iteration.finishedAt !== null) return endedBrief(latest, iteration.outcome)
  if (latest.state === 'in-flight') {
    return [
      `⏳ **The CI gate is waiting for CI on ${inlineCode(latest.sha.slice(0, 12), 20)}** (attempt ${latest.index}, started ${latest.startedAt}).`,
      '',
      `Do not push to ${inlineCode(context.branch, 200)} until it has a verdict: this section then says what to do.`
    ]
  }
  return fixBrief(ledger, iteration, latest, context, detail)
}

function minutesLeft(
  ledger: Ledger,
  iteration: Iteration
): { left: number; endsAt: string; asOf: string } {
  const deadline = deadlineOf(iteration)
  const asOf = Date.parse(ledger.updatedAt)
  return {
    left: Math.max(0, Math.floor((deadline - asOf) / 60_000)),
    endsAt: new Date(deadline).toISOString(),
    asOf: ledger.updatedAt
  }
}

function keyList(keys: readonly string[], max: number): string {
  if (keys.length === 0) return '—'
  const shown = keys.slice(0, max).map((key) => inlineCode(key, 160))
  const more = keys.length - shown.length
  return more > 0 ? `${shown.join(', ')} +${more} more` : shown.join(', ') || `${keys.length} keys`
}

/** A check named with its link, when CI set a plain http(s) URL (no line break, no `)`). */
function linkedCheck(check: { check: string; url: string | null }): string {
  const name = oneLine(check.check, 100)
  const target = check.url ? linkTarget(check.url) : null
  return target ? `[${name}](${target})` : name
}

function checkLines(attempt: Attempt, max: number): string[] {
  const checks = attempt.failingChecks ?? []
  const lines = checks.slice(0, max).map((check) => {
    const name = oneLine(check.name, 100)
    // CI sets check URLs: linked only when they are a plain http(s) URL (no line break, no `)`).
    const target = check.url ? linkTarget(check.url) : null
    const link = target ? `[${name}](${target})` : name
    return `  - ${link}: ${oneLine(check.conclusion, 20)}`
  })
  if (checks.length > max) lines.push(`  - … ${checks.length - max} more`)
  return lines
}

/** Fenced lines cannot be read as a `## ` heading by the scheduler's cut (see core/text/lines.ts). */
function fencedLines(text: string, maxLines: number): string[] {
  return fence(text, { maxLines, maxChars: maxLines * 200 })
    .split('\n')
    .map((line) => (line.startsWith('#') ? ` ${line}` : line))
}

function previousOf(ledger: Ledger, attempt: Attempt): Attempt | undefined {
  return [...ledger.attempts].reverse().find((a) => a.index < attempt.index && a.signature?.keys)
}

function findingLines(ledger: Ledger, attempt: Attempt, detail: Detail): string[] {
  const lines: string[] = []
  const signature = attempt.signature
  if (signature) {
    lines.push(
      `- **Signature** (${signature.keyCount} key${signature.keyCount === 1 ? '' : 's'}; the same signature again means no progress): ${inlineCode(signature.short, 160)}`
    )
  }
  if (detail.checks > 0 && (attempt.failingChecks ?? []).length > 0)
    lines.push('- **Failing checks:**', ...checkLines(attempt, detail.checks))
  for (const name of missingRequiredChecks(signature?.keys ?? []))
    lines.push(`- **required check never reported:** ${inlineCode(name, 100)}`)
  const previous = previousOf(ledger, attempt)
  if (previous?.signature?.keys && signature?.keys && detail.keys > 0) {
    const changes = diffKeys(previous.signature.keys, signature.keys)
    // The ledger keeps the first keys of each attempt only: say so rather than undercount.
    const partial =
      previous.signature.cut || signature.cut
        ? ` (compared on the first ${LEDGER_LIMITS.maxKeys} keys the ledger keeps of each: attempt ${previous.index} had ${previous.signature.keyCount}, this one ${signature.keyCount})`
        : ''
    lines.push(
      `- **Since attempt ${previous.index}:** fixed ${keyList(changes.fixed, detail.keys)}; new ${keyList(changes.new, detail.keys)}; still failing ${keyList(changes.persisting, detail.keys)}${partial}.`
    )
  }
  const classification = attempt.classification
  if (classification && classification.preExisting.length > 0) {
    const base = classification.baseSha
      ? ` at ${inlineCode(classification.baseSha.slice(0, 12), 20)}`
      : ''
    const evidence = (classification.baseChecks ?? []).slice(0, Math.max(detail.checks, 1))
    const where = evidence.length > 0 ? ` in ${evidence.map(linkedCheck).join(', ')}` : ''
    lines.push(
      `- **Not this iteration's failures** (they fail on the base branch head too${base}${where}): ${keyList(classification.preExisting, Math.max(detail.keys, 1))}. Do not touch them.`
    )
  } else if (classification?.baseNote) {
    lines.push(`- **Base branch:** ${oneLine(classification.baseNote, 300)}`)
  }
  if (classification && classification.flaky.length > 0)
    lines.push(
      `- **Flaky** (failed, then passed on re-run; not yours to fix): ${classification.flaky.map((f) => oneLine(f.check, 80)).join(', ')}.`
    )
  if (classification && classification.infrastructure.length > 0)
    lines.push(
      `- **Infrastructure** (outside the project's build and tests): ${classification.infrastructure.map((f) => `${oneLine(f.check, 80)} (${oneLine(f.cause, 120)})`).join(', ')}.`
    )
  for (const rerun of attempt.reruns ?? [])
    lines.push(
      `- **Re-run** of ${rerun.checks.map((check) => oneLine(check, 80)).join(', ')} (${rerun.why}): ${rerun.outcome}${rerun.url && linkTarget(rerun.url) ? ` ([run](${linkTarget(rerun.url)}))` : ''}.`
    )
  // Failure details supersede the first error lines (which ledgers before them hold).
  if ((attempt.details ?? []).length > 0) lines.push(DETAILS_PLACE)
  else if (detail.errorLines > 0 && (attempt.errorLines ?? []).length > 0)
    lines.push(
      '',
      '**First error lines**',
      '',
      ...fencedLines((attempt.errorLines ?? []).join('\n'), detail.errorLines)
    )
  return lines
}

function gatedCommit(attempt: Attempt): string {
  const sha = inlineCode(attempt.sha.slice(0, 12), 20)
  return attempt.agentSha
    ? `${sha} (gh-aw's empty CI-trigger commit on the agent's ${inlineCode(attempt.agentSha.slice(0, 12), 20)})`
    : sha
}

/** The brief of an open iteration's red attempt: what failed, what to do, the budget left. */
function fixBrief(
  ledger: Ledger,
  iteration: Iteration,
  attempt: Attempt,
  context: BriefContext,
  detail: Detail
): string[] {
  const next = attempt.index + 1
  const clock = minutesLeft(ledger, iteration)
  const branch = inlineCode(context.branch, 200)
  return [
    `🛠️ **CI is ${attempt.state === 'no-checks' ? 'silent' : 'red'} on ${branch}: fix it before anything else.** This is fix attempt ${next} of ${iteration.maxFixAttempts} of the current iteration; ${clock.left} minute${clock.left === 1 ? '' : 's'} of its ${iteration.timeoutMinutes}-minute wall clock were left when this was written (${clock.asOf}; it ends at ${clock.endsAt}).`,
    '',
    `- **Gated commit:** ${gatedCommit(attempt)}`,
    ...(attempt.note
      ? [`- **Note:** ${oneLine(attempt.note, LEDGER_LIMITS.maxAttemptNoteChars)}`]
      : []),
    ...findingLines(ledger, attempt, detail),
    '',
    '**What to do**',
    '',
    `1. Fix the failures above on ${branch}, starting from its head (${inlineCode(attempt.sha.slice(0, 12), 20)}). Leave failures marked as not this iteration's alone.`,
    '2. Commit once and push. The CI gate checks the new head and rewrites this section.',
    '3. Start no new iteration until CI is green; write the iteration file with the metric you measure after the fix.',
    '4. If you cannot fix them, do not push the same change again (the same signature twice pauses the program): say what blocks the fix in the program issue.'
  ]
}

function rememberedLine(remembered: PausedSignature): string {
  const reset = remembered.resetAt
    ? `, and the program was reset at ${remembered.resetAt}${remembered.resetBy ? ` by ${oneLine(remembered.resetBy, 60)}` : ''} without fixing it`
    : ''
  return `This failure stuck the loop before (paused at ${remembered.pausedAt}: ${inlineCode(remembered.reason, 200)}${reset}. Do not resume the same approach: state what blocks it in the program issue, or ask a maintainer to fix the cause and reset with \`forget-failures: true\`.`
}

function pausedBrief(
  ledger: Ledger,
  attempt: Attempt,
  context: BriefContext,
  detail: Detail
): string[] {
  const reason = context.pauseReason ?? ''
  const kind = pauseKindIn(ledger, { paused: true, pauseReason: context.pauseReason ?? null })
  const remembered = attempt.signature
    ? pausedSignatureOf(ledger, attempt.signature.hash)
    : undefined
  const before = remembered && remembered.iterationId !== ledger.iteration?.id
  const advice =
    kind === 'blocked'
      ? 'No fix can help: a maintainer must act (see the reason). `reconcile` resumes the program once the head has a verdict.'
      : kind === 'base-red'
        ? 'The base branch is red with the same failures: fix it there. `reconcile` resumes the program once the head is green, or a maintainer runs `reset`.'
        : 'Do not work on this program until a maintainer resumes it: push a fix that turns the head green (`reconcile` then resumes it) or run `reset`.'
  return [
    `⏸️ **Paused by the CI gate:** ${inlineCode(reason, 300)}`,
    '',
    `- **Last gated commit:** ${gatedCommit(attempt)} (attempt ${attempt.index}, ${attempt.state})`,
    ...(attempt.note
      ? [`- **Note:** ${oneLine(attempt.note, LEDGER_LIMITS.maxAttemptNoteChars)}`]
      : []),
    ...findingLines(ledger, attempt, detail),
    '',
    ...(remembered && before ? [rememberedLine(remembered), ''] : []),
    advice
  ]
}

/** How an attempt ended, in words (after "was"). */
const STATE_WORDS: Record<Attempt['state'], string> = {
  'in-flight': 'still waiting for CI',
  green: 'green',
  'green-except-pre-existing': 'green except pre-existing failures',
  red: 'red',
  'no-checks': 'silent (no checks ran)',
  blocked: 'blocked',
  'ci-timeout': 'timed out waiting for CI',
  abandoned: 'abandoned',
  error: 'an error of the gate'
}

/** Why an iteration ended, in words (the pause, when one is still in force, is `pausedBrief`'s). */
const OUTCOME_WORDS: Record<NonNullable<NonNullable<Ledger['iteration']>['outcome']>, string> = {
  green: 'green',
  'green-except-pre-existing': 'green except pre-existing failures',
  paused: 'paused, and resumed since',
  recorded: 'recorded',
  reset: 'reset'
}

/**
 * An ended iteration whose latest attempt was not green (a pause lifted by `reconcile` or by
 * hand, an iteration `record` ended): what `beginAttempt` does next. A paused (or reset)
 * iteration is over, so even its own SHA starts a new iteration with a fresh budget; after a
 * `record`, its SHA counts as gated and only a new commit starts one.
 */
function endedNotGreenBrief(
  attempt: Attempt,
  outcome: NonNullable<Ledger['iteration']>['outcome']
): string[] {
  const why = outcome ? ` (${OUTCOME_WORDS[outcome]})` : ''
  const sha = inlineCode(attempt.sha.slice(0, 12), 20)
  const next =
    outcome === 'recorded'
      ? `the next gate on a new commit starts a new iteration with a fresh fix budget (${sha} itself is not gated again).`
      : `the next gate starts a new iteration with a fresh fix budget (on ${sha} too, if the branch head is still there).`
  return [
    `⏹️ **The iteration ended${why}; its last attempt (attempt ${attempt.index}) on ${gatedCommit(attempt)} was ${STATE_WORDS[attempt.state]}:** ${next}`,
    '',
    'CI was not green on that commit, but no fix is pending: run the next iteration as usual.'
  ]
}

function endedBrief(
  attempt: Attempt,
  outcome: NonNullable<Ledger['iteration']>['outcome']
): string[] {
  if (attempt.state !== 'green' && attempt.state !== 'green-except-pre-existing')
    return endedNotGreenBrief(attempt, outcome)
  const lines = [
    `✅ **CI is green on ${gatedCommit(attempt)}** (attempt ${attempt.index}; iteration ${outcome}). Nothing to fix: run the next iteration as usual.`
  ]
  const classification = attempt.classification
  if (attempt.state === 'green-except-pre-existing' && classification)
    lines.push(
      '',
      `Accepted although ${keyList(classification.preExisting, 8)} fail${classification.preExisting.length === 1 ? 's' : ''}: the base branch head fails the same way, so it is not this iteration's doing.`
    )
  if (classification && classification.flaky.length > 0)
    lines.push(
      '',
      `Flaky on the way (passed on re-run): ${classification.flaky.map((f) => oneLine(f.check, 80)).join(', ')}.`
    )
  return lines
}

function resetBrief(ledger: Ledger): string[] {
  const remembered = ledger.pausedSignatures.filter((paused) => paused.resetAt !== null)
  const lines = ['▶️ **Reset by a maintainer:** the next iteration starts with a fresh fix budget.']
  if (remembered.length > 0)
    lines.push(
      '',
      'These failures stuck the loop before the reset; if one comes back, the program pauses at once instead of spending the budget on it again:',
      '',
      ...remembered.map(
        (paused) => `- ${inlineCode(paused.short, 160)} (paused at ${paused.pausedAt})`
      )
    )
  return lines
}
