/**
 * The doctor's checks on the lock files real gh-aw compiled for autoloop, as published and with
 * the CI gate installed, and on one broken variant per check, each made by editing the real
 * files: the broken check changes, every other check stays as it was.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Document } from 'yaml'
import { runChecks } from '../../../src/core/doctor/checks.js'
import type { Finding, Level, RepoFacts, SetupFiles } from '../../../src/core/doctor/model.js'
import { lockVersion, parseSetup } from '../../../src/core/doctor/setup.js'
import {
  PR64,
  PUBLISHED,
  ROOT,
  describeWithAutoloop,
  editHandlerConfig,
  filesOf,
  installed,
  realFiles,
  lockEnvPath,
  stepIndex,
  type Installed
} from './autoloop-files.js'

const OPTIONS = { stateBranch: 'memory/autoloop' }
const ONLINE: RepoFacts = {
  defaultBranch: 'main',
  stateBranchExists: true,
  defaultBranchWorkflows: ['autoloop.lock.yml', 'autoloop.md', 'autoloop-settle.yml', 'tests.yml']
}
const RECOMPILE = /gh aw compile autoloop/

function check(files: SetupFiles, facts: RepoFacts = ONLINE): Finding[] {
  return runChecks(parseSetup(files), facts, OPTIONS)
}

function levels(findings: Finding[]): Record<string, Level> {
  return Object.fromEntries(findings.map((f) => [f.id, f.level]))
}

const ALL_OK = {
  workflow: 'ok',
  'gh-aw-version': 'ok',
  'ci-gate': 'ok',
  'ci-reconcile': 'ok',
  'action-pinned': 'ok',
  permissions: 'ok',
  'fixer-run': 'ok',
  'memory-glob': 'ok',
  'ci-trigger-token': 'ok',
  'push-fallback': 'ok',
  handover: 'ok',
  'ci-workflow': 'ok',
  'settle-workflow': 'ok',
  'state-branch': 'ok'
} as const

/** Replaces every mention of the lock's gh-aw release (v0.65.6) with another. */
function relabel(setup: Installed, version: string): SetupFiles {
  const files = filesOf(setup)
  const lock = files.lock as { path: string; text: string }
  return { ...files, lock: { ...lock, text: lock.text.replaceAll('v0.65.6', version) } }
}

describeWithAutoloop('the doctor on autoloop as published', () => {
  it('reads the gh-aw release from each lock: v0.65.6, and none from the PR #64 build', () => {
    expect(
      lockVersion(readFileSync(join(PUBLISHED, '.github/workflows/autoloop.lock.yml'), 'utf8'))
    ).toBe('v0.65.6')
    expect(
      lockVersion(readFileSync(join(PR64, '.github/workflows/autoloop.lock.yml'), 'utf8'))
    ).toBeNull()
  })

  it('main at 438782ff (gh-aw v0.65.6): no gate, no reconcile; no fallback to turn off in v0.65.6; the memory glob and CI are right', () => {
    const findings = check(realFiles(PUBLISHED), { defaultBranch: null, stateBranchExists: null })
    expect(levels(findings)).toEqual({
      ...ALL_OK,
      'ci-gate': 'fail',
      'ci-reconcile': 'fail',
      'action-pinned': 'warn',
      permissions: 'warn',
      // v0.65.6 still trusts workflow_dispatch: a warning, not yet a failure.
      'fixer-run': 'warn',
      handover: 'fail',
      'state-branch': 'warn'
    })
    for (const finding of findings) expect(finding.fix === null).toBe(finding.level === 'ok')
  })

  it('PR #64 (a build that names no release): on.bots missing fails, and the release is a warning', () => {
    const findings = check(realFiles(PR64))
    expect(levels(findings)).toMatchObject({
      'gh-aw-version': 'warn',
      'fixer-run': 'fail',
      'memory-glob': 'ok',
      'ci-trigger-token': 'ok',
      'push-fallback': 'fail'
    })
  })
})

describeWithAutoloop('the doctor on autoloop with the CI gate installed', () => {
  it.each([
    ['v0.65.6', PUBLISHED],
    ['a build naming no release', PR64]
  ])('passes every check (%s)', (_name, folder) => {
    const findings = check(filesOf(installed(folder)))
    expect(levels(findings)).toEqual({
      ...ALL_OK,
      'gh-aw-version': folder === PR64 ? 'warn' : 'ok'
    })
  })

  it('without a lock, reads the frontmatter: every check but the version holds', () => {
    expect(levels(check(filesOf(installed(PUBLISHED), { lock: false })))).toEqual({
      ...ALL_OK,
      'gh-aw-version': 'fail'
    })
  })

  type Edit = (setup: Installed) => void
  const gateStep = (doc: Document) =>
    stepIndex(
      doc,
      'ci_gate',
      (s) => (s.with as Record<string, unknown> | undefined)?.command === 'gate'
    )
  const both =
    (edit: (doc: Document) => void): Edit =>
    (s) => {
      edit(s.md)
      edit(s.lock)
    }
  const onLock =
    (edit: (doc: Document) => void): Edit =>
    (s) =>
      edit(s.lock)

  it.each<[string, Edit, string, Level, RegExp]>([
    [
      'push_repo_memory dropped from the gate job needs',
      both((d) => d.setIn(['jobs', 'ci_gate', 'needs'], d.createNode(['agent', 'safe_outputs']))),
      'ci-gate',
      'fail',
      /needs lacks push_repo_memory/
    ],
    [
      'an if: that does not start with always()',
      both((d) => d.setIn(['jobs', 'ci_gate', 'if'], "needs.safe_outputs.result == 'success'")),
      'ci-gate',
      'fail',
      /does not start with always\(\)/
    ],
    [
      'no safe-outputs-result on the gate step',
      both((d) =>
        d.deleteIn(['jobs', 'ci_gate', 'steps', gateStep(d), 'with', 'safe-outputs-result'])
      ),
      'ci-gate',
      'fail',
      /safe-outputs-result/
    ],
    [
      'a gate step that pushes',
      both((d) => d.setIn(['jobs', 'ci_gate', 'steps', gateStep(d), 'with', 'push'], true)),
      'ci-gate',
      'fail',
      /push: false/
    ],
    [
      'a lock whose agent job does not wait for ci_reconcile',
      onLock((d) => d.setIn(['jobs', 'agent', 'needs'], 'activation')),
      'ci-reconcile',
      'fail',
      /agent job does not wait for jobs\.ci_reconcile/
    ],
    [
      'a reconcile job that is not fail-soft',
      both((d) => d.deleteIn(['jobs', 'ci_reconcile', 'continue-on-error'])),
      'ci-reconcile',
      'fail',
      /not continue-on-error: true/
    ],
    [
      'the action on a tag',
      both((d) =>
        d.setIn(['jobs', 'ci_gate', 'steps', gateStep(d), 'uses'], 'autoloop/autoloop-ci-gate@v1')
      ),
      'action-pinned',
      'warn',
      /autoloop\/autoloop-ci-gate@v1 is not pinned/
    ],
    [
      'actions: write missing on the gate job',
      both((d) => d.deleteIn(['jobs', 'ci_gate', 'permissions', 'actions'])),
      'permissions',
      'fail',
      /runs `gate` and needs actions: write; it grants none/
    ],
    [
      'the gate job granting read-all',
      onLock((d) => d.setIn(['jobs', 'ci_gate', 'permissions'], 'read-all')),
      'permissions',
      'fail',
      /needs contents: write; it grants read/
    ],
    [
      'the gate dispatching another workflow',
      both((d) =>
        d.setIn(['jobs', 'ci_gate', 'steps', gateStep(d), 'with', 'dispatch-workflow'], 'ci.yml')
      ),
      'fixer-run',
      'fail',
      /dispatches ci\.yml, not this workflow/
    ],
    [
      'no on.bots, with gh-aw v0.65.6',
      (s) => {
        s.md.deleteIn(['on', 'bots'])
        s.lock.deleteIn(
          lockEnvPath(s.lock, 'pre_activation', 'GH_AW_REQUIRED_ROLES', 'GH_AW_ALLOWED_BOTS')
        )
      },
      'fixer-run',
      'warn',
      /v0\.65\.6 still trusts workflow_dispatch, but from v0\.73\.0 on/
    ],
    [
      'no file-glob on the memory',
      (s) => {
        s.md.deleteIn(['tools', 'repo-memory', 'file-glob'])
        s.lock.deleteIn(lockEnvPath(s.lock, 'push_repo_memory', 'FILE_GLOB_FILTER'))
      },
      'memory-glob',
      'fail',
      /has no file-glob/
    ],
    [
      'a file-glob that takes every folder',
      (s) => {
        s.md.setIn(['tools', 'repo-memory', 'file-glob'], s.md.createNode(['**']))
        s.lock.setIn(lockEnvPath(s.lock, 'push_repo_memory', 'FILE_GLOB_FILTER'), '**')
      },
      'memory-glob',
      'fail',
      /file-glob \*\* matches ci-gate\/example\.json/
    ],
    [
      'a gate on another state branch than the memory',
      both((d) =>
        d.setIn(['jobs', 'ci_gate', 'steps', gateStep(d), 'with', 'state-branch'], 'memory/other')
      ),
      'memory-glob',
      'fail',
      /no repo-memory pushes to memory\/other/
    ],
    [
      'the CI-trigger token as GITHUB_TOKEN',
      (s) =>
        s.md.setIn(
          ['safe-outputs', 'create-pull-request', 'github-token-for-extra-empty-commit'],
          '${{ github.token }}'
        ),
      'ci-trigger-token',
      'fail',
      /create-pull-request pushes its CI-trigger commit with GITHUB_TOKEN/
    ],
    [
      'no CI-trigger token anywhere',
      (s) => {
        for (const output of ['create-pull-request', 'push-to-pull-request-branch'])
          s.md.deleteIn(['safe-outputs', output, 'github-token-for-extra-empty-commit'])
        s.lock.deleteIn(lockEnvPath(s.lock, 'safe_outputs', 'GH_AW_CI_TRIGGER_TOKEN'))
      },
      'ci-trigger-token',
      'fail',
      /get no CI-trigger token and the lock does not wire GH_AW_CI_TRIGGER_TOKEN/
    ],
    [
      'no CI-trigger token, but safe outputs pushing with a token that starts CI',
      (s) => {
        for (const output of ['create-pull-request', 'push-to-pull-request-branch'])
          s.md.deleteIn(['safe-outputs', output, 'github-token-for-extra-empty-commit'])
        s.md.setIn(['safe-outputs', 'github-token'], '${{ secrets.AUTOLOOP_PUSH_TOKEN }}')
        s.lock.deleteIn(lockEnvPath(s.lock, 'safe_outputs', 'GH_AW_CI_TRIGGER_TOKEN'))
      },
      'ci-trigger-token',
      'ok',
      /secrets\.AUTOLOOP_PUSH_TOKEN \}\} \(safe-outputs\.github-token\)/
    ],
    [
      'no hand-over post-step',
      (s) => {
        s.md.delete('post-steps')
        const agent = s.lock.getIn(['jobs', 'agent', 'steps']) as { items: unknown[] }
        agent.items.pop()
      },
      'handover',
      'fail',
      /no post-step copies autoloop\.json and autoloop-iteration\.json/
    ],
    [
      'a hand-over post-step without if: always()',
      (s) => {
        s.md.deleteIn(['post-steps', 0, 'if'])
        const agent = s.lock.getIn(['jobs', 'agent', 'steps']) as { items: unknown[] }
        s.lock.deleteIn(['jobs', 'agent', 'steps', agent.items.length - 1, 'if'])
      },
      'handover',
      'fail',
      /does not run if: always\(\)/
    ],
    [
      'an iteration file outside the handed-over folder',
      both((d) =>
        d.setIn(
          ['jobs', 'ci_gate', 'steps', gateStep(d), 'with', 'iteration-file'],
          '/tmp/gh-aw/autoloop-iteration.json'
        )
      ),
      'handover',
      'fail',
      /iteration-file \/tmp\/gh-aw\/autoloop-iteration\.json is not in \/tmp\/gh-aw\/agent\//
    ],
    [
      "autoloop's own Step 5 kept in the prompt",
      (s) => void (s.body = s.body.split('\n# Autoloop, gated on CI')[0] ?? ''),
      'handover',
      'fail',
      /never asks for \/tmp\/gh-aw\/autoloop-iteration\.json/
    ],
    [
      'CI only on pushes to main',
      (s) => s.others.get('tests.yml')?.deleteIn(['on', 'pull_request']),
      'ci-workflow',
      'fail',
      /no workflow runs on pushes to autoloop\/<program> or on the program PR/
    ],
    [
      'CI on the PR limited by paths',
      (s) =>
        s.others
          .get('tests.yml')
          ?.setIn(['on', 'pull_request'], s.md.createNode({ paths: ['src/**'] })),
      'ci-workflow',
      'warn',
      /runs only on the program PR with paths: src\/\*\*/
    ],
    [
      'CI only on pushes to autoloop/** limited by paths',
      (s) => {
        const tests = s.others.get('tests.yml') as Document
        tests.deleteIn(['on', 'pull_request'])
        tests.setIn(
          ['on', 'push'],
          tests.createNode({ branches: ['autoloop/**'], paths: ['src/**'] })
        )
      },
      'ci-workflow',
      'fail',
      /which skips the CI-trigger commit \(it changes no file\)/
    ],
    [
      'CI on pushes to autoloop/** only',
      (s) => {
        const tests = s.others.get('tests.yml') as Document
        tests.deleteIn(['on', 'pull_request'])
        tests.setIn(['on', 'push', 'branches'], tests.createNode(['main', 'autoloop/**']))
      },
      'ci-workflow',
      'ok',
      /runs on pushes to autoloop\/<program>/
    ],
    [
      'wait: false and no settle workflow',
      (s) => void s.others.delete('autoloop-settle.yml'),
      'settle-workflow',
      'fail',
      /no workflow runs settle/
    ],
    [
      'a settle workflow that does not name the CI workflow',
      (s) =>
        s.others
          .get('autoloop-settle.yml')
          ?.setIn(['on', 'workflow_run', 'workflows'], s.md.createNode(['Lint'])),
      'settle-workflow',
      'fail',
      /workflows lacks "Tests"/
    ],
    [
      'a settle workflow on requested runs only',
      (s) =>
        s.others
          .get('autoloop-settle.yml')
          ?.setIn(['on', 'workflow_run', 'types'], s.md.createNode(['requested'])),
      'settle-workflow',
      'fail',
      /types \(requested\) lacks completed/
    ],
    [
      'a settle workflow for main only',
      (s) =>
        s.others
          .get('autoloop-settle.yml')
          ?.setIn(['on', 'workflow_run', 'branches'], s.md.createNode(['main'])),
      'settle-workflow',
      'fail',
      /leaves out autoloop\/<program>/
    ],
    [
      'a settle workflow on a schedule instead of workflow_run',
      (s) =>
        s.others
          .get('autoloop-settle.yml')
          ?.set('on', s.md.createNode({ schedule: [{ cron: '7 * * * *' }] })),
      'settle-workflow',
      'fail',
      /not triggered by workflow_run/
    ],
    [
      'a settle workflow that cannot start the fixer run',
      (s) => s.others.get('autoloop-settle.yml')?.setIn(['permissions', 'actions'], 'read'),
      'settle-workflow',
      'fail',
      /runs settle without actions: write/
    ],
    [
      'wait: true and no settle workflow: the gate polls',
      (s) => {
        s.others.delete('autoloop-settle.yml')
        for (const doc of [s.md, s.lock])
          doc.setIn(['jobs', 'ci_gate', 'steps', gateStep(doc), 'with', 'wait'], true)
      },
      'settle-workflow',
      'ok',
      /waits for CI itself/
    ],
    [
      'CI on the PR for another base branch',
      (s) =>
        s.others
          .get('tests.yml')
          ?.setIn(['on', 'pull_request'], s.md.createNode({ branches: ['release/*'] })),
      'ci-workflow',
      'fail',
      /no workflow runs/
    ]
  ])('%s', (_name, edit, id, level, message) => {
    const setup = installed(PUBLISHED)
    edit(setup)
    const findings = check(filesOf(setup))
    const changed = findings.find((f) => f.id === id) as Finding
    expect(changed.level).toBe(level)
    expect(changed.message).toMatch(message)
    expect(levels(findings)).toEqual({ ...ALL_OK, [id]: level })
  })

  it("gh-aw's fallback-as-pull-request kept: fails on a gh-aw that has it; v0.65.6 has none", () => {
    const setup = installed(PUBLISHED)
    setup.md.deleteIn(['safe-outputs', 'push-to-pull-request-branch', 'fallback-as-pull-request'])
    editHandlerConfig(
      setup.lock,
      (c) =>
        void delete (c.push_to_pull_request_branch as Record<string, unknown>)
          .fallback_as_pull_request
    )
    const findings = check(relabel(setup, 'v0.72.1'))
    expect(levels(findings)).toEqual({ ...ALL_OK, 'push-fallback': 'fail' })
    expect(findings.find((f) => f.id === 'push-fallback')?.message).toMatch(
      /keeps gh-aw's fallback-as-pull-request/
    )
    // What the README tells a v0.65.6 user to write: no key, whose push fails without one.
    expect(levels(check(filesOf(setup)))).toEqual(ALL_OK)
  })

  it('a lock older than its workflow: the fix is to compile it again', () => {
    const setup = installed(PUBLISHED)
    setup.lock.setIn(['jobs', 'ci_gate', 'needs'], setup.lock.createNode(['agent', 'safe_outputs']))
    editHandlerConfig(
      setup.lock,
      (c) =>
        void delete (c.push_to_pull_request_branch as Record<string, unknown>)
          .fallback_as_pull_request
    )
    const findings = check(relabel(setup, 'v0.72.1'))
    for (const id of ['ci-gate', 'push-fallback']) {
      const finding = findings.find((f) => f.id === id) as Finding
      expect(finding.level).toBe('fail')
      expect(finding.message).toMatch(/older than the workflow/)
      expect(finding.fix).toMatch(RECOMPILE)
      expect(finding.fix).not.toMatch(/examples\/gh-aw/)
    }
  })

  it('gh-aw after v0.72: a lock without on.bots fails; with it, only the version is a warning', () => {
    const setup = installed(PUBLISHED)
    expect(levels(check(relabel(setup, 'v0.91.6')))).toEqual({ ...ALL_OK, 'gh-aw-version': 'warn' })
    setup.lock.deleteIn(
      lockEnvPath(setup.lock, 'pre_activation', 'GH_AW_REQUIRED_ROLES', 'GH_AW_ALLOWED_BOTS')
    )
    const fixer = check(relabel(setup, 'v0.91.6')).find((f) => f.id === 'fixer-run') as Finding
    expect(fixer.level).toBe('fail')
    expect(fixer.message).toMatch(
      /autoloop\.md lets github-actions\[bot\] through pre-activation but the lock does not/
    )
    expect(fixer.fix).toMatch(RECOMPILE)
  })

  it('roles: all lets the bot through too', () => {
    const setup = installed(PUBLISHED)
    setup.md.deleteIn(['on', 'bots'])
    setup.md.setIn(['on', 'roles'], 'all')
    setup.lock.deleteIn(
      lockEnvPath(setup.lock, 'pre_activation', 'GH_AW_REQUIRED_ROLES', 'GH_AW_ALLOWED_BOTS')
    )
    setup.lock.setIn(lockEnvPath(setup.lock, 'pre_activation', 'GH_AW_REQUIRED_ROLES'), 'all')
    expect(check(relabel(setup, 'v0.91.6')).find((f) => f.id === 'fixer-run')?.level).toBe('ok')
  })

  it('a gh-aw older than supported fails', () => {
    const version = check(relabel(installed(PUBLISHED), 'v0.60.2')).find(
      (f) => f.id === 'gh-aw-version'
    )
    expect(version?.level).toBe('fail')
  })

  it('a workflow whose frontmatter is not YAML fails the workflow check', () => {
    const files = filesOf(installed(PUBLISHED))
    const workflow = files.workflow as { path: string; text: string }
    const broken = {
      ...files,
      workflow: { ...workflow, text: workflow.text.replace('on:\n', 'on: [\n') }
    }
    const finding = check(broken).find((f) => f.id === 'workflow') as Finding
    expect(finding.level).toBe('fail')
    expect(finding.message).toMatch(/autoloop\.md is not valid YAML/)
  })

  it.each<[string, RepoFacts, Level, RegExp]>([
    [
      'does not exist',
      { defaultBranch: 'main', stateBranchExists: false },
      'warn',
      /memory\/autoloop does not exist/
    ],
    [
      'is unknown offline',
      { defaultBranch: null, stateBranchExists: null, stateBranchNote: 'offline' },
      'warn',
      /is unknown: offline/
    ]
  ])('the state branch %s', (_name, facts, level, message) => {
    const finding = check(filesOf(installed(PUBLISHED)), facts).find(
      (f) => f.id === 'state-branch'
    ) as Finding
    expect(finding.level).toBe(level)
    expect(finding.message).toMatch(message)
  })
})

describeWithAutoloop('the settle workflow and the default branch', () => {
  it.each<[string, RepoFacts, Level, RegExp]>([
    [
      'is only on another branch',
      { ...ONLINE, defaultBranchWorkflows: ['autoloop.lock.yml', 'autoloop.md', 'tests.yml'] },
      'fail',
      /not on the default branch main/
    ],
    [
      'is unknown offline',
      {
        defaultBranch: null,
        stateBranchExists: true,
        defaultBranchWorkflows: null,
        defaultBranchNote: 'offline'
      },
      'warn',
      /on the default branch is unknown: offline/
    ]
  ])('the settle workflow %s', (_name, facts, level, message) => {
    const finding = check(filesOf(installed(PUBLISHED)), facts).find(
      (f) => f.id === 'settle-workflow'
    ) as Finding
    expect(finding.level).toBe(level)
    expect(finding.message).toMatch(message)
    expect(finding.fix).not.toBeNull()
  })
})

describe("the repository's own gh-aw example", () => {
  const text = readFileSync(join(ROOT, 'examples/gh-aw/autoloop.md'), 'utf8')
  const findings = check({
    source: 'examples/',
    workflow: { path: 'examples/gh-aw/autoloop.md', text },
    lock: null,
    // Its settle workflow beside it (the CI workflows it names are the repository's own).
    others: [
      {
        path: '.github/workflows/autoloop-settle.yml',
        text: readFileSync(join(ROOT, 'examples/autoloop-settle.yml'), 'utf8')
      }
    ],
    skipped: 0
  })
  const byId = (id: string) => findings.find((f) => f.id === id) as Finding

  // Every check that reads the workflow itself is ok. The three left out depend on what the
  // example cannot hold: a compiled lock (gh-aw-version), the repository's CI workflows
  // (ci-workflow) and the state branch (state-branch, given here as existing).
  it.each([
    'workflow',
    'ci-gate',
    'ci-reconcile',
    'permissions',
    'fixer-run',
    'memory-glob',
    'ci-trigger-token',
    'push-fallback',
    'handover',
    'settle-workflow'
  ])('passes %s', (id) => {
    expect(byId(id)).toMatchObject({ level: 'ok', fix: null })
  })

  it('fails only where it cannot be the whole setup: no lock, no CI workflow read', () => {
    expect(levels(findings)).toEqual({
      ...ALL_OK,
      'gh-aw-version': 'fail',
      'action-pinned': 'warn',
      'ci-workflow': 'fail'
    })
  })

  it('leaves the action on its tag, with a comment to pin it (a warning), and has no lock to read', () => {
    expect(byId('action-pinned').level).toBe('warn')
    expect(byId('gh-aw-version').message).toMatch(/never compiled/)
  })
})
