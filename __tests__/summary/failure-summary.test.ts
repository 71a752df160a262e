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
  renderFailureSummaryMarkdown
} from '../../src/summary/failure-summary.js'
import { looseView, MENTION, parseFence, proseOf, REFERENCE } from '../text/markdown-checks.js'

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
    version: 1,
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
      version: 1,
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
    expect(json).toContain('\n  "version": 1,\n')
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
    expect(() => parseFailureSummary({ ...summary(), version: 2 })).toThrow(
      'Unsupported failure summary version 2: this build reads version 1'
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
