import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import {
  diffKeys,
  failureSummaryJson,
  type FailingCheck,
  type FailureSummary,
  FailureSummaryError,
  FailureSummarySchema,
  linkTarget,
  parseFailureSummary,
  renderFailureSummaryMarkdown,
  type SummaryClassification
} from '../../src/render/failure-summary.js'
import { looseView, MENTION, parseFence, proseOf, REFERENCE } from './markdown-checks.js'

const SHA = '0123456789abcdef0123456789abcdef01234567'
const PREVIOUS_SHA = 'fedcba9876543210fedcba9876543210fedcba98'
const TOKEN = ['gh', 'p_', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'].join('')

function check(overrides: Partial<FailingCheck> = {}): FailingCheck {
  return {
    name: 'test (ubuntu-latest)',
    conclusion: 'failure',
    url: 'https://github.com/o/r/actions/runs/1/job/2',
    source: 'log',
    keys: ['jest:tests/a.test.ts>sum adds'],
    firstErrorLines: ['● sum › adds', 'Expected: 3', 'Received: 4'],
    ...overrides
  }
}

function summary(overrides: Partial<FailureSummary> = {}): FailureSummary {
  return {
    version: 2,
    program: 'perf',
    sha: SHA,
    attempt: 2,
    generatedAt: '2026-01-01T00:10:00.000Z',
    signature: {
      keys: ['jest:tests/a.test.ts>sum adds', 'tsc:TS2339:x:src/a.ts'],
      full: 'jest:tests/a.test.ts>sum adds; tsc:TS2339:x:src/a.ts',
      short: 'jest:tests/a.test.ts>sum adds; tsc:TS2339:x:src/a.ts'
    },
    checks: [
      check(),
      check({
        name: 'typecheck',
        source: 'annotations',
        keys: ['tsc:TS2339:x:src/a.ts'],
        firstErrorLines: ["src/a.ts(3,7): error TS2339: Property 'x' does not exist"],
        logTruncated: true,
        note: 'annotations only'
      })
    ],
    changes: {
      fixed: ['eslint:no-unused-vars:src/b.ts'],
      new: ['tsc:TS2339:x:src/a.ts'],
      persisting: ['jest:tests/a.test.ts>sum adds']
    },
    previous: { sha: PREVIOUS_SHA, attempt: 1, signature: 'eslint:no-unused-vars:src/b.ts' },
    ...overrides
  }
}

describe('failure summary schema', () => {
  it('round-trips through the JSON file', () => {
    const full = summary()
    expect(parseFailureSummary(JSON.parse(failureSummaryJson(full)))).toEqual(full)
    const minimal: FailureSummary = {
      version: 2,
      sha: SHA,
      attempt: 0,
      generatedAt: '2026-01-01T00:00:00Z',
      signature: { keys: [], full: '', short: '' },
      checks: [check({ source: 'none', keys: [], firstErrorLines: [], url: '' })]
    }
    expect(parseFailureSummary(JSON.parse(failureSummaryJson(minimal)))).toEqual(minimal)
  })

  it('writes pretty JSON with a final newline', () => {
    const json = failureSummaryJson(summary())
    expect(json.endsWith('}\n')).toBe(true)
    expect(json).toContain('\n  "version": 2,\n')
  })

  it('redacts secrets and masked values in the JSON file', () => {
    const hostile = summary({
      checks: [
        check({
          name: 'deploy hunter2hunter2',
          firstErrorLines: [`token ${TOKEN} leaked`, 'password hunter2hunter2'],
          note: `see https://user:pw@example.com/x`
        })
      ]
    })
    const json = failureSummaryJson(hostile, { maskedValues: ['hunter2hunter2'] })
    expect(json).not.toContain(TOKEN)
    expect(json).not.toContain('hunter2hunter2')
    expect(json).not.toContain('user:pw')
    const read = parseFailureSummary(JSON.parse(json))
    expect(read.checks[0]?.firstErrorLines).toEqual(['token *** leaked', 'password ***'])
    expect(read.checks[0]?.name).toBe('deploy ***')
    expect(read.sha).toBe(SHA)
  })

  it('names an unsupported version and how to fix it', () => {
    expect(() => parseFailureSummary({ ...summary(), version: 1 })).toThrow(
      'Unsupported failure summary version 1: this build reads version 2. Regenerate the summary with the same version of autoloop-ci-gate.'
    )
    expect(() => parseFailureSummary({ ...summary(), version: 3 })).toThrow(
      'Unsupported failure summary version 3'
    )
    expect(() => parseFailureSummary('nope')).toThrow(FailureSummaryError)
  })

  it.each([
    ['a short SHA', { sha: 'abc1234' }, 'sha'],
    ['a negative attempt', { attempt: -1 }, 'attempt'],
    ['a fractional attempt', { attempt: 1.5 }, 'attempt'],
    ['a timestamp without time zone', { generatedAt: '2026-01-01 00:00' }, 'generatedAt'],
    ['an unknown source', { checks: [{ ...check(), source: 'guess' }] }, 'checks[0].source'],
    ['a missing signature', { signature: undefined }, 'signature'],
    [
      'a previous attempt with a bad SHA',
      { previous: { sha: 'x', attempt: 1, signature: '' } },
      'previous.sha'
    ]
  ])('rejects %s, naming the field', (_what, change, field) => {
    const value: unknown = { ...summary(), ...change }
    expect(() => parseFailureSummary(value)).toThrow(FailureSummaryError)
    expect(() => parseFailureSummary(value)).toThrow(field)
  })

  it('is a zod schema other modules can compose', () => {
    expect(FailureSummarySchema.safeParse(summary()).success).toBe(true)
  })
})

/** Whose failure it is, with every list filled. */
function classification(overrides: Partial<SummaryClassification> = {}): SummaryClassification {
  return {
    preExisting: ['eslint:no-console:src/legacy.ts'],
    baseBranch: 'main',
    baseSha: PREVIOUS_SHA,
    baseNote: null,
    flaky: [{ check: 'e2e (chrome)', url: 'https://github.com/o/r/actions/runs/3/job/4' }],
    infrastructure: [
      {
        check: 'build',
        cause: 'the runner lost communication with GitHub',
        url: 'https://github.com/o/r/actions/runs/3/job/5'
      }
    ],
    reruns: [
      {
        checks: ['build', 'e2e (chrome)'],
        why: 'infrastructure',
        outcome: 'passed',
        url: 'https://github.com/o/r/actions/runs/3/attempts/2'
      }
    ],
    blocked: null,
    ...overrides
  }
}

describe('whose failure it is (version 2)', () => {
  it('round-trips through the JSON file', () => {
    const full = summary({ classification: classification() })
    expect(parseFailureSummary(JSON.parse(failureSummaryJson(full)))).toEqual(full)
  })

  it('rejects an unknown re-run outcome, naming the field', () => {
    const bad = summary({
      classification: classification({
        reruns: [{ checks: [], why: 'infrastructure', outcome: 'maybe' as 'passed', url: '' }]
      })
    })
    expect(() => parseFailureSummary(bad)).toThrow('classification.reruns[0].outcome')
  })

  it('redacts the CI text in it, keeping the base SHA and the blocked advice (our words)', () => {
    const json = failureSummaryJson(
      summary({
        classification: classification({
          preExisting: [`jest:a ${TOKEN}`],
          baseNote: 'base note hunter2hunter2',
          flaky: [{ check: 'job hunter2hunter2', url: 'https://user:pw@example.com/x' }],
          infrastructure: [{ check: 'build', cause: 'disk hunter2hunter2', url: '' }],
          blocked: { cause: 'runs wait', advice: 'Approve the runs.' }
        })
      }),
      { maskedValues: ['hunter2hunter2'] }
    )
    expect(json).not.toContain(TOKEN)
    expect(json).not.toContain('hunter2hunter2')
    expect(json).not.toContain('user:pw')
    const read = parseFailureSummary(JSON.parse(json)).classification
    expect(read?.baseSha).toBe(PREVIOUS_SHA)
    expect(read?.blocked).toEqual({ cause: 'runs wait', advice: 'Approve the runs.' })
    expect(read?.flaky[0]?.check).toBe('job ***')
  })

  it('is said in the markdown, each with its evidence', () => {
    const markdown = renderFailureSummaryMarkdown(summary({ classification: classification() }))
    expect(markdown).toContain('**Whose failure it is**')
    expect(markdown).toContain(
      `- 🧱 **Pre-existing** (fail on \`main\` at \`${PREVIOUS_SHA.slice(0, 12)}\` too; not in the signature, not this iteration's to fix): \`eslint:no-console:src/legacy.ts\``
    )
    expect(markdown).toContain(
      '- 🎲 **Flaky** (failed, then passed on re-run): [e2e (chrome)](https://github.com/o/r/actions/runs/3/job/4)'
    )
    expect(markdown).toContain(
      "- 🏗️ **Infrastructure** (outside the project's build and tests): [build](https://github.com/o/r/actions/runs/3/job/5) (the runner lost communication with GitHub)"
    )
    expect(markdown).toContain(
      '- 🔁 Re-run of build, e2e (chrome) (infrastructure): passed ([run](https://github.com/o/r/actions/runs/3/attempts/2))'
    )
    expect(markdown.indexOf('**Whose failure it is**')).toBeLessThan(
      markdown.indexOf('**Since attempt')
    )
  })

  it('says when no fix can help, and when there was nothing on the base branch to compare with', () => {
    const markdown = renderFailureSummaryMarkdown(
      summary({
        classification: classification({
          preExisting: [],
          flaky: [],
          infrastructure: [],
          reruns: [],
          baseNote: 'CI never ran on the base branch head',
          blocked: { cause: 'no CI', advice: 'Set `allow-no-checks: true` if there is no CI.' }
        })
      })
    )
    expect(markdown).toContain(
      '- 🚧 **Blocked**, no fix can help: Set `allow-no-checks: true` if there is no CI.'
    )
    expect(markdown).toContain('- ℹ️ Base branch: CI never ran on the base branch head')
    expect(markdown).not.toContain('Pre-existing')
    expect(
      renderFailureSummaryMarkdown(
        summary({
          classification: classification({
            preExisting: [],
            flaky: [],
            infrastructure: [],
            reruns: []
          })
        })
      )
    ).not.toContain('**Whose failure it is**')
  })

  it('keeps hostile text in it inert, and within the bound', () => {
    const hostile = '@octocat #5 <!-- AUTOLOOP:STATUS --> [x](https://evil) | `'
    const markdown = renderFailureSummaryMarkdown(
      summary({
        classification: classification({
          preExisting: [hostile],
          baseBranch: hostile,
          baseNote: hostile,
          flaky: [{ check: hostile, url: 'javascript:alert(1)' }],
          infrastructure: [{ check: hostile, cause: hostile, url: hostile }],
          reruns: [{ checks: [hostile], why: 'flaky-test', outcome: 'failed', url: hostile }]
        })
      }),
      { maxChars: 2_000 }
    )
    expect(markdown.length).toBeLessThanOrEqual(2_000)
    const prose = proseOf(markdown)
    expect(prose).not.toMatch(MENTION)
    expect(prose).not.toMatch(REFERENCE)
    expect(prose).not.toContain('javascript:')
    expect(looseView(markdown)).not.toContain('<!--')
  })
})

describe('whose failure it is, in the bound', () => {
  const linked = (i: number) => ({
    check: `test shard ${i} of 40 (ubuntu-latest, node 20)`,
    url: `https://github.com/o/r/actions/runs/3/job/${i}`
  })
  const long = (count: number) =>
    classification({
      preExisting: Array.from({ length: count }, (_, i) => `eslint:rule-${i}:src/legacy/${i}.ts`),
      flaky: Array.from({ length: count }, (_, i) => linked(i)),
      infrastructure: Array.from({ length: count }, (_, i) => ({
        ...linked(i),
        cause: 'the runner lost communication with GitHub'
      })),
      reruns: Array.from({ length: count }, (_, i) => ({
        checks: [linked(i).check],
        why: 'infrastructure' as const,
        outcome: 'passed' as const,
        url: linked(i).url
      }))
    })

  it('a sharded matrix whose every job lost its runner still fits, and says how much there was', () => {
    for (const maxChars of [1_000, 5_000]) {
      const markdown = renderFailureSummaryMarkdown(summary({ classification: long(40) }), {
        maxChars
      })
      expect(markdown.length).toBeLessThanOrEqual(maxChars)
      expect(markdown).toContain('_Summary cut to fit')
      expect(markdown).toContain(
        '**Whose failure it is:** 40 pre-existing, 40 flaky, 40 infrastructure, 40 re-runs (details in the JSON failure summary).'
      )
    }
    // With room, every entry.
    const roomy = renderFailureSummaryMarkdown(summary({ classification: long(40) }), {
      maxChars: 50_000
    })
    expect(roomy).toContain('[test shard 39 of 40 (ubuntu-latest, node 20)]')
  })

  it('any length of lists stays within any bound', () => {
    fc.assert(
      fc.property(fc.nat(60), fc.integer({ min: 1_000, max: 30_000 }), (count, maxChars) => {
        const markdown = renderFailureSummaryMarkdown(summary({ classification: long(count) }), {
          maxChars
        })
        expect(markdown.length).toBeLessThanOrEqual(maxChars)
      }),
      { numRuns: 60 }
    )
  })
})

describe('diffKeys', () => {
  it.each([
    [
      'no previous attempt: everything is new',
      null,
      ['b', 'a'],
      { fixed: [], new: ['a', 'b'], persisting: [] }
    ],
    [
      'some fixed, some new, some persisting',
      ['a', 'b', 'c'],
      ['c', 'd', 'a'],
      { fixed: ['b'], new: ['d'], persisting: ['a', 'c'] }
    ],
    ['the same keys', ['x', 'y'], ['y', 'x'], { fixed: [], new: [], persisting: ['x', 'y'] }],
    ['all fixed', ['x', 'y'], [], { fixed: ['x', 'y'], new: [], persisting: [] }],
    [
      'duplicates counted once',
      ['a', 'a'],
      ['a', 'b', 'b'],
      { fixed: [], new: ['b'], persisting: ['a'] }
    ],
    [
      'sorted by code units, not locale',
      ['b', 'B'],
      ['a', 'A', 'b', 'B', '_'],
      { fixed: [], new: ['A', '_', 'a'], persisting: ['B', 'b'] }
    ]
  ])('%s', (_what, previous, current, expected) => {
    expect(diffKeys(previous, current)).toEqual(expected)
  })
})

describe('renderFailureSummaryMarkdown', () => {
  it('shows the signature, the changes and each check with its keys and lines', () => {
    const markdown = renderFailureSummaryMarkdown(summary())
    expect(markdown).toContain('`jest:tests/a.test.ts>sum adds; tsc:TS2339:x:src/a.ts`')
    expect(markdown).toContain(`**Since attempt 1** (\`${PREVIOUS_SHA}\``)
    expect(markdown).toContain('1 fixed, 1 new, 1 persisting')
    expect(markdown).toContain('- ✅ Fixed: `eslint:no-unused-vars:src/b.ts`')
    expect(markdown).toContain('- 🆕 New: `tsc:TS2339:x:src/a.ts`')
    expect(markdown).toContain('- 🔁 Persisting: `jest:tests/a.test.ts>sum adds`')
    expect(markdown).toContain(
      '#### 1. [test (ubuntu-latest)](https://github.com/o/r/actions/runs/1/job/2) — `failure`'
    )
    expect(markdown).toContain('#### 2. [typecheck](')
    expect(markdown).toContain('log cut short')
    expect(markdown).toContain('_Note:_ annotations only')
    const fenced = markdown.slice(markdown.indexOf('```\n● sum'))
    expect(parseFence(fenced).content).toBe('● sum › adds\nExpected: 3\nReceived: 4')
  })

  it('keeps hostile check names, URLs, keys and lines inert', () => {
    const hostile = summary({
      program: 'perf',
      signature: { keys: ['k`` @x'], full: 'k`` @x', short: 'k`` @x' },
      checks: [
        check({
          name: '@org/team | Paused | true | #1 <!-- AUTOLOOP:STATUS --> [x](https://evil)',
          url: 'javascript:alert(1)',
          keys: ['jest:a>b `code` @user #2', '<img src=x>'],
          firstErrorLines: [
            '```',
            '@octocat please look at #3',
            '~~~',
            '<!-- AUTOLOOP:STATUS -->',
            `token ${TOKEN}`,
            '``````````'
          ],
          note: 'cc @admin, see GH-4 <b>bold</b>'
        }),
        check({ name: 'creds', url: 'https://user:pw@example.com/x' }),
        check({ name: 'paren', url: 'https://example.com/a_(b)' })
      ]
    })
    const markdown = renderFailureSummaryMarkdown(hostile)
    const prose = proseOf(markdown)
    expect(prose).not.toMatch(MENTION)
    expect(prose).not.toMatch(REFERENCE)
    expect(prose).not.toContain('<')
    expect(prose).not.toContain('javascript:')
    expect(markdown).toContain('\\[x\\](https://evil)')
    expect(looseView(markdown)).not.toContain('<!--')
    expect(looseView(markdown)).not.toMatch(/autoloop:/)
    expect(markdown).not.toContain(TOKEN)
    expect(markdown).not.toContain('user:pw')
    expect(markdown).toContain('#### 1. @\u200Dorg/team \\| Paused \\| true \\| #\u200D1')
    expect(markdown).toContain('#### 3. [paren](https://example.com/a_%28b%29)')
    expect(markdown).toContain('_Link not shown: not a plain http(s) URL._')
    // The error lines stay in their fence, whatever runs of backticks they hold.
    const fenced = markdown.slice(
      markdown.indexOf('First error lines:') + 'First error lines:\n\n'.length
    )
    expect(parseFence(fenced).content).toBe(
      '```\n@octocat please look at #3\n~~~\n \ntoken ***\n``````````'
    )
  })

  it('redacts masked values everywhere it shows CI text', () => {
    const markdown = renderFailureSummaryMarkdown(
      summary({
        checks: [check({ name: 'job s3cr3t-value', firstErrorLines: ['pw s3cr3t-value'] })]
      }),
      { maskedValues: ['s3cr3t-value'] }
    )
    expect(markdown).not.toContain('s3cr3t-value')
    expect(markdown).toContain('job ***')
  })

  it('says when there were no failing checks or no previous attempt', () => {
    const markdown = renderFailureSummaryMarkdown(
      summary({ checks: [], changes: undefined, previous: undefined })
    )
    expect(markdown).toContain('_No failing check details were found._')
    expect(markdown).not.toContain('Since')
  })

  it('returns the whole summary when it fits', () => {
    const small = summary({ checks: ['a', 'b', 'c'].map((name) => check({ name })) })
    const whole = renderFailureSummaryMarkdown(small)
    expect(whole.length).toBeGreaterThan(1001)
    expect(whole).not.toContain('Summary cut')
    expect(renderFailureSummaryMarkdown(small, { maxChars: whole.length })).toBe(whole)
    const cut = renderFailureSummaryMarkdown(small, { maxChars: whole.length - 1 })
    expect(cut).toContain('Summary cut')
    expect(cut.length).toBeLessThan(whole.length)
  })

  describe('the bound', () => {
    const many = summary({
      checks: Array.from({ length: 60 }, (_, i) =>
        check({
          name: `job ${i + 1}`,
          keys: Array.from(
            { length: 30 },
            (_, k) => `jest:tests/t${i}.test.ts>case ${k} ${'x'.repeat(40)}`
          ),
          firstErrorLines: Array.from({ length: 50 }, (_, l) => `line ${l} ${'y'.repeat(40)}`)
        })
      ),
      changes: {
        fixed: Array.from({ length: 500 }, (_, k) => `fixed key ${k}`),
        new: [],
        persisting: []
      }
    })

    it.each([20_000, 5_000, 1_000])(
      'stays within %i characters and says what was cut',
      (maxChars) => {
        const markdown = renderFailureSummaryMarkdown(many, { maxChars })
        expect(markdown.length).toBeLessThanOrEqual(maxChars)
        expect(markdown).toContain(`_Summary cut to fit ${maxChars} characters`)
        expect(() => proseOf(markdown)).not.toThrow()
        const headings = markdown.match(/^#### \d+\. /gm) ?? []
        const withoutDetails = Number(
          /(\d+) checks? shown without details/.exec(markdown)?.[1] ?? 0
        )
        const notShown = Number(/(\d+) checks? not shown/.exec(markdown)?.[1] ?? 0)
        expect(headings.length + notShown).toBe(60)
        expect(withoutDetails).toBeLessThanOrEqual(headings.length)
      }
    )

    it('shows the first checks in full before cutting later ones', () => {
      const markdown = renderFailureSummaryMarkdown(many)
      expect(markdown).toContain('#### 1. [job 1]')
      expect(markdown).toContain('line 0 ')
      expect(markdown).toContain('… (30 more lines)')
      expect(markdown).toMatch(/\+\d+ more/)
      expect(markdown).toContain('checks shown without details')
    })

    it('bounds a single huge error line', () => {
      const huge = summary({ checks: [check({ firstErrorLines: ['z'.repeat(1 << 20)] })] })
      const markdown = renderFailureSummaryMarkdown(huge)
      expect(markdown.length).toBeLessThan(20_000)
      expect(markdown).toContain(`${'z'.repeat(1999)}…`)
    })

    it('rejects a bound too small for the header', () => {
      expect(() => renderFailureSummaryMarkdown(many, { maxChars: 999 })).toThrow(
        'maxChars must be a whole number of at least 1000, got 999'
      )
    })
  })
})

describe('linkTarget', () => {
  it.each([
    ['an https URL', 'https://github.com/o/r/runs/1', 'https://github.com/o/r/runs/1'],
    ['an http URL', 'http://ci.example/job?id=1', 'http://ci.example/job?id=1'],
    ['a space, percent-encoded', 'https://example.com/a b', 'https://example.com/a%20b'],
    ['parentheses, percent-encoded', 'https://example.com/(x)', 'https://example.com/%28x%29'],
    [
      'a pipe, percent-encoded (it would end a table cell)',
      'https://example.com/a|b',
      'https://example.com/a%7Cb'
    ],
    [
      'a line break, dropped by the URL parser',
      'https://example.com/a\nb',
      'https://example.com/ab'
    ],
    ['a javascript: URL', 'javascript:alert(1)', null],
    ['a data: URL', 'data:text/html,hi', null],
    ['an ftp: URL', 'ftp://example.com/x', null],
    ['a relative path', '/relative/path', null],
    ['credentials', 'https://user:pw@example.com/', null],
    ['a token in the query', `https://example.com/?t=${TOKEN}`, null],
    ['surrounding spaces', ' https://example.com/', null],
    ['nothing', '', null],
    ['more than 2 000 characters', `https://example.com/${'a'.repeat(3000)}`, null]
  ])('links %s as %j', (_what, url, expected) => {
    expect(linkTarget(url)).toBe(expected)
  })

  it('refuses a URL holding a masked value', () => {
    expect(linkTarget('https://example.com/s3cr3t-value', { maskedValues: ['s3cr3t-value'] })).toBe(
      null
    )
  })
})

describe('renderFailureSummaryMarkdown on random hostile summaries', () => {
  const hostile = fc.string({
    unit: fc.constantFrom(...'@#1a |`~<>&;[]\n:'.split(''), '<!--', '-->', 'AUTOLOOP:', '```'),
    maxLength: 300
  })
  const failingCheck = fc.record({
    name: hostile,
    conclusion: hostile,
    url: fc.oneof(hostile, fc.constant('https://github.com/o/r/runs/1')),
    source: fc.constantFrom('annotations', 'output', 'log', 'status', 'none' as const),
    keys: fc.array(hostile, { maxLength: 40 }),
    firstErrorLines: fc.array(hostile, { maxLength: 40 }),
    note: hostile
  })

  it('stays bounded, keeps every fence closed and mentions nobody', () => {
    fc.assert(
      fc.property(
        fc.array(failingCheck, { maxLength: 12 }),
        fc.array(hostile, { maxLength: 30 }),
        hostile,
        fc.integer({ min: 1_000, max: 8_000 }),
        (checks, keys, signature, maxChars) => {
          const markdown = renderFailureSummaryMarkdown(
            summary({
              program: signature.slice(0, 100),
              signature: { keys, full: signature, short: signature.slice(0, 160) },
              checks,
              changes: diffKeys(keys.slice(0, 10), keys.slice(5)),
              previous: { sha: PREVIOUS_SHA, attempt: 1, signature }
            }),
            { maxChars }
          )
          expect(markdown.length).toBeLessThanOrEqual(maxChars)
          const prose = proseOf(markdown)
          expect(prose).not.toMatch(MENTION)
          expect(prose).not.toMatch(REFERENCE)
          expect(prose).not.toContain('<')
          expect(looseView(markdown)).not.toContain('<!--')
          expect(looseView(markdown)).not.toMatch(/autoloop:/)
        }
      ),
      { numRuns: 200 }
    )
  })
})
