import { describe, expect, it } from '@jest/globals'
import { parseInputs, InputError, branchNameProblem } from '../src/inputs.js'

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
  it('applies the SPEC §2 defaults', () => {
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
      failOnRed: false
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

  it('requires program except for reconcile', () => {
    expect(problems({ 'github-token': 't' })).toEqual([
      'input `program`: required for the `gate` command'
    ])
    expect(problems({ 'github-token': 't', command: 'reconcile' })).toEqual([])
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
