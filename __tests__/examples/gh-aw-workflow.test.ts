/**
 * The gh-aw example (examples/gh-aw/autoloop.md) is what a maintainer merges into autoloop's
 * workflow. Its frontmatter must be valid for gh-aw (the vendored frontmatter schema), keep the
 * job graph and wiring the schema cannot check, grant each command its permissions and pass the
 * action only inputs it declares, with values it can parse. Each rule is also shown to fail on
 * a copy of the example broken the way a maintainer might break it.
 */
import { beforeAll, describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import {
  CI_TRIGGER_TOKEN,
  ITERATION_SOURCE,
  declaredInputs,
  ghawGraphProblems,
  handoverProblems,
  inputNameProblems,
  inputValueProblems,
  permissionProblems,
  pinProblems,
  readYaml,
  splitFrontmatter
} from './workflow-rules.js'

const ROOT = resolve(import.meta.dirname, '../..')
const EXAMPLE = join(ROOT, 'examples/gh-aw/autoloop.md')
const WORKFLOW_NAME = 'autoloop'

const { frontmatter: frontmatterText, body } = splitFrontmatter(readFileSync(EXAMPLE, 'utf8'))
const frontmatter = readYaml(frontmatterText)
const declared = declaredInputs(readFileSync(join(ROOT, 'action.yml'), 'utf8'))

type Mutable = Record<string, unknown> & {
  jobs: Record<string, Record<string, unknown> & { steps: Record<string, unknown>[] }>
  'post-steps': Record<string, unknown>[]
  'safe-outputs': Record<string, Record<string, unknown>>
}

/** A deep copy of the example's frontmatter to break. */
function copy(): Mutable {
  return structuredClone(frontmatter) as Mutable
}

function gateStep(workflow: Mutable): Record<string, unknown> & { with: Record<string, unknown> } {
  const step = workflow.jobs.ci_gate?.steps.find((s) => String(s.uses).includes('autoloop-ci-gate'))
  if (!step) throw new Error('the example has no gate step')
  return step as Record<string, unknown> & { with: Record<string, unknown> }
}

function allProblems(workflow: unknown): string[] {
  return [
    ...inputNameProblems(workflow, declared),
    ...inputValueProblems(workflow),
    ...permissionProblems(workflow),
    ...ghawGraphProblems(workflow, WORKFLOW_NAME),
    ...handoverProblems(workflow)
  ]
}

describe('gh-aw frontmatter schema', () => {
  let validate: ValidateFunction

  beforeAll(() => {
    const schema = JSON.parse(
      readFileSync(join(ROOT, '__fixtures__/gh-aw/main_workflow_schema.json'), 'utf8')
    ) as Record<string, unknown>
    const ajv = new Ajv({ strict: false, allErrors: true, logger: false })
    addFormatsModule.default(ajv)
    validate = ajv.compile(schema)
  })

  function schemaErrors(workflow: unknown): string[] {
    return validate(workflow)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`)
  }

  it('accepts the example', () => {
    expect(schemaErrors(frontmatter)).toEqual([])
  })

  it.each<[string, (workflow: Mutable) => void, string]>([
    ['an unknown job key', (w) => void (w.jobs.ci_gate!['wait-for'] = 'ci'), '/jobs/ci_gate'],
    [
      'permissions.checks: admin',
      (w) => void ((w.jobs.ci_gate!.permissions as Record<string, unknown>).checks = 'admin'),
      '/jobs/ci_gate/permissions'
    ],
    [
      'continue-on-error as a string',
      (w) => void (w.jobs.ci_reconcile!['continue-on-error'] = 'true'),
      '/jobs/ci_reconcile/continue-on-error'
    ],
    ['an unknown top-level key', (w) => void (w['after-push-steps'] = []), ''],
    [
      'an unknown key on a push output',
      (w) => void (w['safe-outputs']['push-to-pull-request-branch']!['ci-token'] = 'x'),
      '/safe-outputs/push-to-pull-request-branch'
    ]
  ])('rejects %s', (_name, mutate, path) => {
    const broken = copy()
    mutate(broken)
    const errors = schemaErrors(broken)
    expect(errors.length).toBeGreaterThan(0)
    expect(errors.some((e) => e.startsWith(`${path} `) || e.startsWith(`${path}/`))).toBe(true)
  })
})

describe("autoloop's own gh-aw, v0.65.6", () => {
  /** The example with the changes the README lists for gh-aw v0.65.6. */
  function forV0656(): Mutable {
    const workflow = copy()
    const push = workflow['safe-outputs']['push-to-pull-request-branch']!
    push['title-prefix'] = push['required-title-prefix']
    delete push['required-title-prefix']
    delete push['fallback-as-pull-request']
    delete workflow['safe-outputs']['create-pull-request']!['recreate-ref']
    return workflow
  }

  let validate: ValidateFunction
  beforeAll(() => {
    const schema = JSON.parse(
      readFileSync(join(ROOT, '__fixtures__/gh-aw/main_workflow_schema.v0.65.6.json'), 'utf8')
    ) as Record<string, unknown>
    const ajv = new Ajv({ strict: false, allErrors: true, logger: false })
    addFormatsModule.default(ajv)
    validate = ajv.compile(schema)
  })

  it('refuses the keys newer gh-aw added, and accepts the example without them', () => {
    expect(validate(frontmatter)).toBe(false)
    const paths = (validate.errors ?? []).map(
      (e) => `${e.instancePath} ${JSON.stringify(e.params)}`
    )
    for (const key of ['fallback-as-pull-request', 'required-title-prefix', 'recreate-ref'])
      expect(paths.some((p) => p.includes(key))).toBe(true)
    const ok = validate(forV0656())
    expect(validate.errors ?? []).toEqual([])
    expect(ok).toBe(true)
    // on.bots is known to v0.65.6: the fixer run is let through there as well.
    expect((forV0656().on as Record<string, unknown>).bots).toEqual(['github-actions[bot]'])
  })
})

describe('the gh-aw example keeps the rules the schema cannot check', () => {
  it('has none broken', () => {
    expect(allProblems(frontmatter)).toEqual([])
  })

  it('pins every action but its own to a commit SHA with a version comment', () => {
    expect(pinProblems(frontmatterText)).toEqual([])
  })

  it('tells the agent to write the file the post-step hands over, and to read the brief', () => {
    expect(body).toContain(ITERATION_SOURCE)
    expect(body).toContain('## 🚦 CI Gate')
  })

  it('says how the CI-trigger token is wired on both push outputs', () => {
    const outputs = (frontmatter as Mutable)['safe-outputs']
    for (const output of ['create-pull-request', 'push-to-pull-request-branch'])
      expect(outputs[output]?.['github-token-for-extra-empty-commit']).toBe(CI_TRIGGER_TOKEN)
  })
})

describe('a broken copy of the gh-aw example fails the rules', () => {
  it.each<[string, (workflow: Mutable) => void, RegExp]>([
    [
      'agent removed from the gate job needs',
      (w) => void (w.jobs.ci_gate!.needs = ['safe_outputs', 'push_repo_memory']),
      /needs does not list agent/
    ],
    [
      'push_repo_memory removed from the gate job needs',
      (w) => void (w.jobs.ci_gate!.needs = ['agent', 'safe_outputs']),
      /needs does not list push_repo_memory/
    ],
    [
      'actions: write missing',
      (w) => void delete (w.jobs.ci_gate!.permissions as Record<string, unknown>).actions,
      /runs `gate` and needs actions: write; it grants none/
    ],
    [
      'actions: read where write is needed',
      (w) => void ((w.jobs.ci_gate!.permissions as Record<string, unknown>).actions = 'read'),
      /needs actions: write; it grants read/
    ],
    [
      'permissions in string form',
      (w) => void (w.jobs.ci_reconcile!.permissions = 'write-all'),
      /jobs\.ci_reconcile\.permissions must be a map/
    ],
    [
      'an if: that does not start with always()',
      (w) => void (w.jobs.ci_gate!.if = "needs.safe_outputs.result == 'success'"),
      /does not start with always\(\)/
    ],
    [
      'an if: without !cancelled()',
      (w) => void (w.jobs.ci_gate!.if = 'always()'),
      /lacks !cancelled\(\)/
    ],
    [
      'a concurrency group on the gate job',
      (w) => void (w.jobs.ci_gate!.concurrency = 'gate'),
      /concurrency group/
    ],
    [
      'a job timeout no longer than the gate wall clock',
      (w) => void (w.jobs.ci_gate!['timeout-minutes'] = 60),
      /must exceed the gate's timeout-minutes/
    ],
    [
      'needs on the reconcile job',
      (w) => void (w.jobs.ci_reconcile!.needs = ['agent']),
      /ci_reconcile has needs/
    ],
    [
      'a reconcile job that is not fail-soft',
      (w) => void delete w.jobs.ci_reconcile!['continue-on-error'],
      /not continue-on-error: true/
    ],
    [
      'no checkout of the workflows for reconcile',
      (w) => void w.jobs.ci_reconcile!.steps.shift(),
      /ci_reconcile checks out no \.github\/workflows before reconcile/
    ],
    [
      'a sparse checkout of another folder for reconcile',
      (w) => void (w.jobs.ci_reconcile!.steps[0]!.with = { 'sparse-checkout': 'src' }),
      /ci_reconcile checks out no \.github\/workflows before reconcile/
    ],
    ['a gate that pushes', (w) => void (gateStep(w).with.push = true), /push is not false/],
    [
      'a state branch other than the memory branch',
      (w) => void (gateStep(w).with['state-branch'] = 'memory/other'),
      /state-branch is not the repo-memory branch/
    ],
    [
      'a dispatch of another workflow',
      (w) => void (gateStep(w).with['dispatch-workflow'] = 'ci.yml'),
      /dispatch-workflow is not this workflow/
    ],
    [
      'a dispatch input the workflow does not accept',
      (w) => void (gateStep(w).with['dispatch-inputs'] = '{"reason": "ci"}'),
      /dispatched with `reason`/
    ],
    [
      'a download that fails on a missing artifact',
      (w) => void delete w.jobs.ci_gate!.steps[0]!['continue-on-error'],
      /would fail the download step/
    ],
    [
      'a selection file outside the handed-over folder',
      (w) => void (gateStep(w).with['selection-file'] = '/tmp/gh-aw/autoloop.json'),
      /selection-file \/tmp\/gh-aw\/autoloop\.json is not in \/tmp\/gh-aw\/agent\//
    ],
    [
      'a post-step that copies only the selection',
      (w) =>
        void (w['post-steps'][0]!.run =
          'mkdir -p /tmp/gh-aw/agent\ncp /tmp/gh-aw/autoloop.json /tmp/gh-aw/agent/autoloop.json\n'),
      /do not put \/tmp\/gh-aw\/autoloop-iteration\.json where the gate reads it/
    ],
    [
      'a post-step that fails when the agent wrote nothing',
      (w) =>
        void (w['post-steps'][0]!.run =
          'mkdir -p /tmp/gh-aw/agent\ncp /tmp/gh-aw/autoloop.json /tmp/gh-aw/autoloop-iteration.json /tmp/gh-aw/agent/\n'),
      /post-steps\[0\] failed/
    ],
    [
      'a post-step that does not run always()',
      (w) => void delete w['post-steps'][0]!.if,
      /does not run always\(\)/
    ],
    [
      'the CI-trigger token missing on push-to-pull-request-branch',
      (w) =>
        void delete w['safe-outputs']['push-to-pull-request-branch']![
          'github-token-for-extra-empty-commit'
        ],
      /push-to-pull-request-branch\.github-token-for-extra-empty-commit/
    ],
    [
      'an input the action does not declare',
      (w) => void (gateStep(w).with['wait-minutes'] = '5'),
      /`wait-minutes` is not an input of the action/
    ],
    [
      'a declared input with a value the action cannot parse',
      (w) => void (gateStep(w).with['max-fix-attempts'] = 'five'),
      /input `max-fix-attempts`: "five" is not a whole number/
    ],
    [
      'an input with a value the action refuses',
      (w) => void (gateStep(w).with['pre-existing-failures'] = 'ignore'),
      /input `pre-existing-failures`: "ignore" is not one of allow, block/
    ],
    [
      'no on.bots for the dispatched fixer run',
      (w) => void delete (w.on as Record<string, unknown>).bots,
      /on\.bots does not list github-actions\[bot\]/
    ],
    [
      'fallback PRs left on',
      (w) =>
        void delete w['safe-outputs']['push-to-pull-request-branch']!['fallback-as-pull-request'],
      /fallback-as-pull-request is not false/
    ],
    [
      'the deprecated title-prefix',
      (w) => void (w['safe-outputs']['push-to-pull-request-branch']!['title-prefix'] = '[Autoloop'),
      /title-prefix is deprecated: use required-title-prefix/
    ],
    [
      'preserve-branch-name without recreate-ref',
      (w) => void delete w['safe-outputs']['create-pull-request']!['recreate-ref'],
      /preserve-branch-name without recreate-ref/
    ],
    [
      'the gate not told the result of safe_outputs',
      (w) => void delete gateStep(w).with['safe-outputs-result'],
      /safe-outputs-result is not \$\{\{ needs\.safe_outputs\.result \}\}/
    ],
    [
      'an expression with no sample value',
      (w) => void (gateStep(w).with.program = '${{ inputs.name }}'),
      /no sample value for \$\{\{ inputs\.name \}\}/
    ]
  ])('%s', (_name, mutate, expected) => {
    const broken = copy()
    mutate(broken)
    const problems = allProblems(broken)
    expect(problems.some((problem) => expected.test(problem))).toBe(true)
  })

  it('an action step that is not pinned is found', () => {
    const unpinned = frontmatterText.replace(
      /actions\/download-artifact@[0-9a-f]{40} # v[\d.]+/,
      'actions/download-artifact@v8'
    )
    expect(pinProblems(unpinned)).toEqual([
      expect.stringContaining('actions/download-artifact@v8 is not pinned')
    ])
  })
})
