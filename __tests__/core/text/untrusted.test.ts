import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import {
  fence,
  forLog,
  inlineCode,
  neutralise,
  normaliseText,
  oneLine,
  redactSecrets,
  removeHtmlComments,
  tableCell
} from '../../../src/core/text/untrusted.js'
import {
  looseView,
  MENTION,
  parseFence,
  REFERENCE,
  unescaped
} from '../../render/markdown-checks.js'

const ZWJ = '\u200D'

// Token-shaped samples are assembled at run time so this file holds no string that a secret
// scanner would take for a real credential.
const BODY = 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'
const join = (...parts: string[]): string => parts.join('')
const SAMPLES = {
  githubClassic: join('gh', 'p_', BODY),
  githubOauth: join('gh', 'o_', BODY),
  githubUser: join('gh', 'u_', BODY),
  githubServer: join('gh', 's_', BODY),
  githubRefresh: join('gh', 'r_', BODY),
  githubFineGrained: join('github', '_pat_', '11ABCDEFG0', '_', BODY, BODY),
  awsKeyId: join('AK', 'IA', 'IOSFODNN7EXAMPLE'),
  awsTemporaryKeyId: join('AS', 'IA', 'IOSFODNN7EXAMPLE'),
  awsSecret: join('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCYEXAMPLEKEY'),
  npm: join('np', 'm_', BODY),
  slack: join('xo', 'xb-', '123456789012-1234567890123-', 'AbCdEfGhIjKlMnOpQrStUvWx'),
  jwt: join(
    'ey',
    'JhbGciOiJIUzI1NiJ9',
    '.',
    'ey',
    'JzdWIiOiIxMjM0NTY3ODkwIn0',
    '.',
    'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'
  )
}
const PEM = [
  join('-----BEGIN', ' RSA PRIVATE KEY-----'),
  'MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB',
  'aFDrBz9vFqU4yQ4Ad8hxbmh1Wr6x0yjCFj8kFz1Qp5FfTt1qHhQ3U0sBC+7VwCkK',
  join('-----END', ' RSA PRIVATE KEY-----')
].join('\n')

describe('redactSecrets', () => {
  it.each(Object.entries(SAMPLES).filter(([kind]) => kind !== 'awsSecret'))(
    'masks a bare %s token',
    (_kind, token) => {
      expect(redactSecrets(`before ${token} after`)).toBe('before *** after')
    }
  )

  it.each([
    [
      'an AWS secret in env form',
      `AWS_SECRET_ACCESS_KEY=${SAMPLES.awsSecret}`,
      'AWS_SECRET_ACCESS_KEY=***'
    ],
    [
      'an AWS secret in ini form',
      `aws_secret_access_key = ${SAMPLES.awsSecret}`,
      'aws_secret_access_key = ***'
    ],
    [
      'an AWS secret in JSON',
      `{"SecretAccessKey": "${SAMPLES.awsSecret}"}`,
      '{"SecretAccessKey": "***"}'
    ],
    [
      'a token authorization header',
      'Authorization: token abc123def456',
      'Authorization: token ***'
    ],
    [
      'a bearer header in curl',
      'curl -H "Authorization: Bearer abc.def-ghi_jkl" https://api',
      'curl -H "Authorization: Bearer ***" https://api'
    ],
    ['a basic header', 'authorization: Basic dXNlcjpwYXNzd29yZA==', 'authorization: Basic ***'],
    ['a bare bearer token', 'sent Bearer abcdefghijklmnop=', 'sent Bearer ***'],
    [
      'user and password in a URL',
      'fetch https://user:p4ss@example.com/x failed',
      'fetch https://***@example.com/x failed'
    ],
    [
      'a token in a git remote URL',
      'git clone https://x-access-token:abc123@github.com/o/r.git',
      'git clone https://***@github.com/o/r.git'
    ],
    ['a token as URL user', 'https://abcdef123456@github.com/o/r', 'https://***@github.com/o/r'],
    ['an .npmrc auth token', '//host/:_authToken=abcdef123456', '//host/:_authToken=***'],
    ['a PEM private key block', `key:\n${PEM}\nafter`, 'key:\n***\nafter'],
    [
      'two PEM blocks',
      `${PEM}\nbetween\n${PEM.replaceAll('RSA ', 'OPENSSH ')}`,
      '***\nbetween\n***'
    ],
    [
      'an unterminated PEM block (key material to the end)',
      `x ${PEM.split('\n').slice(0, 3).join('\n')}\nmore`,
      'x ***'
    ],
    ['a PEM block with escaped newlines', `"${PEM.replaceAll('\n', '\\n')}"`, '"***"']
  ])('masks %s', (_what, input, expected) => {
    expect(redactSecrets(input)).toBe(expected)
  })

  it.each([
    ['a commit SHA', 'head 0123456789abcdef0123456789abcdef01234567 red'],
    ['a short token-like prefix', 'ghp_short and npm_config_cache'],
    ['an access-key-like word', 'XAKIAIOSFODNN7EXAMPLEX'],
    ['the word Bearer alone', 'Bearer auth failed'],
    ['an SSH remote', 'git@github.com:o/r.git'],
    ['an @ in a URL path', 'https://example.com/a@b'],
    ['a URL without credentials', 'https://github.com/o/r/actions/runs/1']
  ])('leaves %s alone', (_what, input) => {
    expect(redactSecrets(input)).toBe(input)
  })

  it('masks every masked value, longest first, with regex characters taken literally', () => {
    const masked = ['secret-value', 'secret-value-longer', 'a.b*c(d)[e]+f']
    expect(redactSecrets('x secret-value-longer y secret-value z a.b*c(d)[e]+f', masked)).toBe(
      'x *** y *** z ***'
    )
    expect(redactSecrets('aXbbc(d)[e]+f', masked)).toBe('aXbbc(d)[e]+f')
  })

  it('masks multi-line masked values line by line and ignores very short ones', () => {
    const masked = ['first-line-secret\nsecond-line-secret', 'abc', 'true', '']
    expect(redactSecrets('a first-line-secret b second-line-secret c abc true', masked)).toBe(
      'a *** b *** c abc true'
    )
  })
})

describe('normaliseText', () => {
  it('drops ANSI escapes, control and invisible characters and unifies line ends', () => {
    expect(normaliseText('\x1b[31mred\x1b[0m a\u200Bb\u202Ec\r\nd\re\u2028f\x07g')).toBe(
      'red abc\nd\ne\nfg'
    )
  })

  it('shows a token hidden by zero-width characters so that it can be redacted', () => {
    const split = SAMPLES.githubClassic.slice(0, 6) + '\u200B' + SAMPLES.githubClassic.slice(6)
    expect(redactSecrets(split)).toContain('\u200B')
    expect(neutralise(`t ${split}`)).toBe('t ***')
  })
})

const FORGED_SENTINELS = [
  '<!-- AUTOLOOP:STATUS -->',
  '<!--AUTOLOOP:STATUS-->',
  '<!-- autoloop:status -->',
  '<!-- AUTO\u200BLOOP:STATUS -->',
  '<\u200B!-- AUTOLOOP:STATUS -->',
  '<!<!-- x -->-- AUTOLOOP:STATUS -->',
  '<!-- a <!-- AUTOLOOP:STATUS --> b -->',
  'AUTOLOOP:STATUS -->',
  'AUTOAUTOLOOP:LOOP:STATUS',
  'AUTOLOOP<!-- -->:STATUS',
  '<!-- autoloop-ci-gate:state v1 -->',
  'text <!-- AUTOLOOP:STATUS'
]

describe('HTML comments and markers', () => {
  it.each([
    ['a comment', 'a <!-- hidden --> b', 'a   b'],
    ['an unterminated comment (to the end)', 'a <!-- hidden\nstill hidden', 'a  '],
    ['an abruptly closed comment', 'a<!-->b<!--->c', 'a b c'],
    ['nested comments (HTML ends at the first -->)', 'a <!-- 1 <!-- 2 --> 3 --> b', 'a   3 --> b']
  ])('removes %s', (_what, input, expected) => {
    expect(removeHtmlComments(input)).toBe(expected)
  })

  it.each(FORGED_SENTINELS)('no formatter lets the forged sentinel %j through', (forged) => {
    const outputs = [
      neutralise(`x ${forged} y`),
      oneLine(`x ${forged} y`, 500),
      tableCell(`x ${forged} y`, 500),
      inlineCode(`x ${forged} y`, 500),
      fence(`x\n${forged}\ny`)
    ]
    for (const output of outputs) {
      expect(looseView(output)).not.toContain('<!--')
      expect(looseView(output)).not.toMatch(/autoloop(-ci-gate)?:/)
    }
  })
})

describe('neutralise', () => {
  it.each([
    ['a user mention', 'ping @octocat', `ping @${ZWJ}octocat`],
    ['a team mention', 'cc @org/team', `cc @${ZWJ}org/team`],
    ['an issue reference', 'see #12', `see #${ZWJ}12`],
    ['a cross-repository reference', 'o/r#3', `o/r#${ZWJ}3`],
    ['a GH- reference', 'GH-4 and gh-5', `GH${ZWJ}-4 and gh${ZWJ}-5`],
    ['a reference at the start of a line', '#1 failed', `\\#${ZWJ}1 failed`],
    ['raw HTML', '<img src=x onerror=alert(1)>', '&lt;img src=x onerror=alert(1)>'],
    ['an entity that would decode into a mention', '&#64;octocat', `&amp;#${ZWJ}64;octocat`],
    ['a plain ampersand', 'a & b && c', 'a & b && c'],
    ['a link', '[click](https://evil.example)', '\\[click\\](https://evil.example)'],
    ['an image', '![x](https://evil.example/p.png)', '!\\[x\\](https://evil.example/p.png)'],
    ['a code span', 'a `b` c', 'a \\`b\\` c'],
    ['a backslash', 'C:\\path\\', 'C:\\\\path\\\\'],
    ['a heading', '# Paused', '\\# Paused'],
    [
      'a quote and list items',
      '> q\n- a\n  + b\n1. c\n10) d',
      '\\> q\n\\- a\n  \\+ b\n1\\. c\n10\\) d'
    ],
    ['a thematic break', '***\n___', '\\***\n\\___'],
    ['a tilde fence', '~~~\ncode', '\\~~~\ncode'],
    ['a table row', '| Paused | false |', '\\| Paused \\| false \\|']
  ])('breaks %s', (_what, input, expected) => {
    expect(neutralise(input)).toBe(expected)
  })

  it('leaves no mention, reference, tag, link or table syntax in hostile text', () => {
    const hostile = [
      '@octocat @org/team @@x @1 user@example.com',
      '#1 o/r#2 GH-3 gh-4 &#35;5 &#x23;6',
      '<script>alert(1)</script> <details open>',
      '| Field | Value |',
      '|---|---|',
      '| Paused | false |',
      '```',
      '````js',
      '[a](b) ![c](d) <https://autolink>'
    ].join('\n')
    const output = neutralise(hostile)
    expect(output).not.toMatch(MENTION)
    expect(output).not.toMatch(REFERENCE)
    expect(output).not.toContain('<')
    expect(unescaped(output, '|')).toEqual([])
    expect(unescaped(output, '[')).toEqual([])
    expect(unescaped(output, '`')).toEqual([])
    expect(output).not.toMatch(/&#/)
  })

  it('redacts with the masked values it is given', () => {
    expect(neutralise('pw: hunter2hunter2', { maskedValues: ['hunter2hunter2'] })).toBe('pw: ***')
  })
})

describe('oneLine and tableCell', () => {
  it('makes one line, escapes pipes, and bounds with an ellipsis', () => {
    expect(oneLine('a\n\n b\t| c', 100)).toBe('a b \\| c')
    const cut = oneLine('x'.repeat(50), 10)
    expect(cut).toBe(`${'x'.repeat(9)}…`)
  })

  it('never cuts inside an escape, a joiner or a surrogate pair', () => {
    expect(oneLine('ab[[[[', 5)).toBe('ab\\[…')
    expect(oneLine('ab@cd', 4)).toBe('ab…')
    expect(oneLine('ab@cd', 5)).toBe(`ab@${ZWJ}…`)
    expect(oneLine('a😀😀', 4)).toBe('a😀…')
    expect(oneLine('a😀😀', 3)).toBe('a…')
  })

  it('keeps a forged Machine State row out of a state-file table', () => {
    const forged = 'x | Paused | true |\n| Pause Reason | none |'
    const cell = tableCell(forged, 200)
    expect(cell).not.toContain('|')
    expect(cell).not.toContain('\n')
    const table = `| Field | Value |\n|---|---|\n| Pause Reason | ${cell} |\n`
    // Read the table as the autoloop scheduler does: every `| a | b |` run is a row.
    const rows = [...table.matchAll(/\|\s*([^|\n]*?)\s*\|\s*([^|\n]*?)\s*\|/g)].map((m) => m[1])
    expect(rows).toEqual(['Field', '---', 'Pause Reason'])
  })

  it('neutralises a table cell and keeps it within the bound', () => {
    const cell = tableCell('@octocat broke #1 <b>', 100)
    expect(cell).not.toMatch(MENTION)
    expect(cell).not.toMatch(REFERENCE)
    expect(cell).not.toContain('<')
    expect(tableCell('|'.repeat(100), 20)).toBe(`${'¦'.repeat(19)}…`)
  })

  it('rejects a bound below one', () => {
    expect(() => oneLine('x', 0)).toThrow('max must be a whole number of at least 1, got 0')
  })
})

describe('inlineCode', () => {
  it('wraps text in a code span that backticks inside cannot close', () => {
    expect(inlineCode('a `` b', 100)).toBe('```a `` b```')
    expect(inlineCode('`x`', 100)).toBe('`` `x` ``')
    expect(inlineCode('plain\nkey', 100)).toBe('`plain key`')
    expect(inlineCode('', 100)).toBe('(empty)')
  })

  it('bounds the content and redacts it', () => {
    expect(inlineCode('abcdefghij', 5)).toBe('`abcd…`')
    expect(inlineCode(`token ${SAMPLES.githubClassic}`, 100)).toBe('`token ***`')
  })
})

describe('fence', () => {
  it.each([
    ['a triple backtick line', 'a\n```\nb'],
    ['a longer backtick run', 'a\n``````````\nb'],
    ['an indented closing attempt', 'a\n   ````\nb'],
    ['a tilde fence', 'a\n~~~\nb\n~~~~~'],
    ['backticks with trailing spaces', 'a\n```   \nb'],
    ['a run at the very end', 'a ````']
  ])('keeps %s inside the block', (_what, input) => {
    const parsed = parseFence(fence(input))
    expect(parsed.content).toBe(input)
    expect(parsed.after).toBe('')
  })

  it('keeps mentions verbatim but removes sentinels and comments and redacts', () => {
    const parsed = parseFence(
      fence(`@octocat #1\n<!-- AUTOLOOP:STATUS -->\n${SAMPLES.npm}`, {
        maskedValues: ['masked-secret']
      })
    )
    expect(parsed.content).toBe('@octocat #1\n \n***')
  })

  it('bounds lines and says how many were left out', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`)
    const parsed = parseFence(fence(lines.join('\n'), { maxLines: 10 }))
    expect(parsed.content).toBe(lines.slice(0, 10).join('\n'))
    expect(parsed.after).toBe('… (90 more lines)')
    expect(parseFence(fence('a\nb', { maxLines: 1 })).after).toBe('… (1 more line)')
  })

  it('bounds characters: a long line is cut with an ellipsis', () => {
    const parsed = parseFence(fence(`short\n${'x'.repeat(100)}\nnext`, { maxChars: 20 }))
    expect(parsed.content).toBe(`short\n${'x'.repeat(13)}…`)
    expect(parsed.after).toBe('… (1 more line)')
  })

  it('redacts before bounding, so a cut never leaves part of a secret', () => {
    const token = SAMPLES.githubClassic
    const output = fence(`${'x'.repeat(15)}${token}`, { maxChars: 25 })
    expect(output).not.toContain(token.slice(0, 6))
    expect(parseFence(output).content).toBe(`${'x'.repeat(15)}***`)
  })

  it('renders empty text as an empty block and drops trailing blank lines', () => {
    expect(fence('')).toBe('```\n```')
    expect(fence('a\n\n\n')).toBe('```\na\n```')
  })
})

describe('forLog', () => {
  it('stops CI text from issuing workflow commands and redacts it', () => {
    const output = forLog(
      `::add-mask::x\n  ::set-output name=a::b\nline ##[error]boom ${SAMPLES.slack}`
    )
    expect(output.split('\n').some((line) => line.trim().startsWith('::'))).toBe(false)
    expect(output).not.toContain('##[')
    expect(output).toContain('***')
    expect(output).toContain('add-mask::x')
  })
})

// Linear time: each case is a 1 MB line built to trip a backtracking pattern (long runs that
// a pattern could re-scan from every position, or many starts with no end). Only the outputs
// are checked here; the timings are measured outside the tests (under 0.5 s per call on 1 MB,
// growing linearly to 4 MB, on a 2-core machine).
describe('linear time on 1 MB adversarial lines', () => {
  const MB = 1 << 20
  const repeat = (unit: string): string => unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB)

  it('redacts correctly', () => {
    expect(redactSecrets(repeat(join('-----BEGIN', ' RSA PRIVATE KEY-----')))).toBe('***')
    expect(redactSecrets(`x ${join('gh', 'p_')}${repeat('a')}`)).toBe('x ***')
    expect(redactSecrets(`x ${join('github', '_pat_')}${repeat('github_pat_')}`)).toBe('x ***')
    for (const unit of ['a', 'a.', 'https://a:', 'eyJ', 'Bearer ', 'authorization ', ' ']) {
      const text = repeat(unit)
      expect(redactSecrets(text, ['aaaaaaab'])).toBe(text)
    }
    expect(redactSecrets(repeat('aws_secret_access_key= '))).toBe(repeat('aws_secret_access_key= '))
  })

  it('neutralises correctly', () => {
    expect(neutralise(repeat('<!--'))).toBe(' ')
    expect(neutralise(repeat('@'))).toBe(repeat('@').replaceAll('@', `@${ZWJ}`))
    // The first `#` also starts the line, so it is escaped as a heading marker too.
    expect(neutralise(repeat('#1'))).toBe(`\\${repeat('#1').replaceAll('#', `#${ZWJ}`)}`)
    const markers = neutralise(repeat('AUTO') + repeat('LOOP:'))
    expect(looseView(markers)).not.toContain('autoloop:')
    expect(neutralise(repeat('\u200B'))).toBe('')
  })

  it('bounds one-line forms correctly', () => {
    expect(oneLine(`${repeat(' ')}x`, 10)).toBe('x')
    expect(oneLine(repeat('[a]'), 7)).toBe('\\[a\\]…')
    expect(tableCell(repeat('|\n'), 5)).toBe('¦ ¦ …')
    expect(inlineCode(repeat('`'), 10)).toBe(
      `${'`'.repeat(10)} ${'`'.repeat(9)}… ${'`'.repeat(10)}`
    )
  })

  it('fences correctly', () => {
    const parsed = parseFence(fence(repeat('`'), { maxChars: 100 }))
    expect(parsed.content).toBe(`${'`'.repeat(99)}…`)
    expect(parsed.delimiter).toBe('`'.repeat(100))
    const lines = parseFence(fence(repeat('ab\n'), { maxLines: 3 }))
    expect(lines.content).toBe('ab\nab\nab')
  })
})

describe('properties on hostile alphabets', () => {
  // Strings over the characters that matter to markdown, mentions, references, comments and
  // markers, so that random combinations hit the interesting cases often.
  const hostile = fc.string({
    unit: fc.constantFrom(
      ...'@#1aG H-|`~<>!&;[]\\\n:AUTOLOP*_='.split(''),
      '\u200B',
      '\u202E',
      '<!--',
      '-->',
      'AUTOLOOP:',
      'GH-',
      '```',
      '😀'
    ),
    maxLength: 120
  })

  it('neutralise leaves no mention, reference, tag, comment, marker or table syntax', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const output = neutralise(text)
        expect(output).not.toMatch(MENTION)
        expect(output).not.toMatch(REFERENCE)
        expect(output).not.toContain('<')
        expect(looseView(output)).not.toMatch(/autoloop(-ci-gate)?:/)
        expect(unescaped(output, '|')).toEqual([])
        expect(unescaped(output, '[')).toEqual([])
        expect(unescaped(output, '`')).toEqual([])
      })
    )
  })

  it('tableCell is one bounded line without a pipe', () => {
    fc.assert(
      fc.property(hostile, fc.integer({ min: 1, max: 60 }), (text, max) => {
        const cell = tableCell(text, max)
        expect(cell.length).toBeLessThanOrEqual(max)
        expect(cell).not.toMatch(/[|\n]/)
        expect(cell).not.toMatch(MENTION)
        expect(cell).not.toMatch(REFERENCE)
        expect(cell).not.toMatch(/(^|[^\\])(\\\\)*\\…$/)
      })
    )
  })

  it('fence always closes after its content, with at most the lines asked for', () => {
    fc.assert(
      fc.property(hostile, fc.integer({ min: 1, max: 5 }), (text, maxLines) => {
        const parsed = parseFence(fence(text, { maxLines, maxChars: 80 }))
        expect(parsed.after).toMatch(/^(|… \(\d+ more lines?\))$/)
        expect(parsed.content === '' ? 0 : parsed.content.split('\n').length).toBeLessThanOrEqual(
          maxLines
        )
        expect(looseView(parsed.content)).not.toContain('<!--')
      })
    )
  })

  it('inlineCode is one code span that nothing inside closes early', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const span = inlineCode(text, 50)
        if (span === '(empty)') return
        const delimiter = /^`+/.exec(span)?.[0] ?? ''
        expect(span.endsWith(delimiter)).toBe(true)
        const inner = span.slice(delimiter.length, span.length - delimiter.length)
        const runs = inner.match(/`+/g) ?? []
        expect(runs.every((run) => run.length !== delimiter.length)).toBe(true)
        expect(span).not.toContain('\n')
      })
    )
  })
})
