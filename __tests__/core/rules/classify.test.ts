import { describe, expect, it } from '@jest/globals'
import {
  blockedCause,
  isTestFailure,
  ownKeys,
  preExistingKeys,
  projectFailureCount,
  type BlockedInput
} from '../../../src/core/rules/classify.js'
import type { BaseFailures } from '../../../src/core/ledger.js'
import { sha } from '../ledger-helpers.js'

describe('isTestFailure', () => {
  it.each([
    [['jest:tests/a.test.ts>adds'], true],
    [['pytest:tests/test_a.py::test_adds', 'go:example.com/app/parse:TestParse/empty'], true],
    [['go:example.com/app:TestSlow:timeout', 'dotnet:App.Tests.CartTest.Adds:NullReference'], true],
    [['pytest:error:tests/test_a.py'], false],
    [['dotnet:CS0103:total:src/Cart.cs'], false],
    [['cargo:tests::adds', 'surefire:com.acme.AppTest#adds', 'vitest:a>b', 'mocha:a>b'], true],
    [['jest:tests/a.test.ts>adds', 'tsc:TS2339:fromArrays:src/a.ts'], false],
    [['eslint:no-unused-vars:src/a.ts'], false],
    [['go:build:undefined: x'], false],
    // A Go test whose package line the log did not show.
    [['go:TestParse', 'go:TestSlow:timeout'], true],
    [[], false]
  ])('%j → %s (only test runner failures may be re-run once)', (keys, expected) => {
    expect(isTestFailure(keys)).toBe(expected)
  })
})

describe('projectFailureCount', () => {
  it("leaves out the runner's own keys around a failure (the step's exit code)", () => {
    expect(projectFailureCount(['gha:exit-code:1', 'jest:a>b', 'tsc:TS1:x'])).toBe(2)
    expect(projectFailureCount(['gha:exit-code:1'])).toBe(0)
  })
})

describe('preExistingKeys', () => {
  const base: BaseFailures = {
    branch: 'main',
    sha: sha('main'),
    readAt: '2026-03-01T12:00:00.000Z',
    state: 'complete',
    checks: [
      {
        name: 'lint',
        conclusion: 'failure',
        url: null,
        keys: ['eslint:no-console:src/a.ts', 'eslint:x']
      },
      { name: 'test', conclusion: 'failure', url: null, keys: ['jest:flaky>one'] }
    ]
  }

  it('is the keys that fail in the same-named check on the base head, sorted, once each', () => {
    const head = [
      { name: 'lint', keys: ['eslint:x', 'eslint:no-console:src/a.ts', 'eslint:mine'] },
      { name: 'lint', keys: ['eslint:x'] },
      // The same key in another check is not the same failure.
      { name: 'typecheck', keys: ['jest:flaky>one'] }
    ]
    expect(preExistingKeys(head, base)).toEqual(['eslint:no-console:src/a.ts', 'eslint:x'])
  })

  it('is nothing without a base, when CI never ran there, or for a check the base did not run', () => {
    const head = [{ name: 'lint', keys: ['eslint:x'] }]
    expect(preExistingKeys(head, null)).toEqual([])
    expect(preExistingKeys(head, { ...base, state: 'no-ci' })).toEqual([])
    expect(preExistingKeys([{ name: 'build', keys: ['eslint:x'] }], base)).toEqual([])
  })

  it('is never a key that names no failure of its own: an exit code, a check with nothing readable', () => {
    // The base head's `test` failed with exit code 1 and an unreadable check, for its own
    // reason; the head's fails the same vague way, perhaps for another: the iteration's own.
    const vague: BaseFailures = {
      ...base,
      checks: [
        { name: 'test', conclusion: 'failure', url: null, keys: ['gha:exit code 1'] },
        { name: 'e2e', conclusion: 'failure', url: null, keys: ['check:e2e:failure'] }
      ]
    }
    const head = [
      { name: 'test', keys: ['gha:exit code 1'] },
      { name: 'e2e', keys: ['check:e2e:failure'] }
    ]
    expect(preExistingKeys(head, vague)).toEqual([])
    expect(ownKeys(head, vague)).toEqual(['check:e2e:failure', 'gha:exit code 1'])
    // A `##[error]` line with its own text still names its failure.
    const named: BaseFailures = {
      ...base,
      checks: [
        { name: 'test', conclusion: 'failure', url: null, keys: ['gha:Cannot find module x'] }
      ]
    }
    expect(preExistingKeys([{ name: 'test', keys: ['gha:Cannot find module x'] }], named)).toEqual([
      'gha:Cannot find module x'
    ])
  })
})

describe('blockedCause', () => {
  const input: BlockedInput = {
    sha: sha('head'),
    awaitingApproval: [],
    noChecks: false,
    pushed: false,
    pushToken: false,
    ciTriggerCommit: false,
    checksGraceSeconds: 180
  }
  const short = sha('head').slice(0, 12)

  it('is null when CI reported something and nothing waits for approval: a fix can help', () => {
    expect(blockedCause(input)).toBeNull()
  })

  it('runs waiting for approval: names them (five at most) and what a maintainer must do', () => {
    const blocked = blockedCause({
      ...input,
      awaitingApproval: ['ci', 'lint', 'e2e', 'docs', 'perf', 'fuzz'],
      noChecks: true
    })
    expect(blocked?.cause).toBe(
      `workflow runs on ${short} wait for approval (ci, lint, e2e, docs, perf)`
    )
    expect(blocked?.advice).toContain('`action_required`')
    expect(blocked?.advice).toContain('"Approve and run"')
    expect(blocked?.advice).toContain('approval policy for pushes by bots')
    expect(blocked?.advice).toContain('`reconcile` resumes the program once the head has a verdict')
  })

  it('no CI, pushed with the default token: pass push-token', () => {
    const blocked = blockedCause({ ...input, noChecks: true, pushed: true })
    expect(blocked?.cause).toBe(`no CI ran on ${short} within 180 s`)
    expect(blocked?.advice).toContain(
      'pushes made with GITHUB_TOKEN start no workflow runs: pass `push-token`'
    )
    expect(blocked?.advice).not.toContain('GH_AW_CI_TRIGGER_TOKEN')
  })

  it("no CI on gh-aw's push: the CI-trigger token, and one commit per iteration", () => {
    const advice = blockedCause({ ...input, noChecks: true })?.advice ?? ''
    expect(advice).toContain('`safe_outputs` pushes with GITHUB_TOKEN')
    expect(advice).toContain('`GH_AW_CI_TRIGGER_TOKEN`')
    expect(advice).toContain('`github-token-for-extra-empty-commit`')
    expect(advice).toContain('`push-token`')
  })

  it("no CI on gh-aw's push: today's CI-trigger rules, per handler", () => {
    const advice = blockedCause({ ...input, noChecks: true })?.advice ?? ''
    // push-to-pull-request-branch: the patch's commits, merge ranges squashed (not in v0.65.6).
    expect(advice).toContain('`push-to-pull-request-branch` counts the commits its patch added')
    expect(advice).toContain('squashes a range holding merge commits into one')
    expect(advice).toContain('v0.65.6 counts each')
    // create-pull-request: the whole branch since its base.
    expect(advice).toContain(
      '`create-pull-request` counts every commit of the branch since its base (`origin/<base>..HEAD`)'
    )
    // The cycle guard.
    expect(advice).toContain('30 of the last 60 commits on the branch change no file')
    expect(advice).toContain('`Skipping extra empty commit`')
  })

  it("no CI on gh-aw's empty CI-trigger commit: the token was set, so the workflow's filter or the token's rights", () => {
    const advice = blockedCause({ ...input, noChecks: true, ciTriggerCommit: true })?.advice ?? ''
    expect(advice).toContain("gh-aw's empty CI-trigger commit")
    expect(advice).toContain('`on: push: branches:`')
    expect(advice).not.toContain('set the `GH_AW_CI_TRIGGER_TOKEN` secret')
  })

  it('no CI, whatever the push: runs awaiting approval and allow-no-checks are always named', () => {
    for (const pushed of [true, false])
      for (const pushToken of [true, false]) {
        const advice = blockedCause({ ...input, noChecks: true, pushed, pushToken })?.advice ?? ''
        expect(advice).toContain('silence is never read as green')
        expect(advice).toContain('(`action_required`)')
        expect(advice).toContain('`allow-no-checks: true`')
      }
  })
})
