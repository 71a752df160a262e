/**
 * Whose failure it is (docs/decisions.md: "Whose failure it is"), pure. A red attempt's failures are
 * the iteration's own (`new`), or not its doing: they fail on the base branch head too
 * (`pre-existing`), no fix can help (`blocked`: runs wait for approval, or no CI ran), or the
 * job failed outside the project's build and tests, or passed on a re-run (infrastructure,
 * flaky). Only new failures spend fix attempts and enter the signature the no-progress guard
 * compares.
 */
import type { BaseFailures } from '../ledger.js'

/**
 * Keys of failed tests, by test runner (README: "Failure signatures" lists the key forms): a
 * failure made only of these may be re-run once to tell a flaky test (PyTorch's retry bot
 * re-runs test steps, never build or lint steps). Build errors of the same tools (`go` build
 * and vet paths, `dotnet` compiler codes, pytest collection errors) are not tests.
 */
const TEST_FAILURE_KEYS: readonly RegExp[] = [
  /^(?:jest|vitest|mocha|node-test|cargo|surefire|junit|gradle|rspec|phpunit):/,
  /^pytest:(?!error:)/,
  /^go:(?:[^:]+:)?(?:Test|Example|Fuzz)/,
  /^dotnet:(?!CS\d{4}:)/
]

export function isTestFailure(keys: readonly string[]): boolean {
  return keys.length > 0 && keys.every((key) => TEST_FAILURE_KEYS.some((test) => test.test(key)))
}

/** Keys the runner adds around any failure (the step's exit code): not the project's own. */
export function projectFailureCount(keys: readonly string[]): number {
  return keys.filter((key) => !key.startsWith('gha:')).length
}

interface CheckFailure {
  name: string
  keys: readonly string[]
}

/**
 * Keys that name no failure of their own: the step's exit code (`gha:exit code 1`) and a check
 * with nothing readable (`check:<name>:<conclusion>`). Two different failures give the same
 * such key, so one on the base branch head proves nothing about the head's.
 */
const UNSPECIFIC_KEYS: readonly RegExp[] = [/^gha:exit code -?\d+$/, /^check:/]

function isSpecificKey(key: string): boolean {
  return !UNSPECIFIC_KEYS.some((pattern) => pattern.test(key))
}

/**
 * Whether `key` of the check also fails, in the same-named check, on the base branch head.
 * Never for a key that names no failure of its own: it stays the iteration's.
 */
function failsOnBase(check: CheckFailure, key: string, base: BaseFailures | null): boolean {
  if (!base || base.state !== 'complete' || !isSpecificKey(key)) return false
  return base.checks.some((b) => b.name === check.name && b.keys.includes(key))
}

/**
 * The keys of `head` that also fail, in the same-named check, on the base branch head. A
 * check that did not run on the base head, or base CI that never ran, gives none.
 */
export function preExistingKeys(
  head: readonly CheckFailure[],
  base: BaseFailures | null
): string[] {
  const found = head.flatMap((check) => check.keys.filter((key) => failsOnBase(check, key, base)))
  return [...new Set(found)].sort()
}

/**
 * The iteration's own keys: those of `head` that do not fail in the same-named check on the
 * base branch head. Decided per check: the same key failing in another check (a matrix job
 * the base branch does not run) is the iteration's own.
 */
export function ownKeys(head: readonly CheckFailure[], base: BaseFailures | null): string[] {
  const own = head.flatMap((check) => check.keys.filter((key) => !failsOnBase(check, key, base)))
  return [...new Set(own)].sort()
}

export interface BlockedInput {
  sha: string
  /** Workflow runs and check runs waiting for a maintainer's approval. */
  awaitingApproval: readonly string[]
  /** Nothing reported at all within the grace period. */
  noChecks: boolean
  /** Whether this step pushed the commit, and with `push-token`. */
  pushed: boolean
  pushToken: boolean
  /** The head is gh-aw's empty CI-trigger commit (so the trigger token was set). */
  ciTriggerCommit: boolean
  checksGraceSeconds: number
}

export interface Blocked {
  /** One line for the pause reason (`ci-blocked: <cause>`). */
  cause: string
  /** What a maintainer must do, as markdown (our own words, trusted). */
  advice: string
}

/** Why no fix can help this commit, and what a maintainer must do; null when something can. */
export function blockedCause(input: BlockedInput): Blocked | null {
  const sha = input.sha.slice(0, 12)
  if (input.awaitingApproval.length > 0) {
    const names = input.awaitingApproval.slice(0, 5).join(', ')
    return {
      cause: `workflow runs on ${sha} wait for approval (${names})`,
      advice: [
        `CI on \`${sha}\` waits for a maintainer's approval (\`action_required\`): ${names}.`,
        'Approve the runs (the run page, "Approve and run"), or change the repository\'s approval policy for pushes by bots (Settings → Actions → General), or push with a GitHub App or personal token that needs no approval.',
        '`reconcile` resumes the program once the head has a verdict.'
      ].join(' ')
    }
  }
  if (!input.noChecks) return null
  const causes: string[] = []
  if (input.pushed && !input.pushToken)
    causes.push(
      'The push was made with the default GITHUB_TOKEN, and pushes made with GITHUB_TOKEN start no workflow runs: pass `push-token` (a GitHub App installation token or a fine-grained personal access token with Contents: read and write) so the push starts CI.'
    )
  if (!input.pushed && input.ciTriggerCommit)
    causes.push(
      "The head is gh-aw's empty CI-trigger commit, so a trigger token was set: check that a workflow runs on pushes to this branch (its `on: push: branches:` filter) and that the token may start workflow runs."
    )
  if (!input.pushed && !input.ciTriggerCommit)
    causes.push(
      'In gh-aw, `safe_outputs` pushes with GITHUB_TOKEN, which starts no workflow runs: set the `GH_AW_CI_TRIGGER_TOKEN` secret (or `github-token-for-extra-empty-commit`) so gh-aw pushes an empty "ci: trigger checks" commit that starts CI. gh-aw pushes it only for a push of exactly one new commit, counted per handler: `push-to-pull-request-branch` counts the commits its patch added (current gh-aw first squashes a range holding merge commits into one, so "merge the default branch, then change" counts one; v0.65.6 counts each, so that push starts no CI), and `create-pull-request` counts every commit of the branch since its base (`origin/<base>..HEAD`), so a PR opened again for a branch that already carries earlier iterations starts no CI: start that branch from the base branch. gh-aw also skips the commit when 30 of the last 60 commits on the branch change no file (merge commits not counted in current gh-aw). Its `safe_outputs` log says `Skipping extra empty commit` and why. Outside gh-aw, the token that pushed must be one that starts workflow runs (`push-token` when this action pushes).'
    )
  causes.push(
    'Runs waiting for approval (`action_required`) report nothing until a maintainer approves them.',
    'If this branch really has no CI, set `allow-no-checks: true`.'
  )
  return {
    cause: `no CI ran on ${sha} within ${input.checksGraceSeconds} s`,
    advice: [
      `No check reported a result for \`${sha}\` within ${input.checksGraceSeconds} s, and silence is never read as green.`,
      ...causes
    ].join(' ')
  }
}
