import { describe, expect, it } from '@jest/globals'
import {
  INPUT_NAMES,
  InputError,
  branchNameProblem,
  forProgram,
  parseInputs
} from '../../src/core/inputs.js'

const reader = (values: Record<string, string>) => (name: string) => values[name] ?? ''
const base = { 'github-token': 't', program: 'perf' }

function problems(values: Record<string, string>): string[] {
  try {
    parseInputs(reader(values))
  } catch (error) {
    if (error instanceof InputError) return error.problems
    throw error
  }
  return []
}

describe('parseInputs', () => {
  it('applies the documented defaults', () => {
    const config = parseInputs(reader(base))
    expect(config).toMatchObject({
      command: 'gate',
      program: 'perf',
      branch: 'autoloop/perf',
      push: true,
      createPr: true,
      maxFixAttempts: 5,
      timeoutMinutes: 60,
      pollIntervalSeconds: 15,
      checksGraceSeconds: 180,
      requiredChecks: [],
      ignoreChecks: [],
      failFast: false,
      allowNoChecks: false,
      stateBranch: 'memory/autoloop',
      stateMaxBytes: 30720,
      failOnRed: false,
      dispatchWorkflow: undefined,
      dispatchRef: undefined,
      dispatchInputs: {},
      preExistingFailures: 'allow',
      rerunFailed: 1,
      selectionFile: undefined,
      iterationFile: undefined,
      forgetFailures: false
    })
  })

  it.each(['../x', '.hidden', '-x', 'a/b', 'a b', 'x'.repeat(101), 'a..b', 'name.lock', 'dot.'])(
    'refuses the program name %j before any I/O, naming the rule',
    (program) => {
      const found = problems({ ...base, program })
      expect(found).toHaveLength(1)
      expect(found[0]).toMatch(/^input `program`: /)
    }
  )

  it('names the pattern for a bad program', () => {
    expect(problems({ ...base, program: '../x' })[0]).toContain('^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$')
  })

  it('reports every bad input at once', () => {
    const found = problems({
      ...base,
      push: 'yes',
      'max-fix-attempts': '-1',
      'poll-interval-seconds': 'fast',
      sha: 'abc'
    })
    expect(found.map((p) => p.split('`')[1]).sort()).toEqual([
      'max-fix-attempts',
      'poll-interval-seconds',
      'push',
      'sha'
    ])
  })

  it('parses lists, booleans and references', () => {
    const config = parseInputs(
      reader({
        ...base,
        'required-checks': 'build, test\ne2e\n\ntest',
        'ignore-checks': 'codecov/*',
        'fail-fast': 'True',
        pr: '#12',
        issue: '7'
      })
    )
    expect(config.requiredChecks).toEqual(['build', 'test', 'e2e'])
    expect(config.ignoreChecks).toEqual(['codecov/*'])
    expect(config.failFast).toBe(true)
    expect(config.pr).toBe(12)
    expect(config.issue).toBe(7)
  })

  it('requires program except for reconcile, and for gate unless a selection file names it', () => {
    expect(problems({ 'github-token': 't' })).toEqual([
      "input `program`: required for the `gate` command unless `selection-file` names the scheduler's selection"
    ])
    expect(
      problems({ 'github-token': 't', 'selection-file': '/tmp/gh-aw/agent/autoloop.json' })
    ).toEqual([])
    expect(problems({ 'github-token': 't', command: 'reconcile' })).toEqual([])
    for (const command of ['record', 'reset'])
      expect(problems({ 'github-token': 't', command, outcome: 'rejected' })).toContain(
        `input \`program\`: required for the \`${command}\` command`
      )
  })

  it('fix-command needs push: the fixes it commits must reach the branch', () => {
    expect(problems({ ...base, 'fix-command': 'npm run fix', push: 'false' })[0]).toMatch(
      /^input `fix-command`: needs `push: true`/
    )
    expect(problems({ ...base, 'fix-command': 'npm run fix' })).toEqual([])
  })

  it('refuses a metric that is not a finite number, naming the input', () => {
    for (const metric of ['NaN', 'Infinity', '1e999', 'fast', '1,5']) {
      expect(problems({ ...base, command: 'record', outcome: 'rejected', metric })[0]).toMatch(
        /^input `metric`: /
      )
    }
    expect(
      parseInputs(reader({ ...base, command: 'record', outcome: 'accepted', metric: '-0.25' }))
        .metric
    ).toBe(-0.25)
  })

  it('requires metric for an accepted record', () => {
    expect(problems({ ...base, command: 'record', outcome: 'accepted' })).toEqual([
      'input `metric`: required when `outcome` is accepted'
    ])
  })

  it('refuses an unknown command and an empty token', () => {
    expect(problems({ program: 'p', command: 'deploy' }).map((p) => p.split('`')[1])).toEqual([
      'command',
      'github-token'
    ])
  })
})

describe('the gh-aw and classification inputs', () => {
  it.each(['autoloop.lock.yml', 'ci.yaml', '12345'])(
    'dispatch-workflow %j is a workflow file or id',
    (name) => {
      expect(parseInputs(reader({ ...base, 'dispatch-workflow': name })).dispatchWorkflow).toBe(
        name
      )
    }
  )

  it.each(['.github/workflows/autoloop.lock.yml', 'autoloop', '0', 'a b.yml'])(
    'dispatch-workflow %j is refused, naming the input',
    (name) => {
      expect(problems({ ...base, 'dispatch-workflow': name })[0]).toMatch(
        /^input `dispatch-workflow`: .* is not a workflow file name such as autoloop\.lock\.yml/
      )
    }
  )

  it('dispatch-ref is a branch name', () => {
    expect(parseInputs(reader({ ...base, 'dispatch-ref': 'main' })).dispatchRef).toBe('main')
    expect(problems({ ...base, 'dispatch-ref': 'a..b' })[0]).toMatch(/^input `dispatch-ref`: /)
  })

  it('dispatch-inputs is a JSON object of strings, numbers and booleans, passed on as strings', () => {
    expect(
      parseInputs(
        reader({ ...base, 'dispatch-inputs': '{"mode": "fix", "depth": 2, "dry": false}' })
      ).dispatchInputs
    ).toEqual({ mode: 'fix', depth: '2', dry: 'false' })
  })

  it.each([
    ['not JSON', '{mode: fix}', /is not JSON/],
    ['an array', '["fix"]', /must be a JSON object/],
    ['a nested object', '{"a": {"b": 1}}', /must be a JSON object of strings, numbers or booleans/],
    ['an empty key', '{"": "x"}', /must be a JSON object/],
    [
      'more than 24 keys',
      JSON.stringify(Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, i]))),
      /more than 24 keys \(GitHub takes 25, with program\)/
    ]
  ])('dispatch-inputs: %s is refused, naming the input', (_name, raw, rule) => {
    const found = problems({ ...base, 'dispatch-inputs': raw })
    expect(found).toHaveLength(1)
    expect(found[0]).toMatch(/^input `dispatch-inputs`: /)
    expect(found[0]).toMatch(rule)
  })

  it('pre-existing-failures is allow or block', () => {
    expect(
      parseInputs(reader({ ...base, 'pre-existing-failures': 'block' })).preExistingFailures
    ).toBe('block')
    expect(problems({ ...base, 'pre-existing-failures': 'ignore' })).toEqual([
      'input `pre-existing-failures`: "ignore" is not one of allow, block'
    ])
  })

  it('rerun-failed is 0 (off) to 5', () => {
    expect(parseInputs(reader({ ...base, 'rerun-failed': '0' })).rerunFailed).toBe(0)
    expect(parseInputs(reader({ ...base, 'rerun-failed': '5' })).rerunFailed).toBe(5)
    expect(problems({ ...base, 'rerun-failed': '6' })).toEqual([
      'input `rerun-failed`: 6 is outside 0..5'
    ])
  })

  it('selection-file, iteration-file and forget-failures', () => {
    const config = parseInputs(
      reader({
        ...base,
        'selection-file': '/tmp/gh-aw/agent/autoloop.json',
        'iteration-file': '/tmp/gh-aw/agent/iteration.json',
        'forget-failures': 'true'
      })
    )
    expect(config).toMatchObject({
      selectionFile: '/tmp/gh-aw/agent/autoloop.json',
      iterationFile: '/tmp/gh-aw/agent/iteration.json',
      forgetFailures: true
    })
    expect(problems({ ...base, 'forget-failures': 'yes' })[0]).toMatch(/^input `forget-failures`: /)
  })

  it("safe-outputs-result is one of a job's results, or empty", () => {
    expect(parseInputs(reader(base)).safeOutputsResult).toBeUndefined()
    for (const result of ['success', 'failure', 'cancelled', 'skipped'])
      expect(
        parseInputs(reader({ ...base, 'safe-outputs-result': result })).safeOutputsResult
      ).toBe(result)
    expect(problems({ ...base, 'safe-outputs-result': 'failed' })).toEqual([
      'input `safe-outputs-result`: "failed" is not one of success, failure, cancelled, skipped'
    ])
  })

  it('lists every input it reads, the new ones included', () => {
    expect(INPUT_NAMES).toEqual(
      expect.arrayContaining([
        'dispatch-workflow',
        'dispatch-ref',
        'dispatch-inputs',
        'pre-existing-failures',
        'rerun-failed',
        'selection-file',
        'iteration-file',
        'forget-failures',
        'safe-outputs-result'
      ])
    )
  })

  it('forProgram: the program a selection names, its branch by default', () => {
    const config = parseInputs(reader({ 'github-token': 't', 'selection-file': 'x.json' }))
    expect(forProgram(config, 'perf')).toMatchObject({ program: 'perf', branch: 'autoloop/perf' })
    const branched = parseInputs(reader({ ...base, branch: 'feature/x' }))
    expect(forProgram(branched, 'perf').branch).toBe('feature/x')
  })
})

describe('branchNameProblem', () => {
  it.each([
    ['autoloop/x', undefined],
    ['a..b', "contains '..'"],
    ['a b', 'contains a space, a control character or one of ~ ^ : ? * [ \\'],
    ['x/', "has an empty path component ('/' at the start or end, or '//')"],
    ['x.lock', "ends with '.' or '.lock'"]
  ])('%s', (name, problem) => {
    expect(branchNameProblem(name)).toBe(problem)
  })
})

describe('github-api-url and fix-command-env', () => {
  it('github-api-url: an http(s) URL without its trailing slash, else a problem naming it', () => {
    expect(
      parseInputs(reader({ ...base, 'github-api-url': 'http://127.0.0.1:8080/api/' })).githubApiUrl
    ).toBe('http://127.0.0.1:8080/api')
    expect(parseInputs(reader(base)).githubApiUrl).toBeUndefined()
    expect(problems({ ...base, 'github-api-url': 'api.github.com' })[0]).toMatch(
      /^input `github-api-url`: "api.github.com" is not an http\(s\) URL/
    )
  })

  it('fix-command-env: variable names, one per line or comma separated', () => {
    expect(
      parseInputs(reader({ ...base, 'fix-command-env': 'NPM_TOKEN, GH_TOKEN\nINPUT_PUSH-TOKEN' }))
        .fixCommandEnv
    ).toEqual(['NPM_TOKEN', 'GH_TOKEN', 'INPUT_PUSH-TOKEN'])
    expect(problems({ ...base, 'fix-command-env': 'NPM TOKEN=1' })[0]).toMatch(
      /^input `fix-command-env`: "NPM TOKEN=1" is not an environment variable name/
    )
  })
})
