import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { PassThrough } from 'node:stream'
import { DETAIL_LIMITS, FailureDetails } from '../../../src/core/signature/details.js'
import { extractFailuresFromString } from '../../../src/core/signature/extract.js'
import { renderFailureDetails } from '../../../src/render/failure-details.js'
import {
  renderFailureSummaryMarkdown,
  type FailureSummary
} from '../../../src/render/failure-summary.js'
import { runBriefCommand } from '../../../src/cli/brief.js'
import { jestFailureBlocks, readCorpusFile } from './corpus.js'

const ROOT = resolve(import.meta.dirname, '../../..')
const CORPUS = join(ROOT, '__fixtures__/corpus')
const manifest = JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as {
  classes: { id: string; files: string[] }[]
}
const facts = (
  JSON.parse(readFileSync(join(ROOT, 'scripts/bench/details-facts.json'), 'utf8')) as {
    classes: Record<string, Record<string, string[]>>
  }
).classes
const collapse = (text: string): string => text.replace(/\s+/g, ' ')

describe('failure details on real tool output (the corpus job logs)', () => {
  // The classes annotated in details-facts.json that have a job log.
  const cases = manifest.classes
    .map((c) => [c.id, c.files.find((f) => f.endsWith('job-log.log'))] as const)
    .filter((c): c is readonly [string, string] => c[1] !== undefined && facts[c[0]] !== undefined)
  it('covers the 71 classes annotated when failure details were built and the 20 of the tools added since', () => {
    expect(cases.length).toBeGreaterThanOrEqual(91)
  })
  it.each(cases)('%s: every annotated fact is in the findings’ details', (id, file) => {
    const result = extractFailuresFromString(readCorpusFile(file))
    const text = collapse(result.findings.flatMap((f) => f.details ?? []).join('\n'))
    for (const fact of Object.values(facts[id] ?? {}).flat()) expect(text).toContain(collapse(fact))
    // The checkout root is removed; no runtime frame is kept.
    expect(text).not.toContain('/home/runner/work/app/app/')
    expect(text).not.toMatch(/node:internal|\/usr\/lib\/go-/)
  })
})

describe("failure details of the corpus job logs moved to a self-hosted runner's checkout", () => {
  const cases = manifest.classes
    .map((c) => [c.id, c.files.find((f) => f.endsWith('job-log.log'))] as const)
    .filter((c): c is readonly [string, string] => c[1] !== undefined && facts[c[0]] !== undefined)
  it.each(cases)('%s: the same keys and facts, the runner folder removed', (id, file) => {
    const original = readCorpusFile(file)
    const moved = original.replaceAll(
      '/home/runner/work/app/app',
      '/home/ci/actions-runner/_work/app/app'
    )
    const result = extractFailuresFromString(moved)
    expect(result.findings.map((f) => f.key)).toEqual(
      extractFailuresFromString(original).findings.map((f) => f.key)
    )
    const text = collapse(result.findings.flatMap((f) => f.details ?? []).join('\n'))
    for (const fact of Object.values(facts[id] ?? {}).flat()) expect(text).toContain(collapse(fact))
    expect(text).not.toContain('/_work/app/app/')
  })
})

describe('failure details of a copy that lost the lines around the failures (real output cut)', () => {
  const detailsOf = (text: string): string =>
    collapse(
      extractFailuresFromString(text)
        .findings.flatMap((f) => f.details ?? [])
        .join('\n')
    )
  it.each(['jest/assertion', 'jest/type-error'])(
    '%s: failure blocks without their FAIL line or summary keep their details',
    (id) => {
      const blocks = jestFailureBlocks(readCorpusFile(`${id}/workers.txt`))
      const text = detailsOf(blocks)
      for (const fact of Object.values(facts[id] ?? {}).flat())
        expect(text).toContain(collapse(fact))
    }
  )
  it("pytest: the FAILURES report alone (no summary) keeps each section's details", () => {
    const report = readCorpusFile('pytest/param-assertion/default.txt')
      .split('\n')
      .filter((line) => !/^FAILED |short test summary|\d+ failed/.test(line))
      .join('\n')
    const result = extractFailuresFromString(report)
    expect(result.findings.map((f) => f.key)).toEqual([
      'pytest:tests/test_vat.py::test_price_with_vat[19.99-standard-23.98]'
    ])
    const text = detailsOf(report)
    for (const fact of Object.values(facts['pytest/param-assertion'] ?? {}).flat())
      expect(text).toContain(collapse(fact))
  })
  it("bun: a passed test's output before a failure is not the failure's", () => {
    const log = readCorpusFile('bun/thrown/job-log.log')
    const [finding] = extractFailuresFromString(log).findings
    expect(finding?.details?.some((line) => line.includes('(pass)'))).toBe(false)
    expect(finding?.details?.some((line) => line.startsWith('::error'))).toBe(false)
    expect(finding?.details?.[0]).toMatch(/^1 \| export function total/)
  })
})

describe('renderFailureDetails: one budget', () => {
  const details = Array.from({ length: 300 }, (_, i) => ({
    check: 'test',
    key: `jest:tests/t${i}.test.ts>fails`,
    lines: [`    Expected: ${i}`, `    Received: ${i + 1}`, `      at (tests/t${i}.test.ts:10:29)`]
  }))
  it.each([400, 2_000, 30_720])(
    'stays within %s bytes with 300 failures, first ones whole',
    (max) => {
      const lines = renderFailureDetails(details, max)
      expect(Buffer.byteLength(lines.join('\n'))).toBeLessThanOrEqual(max)
      const text = lines.join('\n')
      expect(text).toContain('Expected: 0')
      expect(text).toContain('tests/t0.test.ts:10:29')
      expect(text).toMatch(/more failures without details/)
    }
  )
  it('cuts a failure that does not fit at a line boundary', () => {
    const long = [
      { check: 'test', key: 'k', lines: Array.from({ length: 40 }, (_, i) => `line ${i}`) }
    ]
    const text = renderFailureDetails(long, 300).join('\n')
    expect(text).toContain('line 0')
    expect(text).not.toContain('line 39')
    expect(text).toMatch(/more lines\)/)
  })
})

describe('renderFailureDetails: how many failures each check had', () => {
  const detail = (check: string, i: number) => ({
    check,
    key: `go:T${i}`,
    lines: [`t_test.go:${i}: want ${i}`]
  })
  it('says each check’s count once, before its first failure, from the counts given', () => {
    const details = [detail('unit', 1), detail('unit', 2), detail('lint', 3)]
    const counts = new Map([
      ['unit', 21],
      ['lint', 1]
    ])
    const lines = renderFailureDetails(details, 30_720, {}, 22, counts)
    expect(lines.filter((line) => line.startsWith('Check `unit`: 21 failures'))).toHaveLength(1)
    expect(lines.filter((line) => line.startsWith('Check `lint`: 1 failure'))).toHaveLength(1)
    expect(lines.indexOf('Check `unit`: 21 failures')).toBeLessThan(
      lines.findIndex((line) => line.includes('want 1'))
    )
  })
  it('one check without counts: the total; several: their details, said as such', () => {
    const one = renderFailureDetails([detail('unit', 1)], 30_720, {}, 5)
    expect(one).toContain('Check `unit`: 5 failures')
    const two = renderFailureDetails([detail('unit', 1), detail('lint', 2)], 30_720)
    expect(two).toContain('Check `unit`: 1 failure with details')
  })
})

describe('the failure summary names a required check that never reported', () => {
  it('in its heading and body, not as 0 failing checks', () => {
    const summary: FailureSummary = {
      version: 2,
      sha: 'a'.repeat(40),
      attempt: 0,
      generatedAt: '2026-11-27T00:00:00.000Z',
      signature: {
        keys: ['required-missing:e2e'],
        full: 'required-missing:e2e',
        short: 'required-missing:e2e'
      },
      checks: []
    }
    const markdown = renderFailureSummaryMarkdown(summary)
    expect(markdown).toContain('required check never reported: e2e')
    expect(markdown).not.toContain('0 failing checks')
  })
})

describe('the brief CLI', () => {
  it('prints the signature and the details the gate would write, within --max-bytes', async () => {
    const out = new PassThrough()
    const chunks: Buffer[] = []
    out.on('data', (chunk: Buffer) => chunks.push(chunk))
    const code = await runBriefCommand(
      ['--log', join(CORPUS, 'go-test/assertion/job-log.log'), '--max-bytes', '2000'],
      { stdin: new PassThrough(), stdout: out, stderr: new PassThrough() }
    )
    expect(code).toBe(0)
    const text = Buffer.concat(chunks).toString('utf8')
    expect(text).toContain('go:example.com/shop/pricing:TestTotalAddsShipping')
    expect(text).toContain('total_test.go:14: Total([250 199]) = 449, want 949')
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2001)
  })
  it('rejects a bad --max-bytes with exit code 2', async () => {
    const code = await runBriefCommand(['--max-bytes', 'x'], {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr: new PassThrough()
    })
    expect(code).toBe(2)
  })
})

describe('the brief CLI, other inputs', () => {
  const io = (stdin: string) => {
    const input = new PassThrough()
    input.end(stdin)
    const out: Buffer[] = []
    const err: Buffer[] = []
    const stdout = new PassThrough()
    const stderr = new PassThrough()
    stdout.on('data', (chunk: Buffer) => out.push(chunk))
    stderr.on('data', (chunk: Buffer) => err.push(chunk))
    return {
      streams: { stdin: input, stdout, stderr },
      out: () => Buffer.concat(out).toString('utf8'),
      err: () => Buffer.concat(err).toString('utf8')
    }
  }
  it('reads standard input without --log', async () => {
    const run = io(readCorpusFile('rspec/expectation/job-log.log'))
    expect(await runBriefCommand([], run.streams)).toBe(0)
    expect(run.out()).toContain('got: 449')
    expect(run.out()).toContain('(`standard input`)')
  })
  it('says when no failure is found', async () => {
    const run = io('all good\n')
    expect(await runBriefCommand([], run.streams)).toBe(0)
    expect(run.out()).toBe('no failure found\n')
  })
  it('names an unreadable file and the fix, with exit code 2', async () => {
    const run = io('')
    expect(await runBriefCommand(['--log', join(CORPUS, 'no-such.log')], run.streams)).toBe(2)
    expect(run.err()).toContain('no-such.log')
  })
  it('prints its usage with --help', async () => {
    const run = io('')
    expect(await runBriefCommand(['--help'], run.streams)).toBe(0)
    expect(run.out()).toContain('--max-bytes')
  })
  it('rejects an unknown option with exit code 2', async () => {
    const run = io('')
    expect(await runBriefCommand(['--json'], run.streams)).toBe(2)
  })
})

describe('FailureDetails: bounded windows', () => {
  it('keeps at most DETAIL_LIMITS.lines lines and DETAIL_LIMITS.bytes bytes per failure', () => {
    const details = new FailureDetails()
    details.open('a')
    for (let i = 0; i < 100; i++) details.add(`line ${i}`)
    expect(details.of('a')).toHaveLength(DETAIL_LIMITS.lines)
    expect(details.collecting).toBe(false)
    details.open('b')
    for (let i = 0; i < 100; i++) details.add('y'.repeat(1000))
    const kept = details.of('b') ?? []
    expect(Buffer.byteLength(kept.join('\n'))).toBeLessThanOrEqual(DETAIL_LIMITS.bytes)
  })
  it('keeps windows for the first DETAIL_LIMITS.failures failures only', () => {
    const details = new FailureDetails()
    for (let i = 0; i <= DETAIL_LIMITS.failures; i++) details.open(String(i), `failure ${i}`)
    expect(details.of('0')).toEqual(['failure 0'])
    expect(details.of(String(DETAIL_LIMITS.failures))).toBeUndefined()
  })
  it('drops a window opened before a failure was known, which then counts for nothing', () => {
    const details = new FailureDetails()
    for (let i = 0; i < DETAIL_LIMITS.failures + 10; i++) {
      details.open('pending', `passed test ${i} printed this`)
      details.drop('pending')
    }
    expect(details.of('pending')).toBeUndefined()
    expect(details.collecting).toBe(false)
    details.open('failed', 'Expected: 5')
    expect(details.of('failed')).toEqual(['Expected: 5'])
  })
  it('collapses blank lines, keeps what a repeated block said first, and resumes a window', () => {
    const details = new FailureDetails()
    details.open('a', '', 'first', '', '', 'second', '')
    details.open('a', 'again')
    details.resume('a')
    details.add('third')
    expect(details.of('a')).toEqual(['first', '', 'second', '', 'third'])
  })
})

describe('failure details on real output quoted from public threads', () => {
  const quoted = (path: string) =>
    extractFailuresFromString(readFileSync(join(CORPUS, 'quoted', path), 'utf8')).findings
  it('dotnet test: the message, expected and actual, and the test’s frame', () => {
    const found = quoted('dotnet-test/xunit-and-vstest/ci-log.txt')
    const dog = found.find((f) => f.key === 'dotnet:PetTests.DogTalkToOwnerReturnsWoof')
    expect(dog?.details).toEqual([
      'Error Message:',
      ' Assert.NotEqual() Failure',
      'Expected: Not "Woof!"',
      'Actual:   "Woof!"',
      'Stack Trace:',
      expect.stringContaining('PetTests.cs:line 13')
    ])
  })
  it('JUnit 5 through Gradle and hamcrest through Surefire: library frames skipped', () => {
    const gradle = quoted('gradle/junit5-parameterized/ci-log.txt')[0]?.details ?? []
    expect(gradle.join('\n')).toContain('SigV4SigningTransformationTest.java:92')
    expect(gradle.join('\n')).not.toContain('org.junit.jupiter')
    const surefire = quoted('maven-surefire/surefire-2-no-prefix-hamcrest/ci-log.txt')[0]
    expect(surefire?.details?.join('\n')).toContain('but: was "version:MOCKED_VERSION"')
    expect(surefire?.details?.join('\n')).not.toContain('org.hamcrest')
  })
  it('golangci-lint: the issue, its source line and caret; a cut frame keeps what was printed', () => {
    const found = quoted('golangci-lint/errcheck-three-files/ci-log.txt')
    expect(found.map((f) => f.details)).toEqual([
      [
        'api/bmc.go:29:10: Error return value of `c.Error` is not checked (errcheck)',
        '\t\tc.Error(err)',
        '\t\t       ^'
      ],
      [
        'api/boot.go:27:10: Error return value of `c.Error` is not checked (errcheck)',
        '\t\tc.Error(err)',
        '\t\t       ^'
      ],
      [
        'api/lan.go:29:10: Error return value of `c.Error` is not checked (errcheck)',
        '\t\tc.Error(e'
      ]
    ])
  })
  it("swift test: each test's assertion line (its place and values), one per assertion", () => {
    const found = quoted('swift/xctest-linux-travis/ci-log.txt')
    expect(found.map((f) => f.details?.length)).toEqual([1, 1])
    expect(found[0]?.details?.[0]).toMatch(/FilesTests\.swift:667: error: .*XCTAssertEqual failed/)
  })
  it("a package manager's or build wrapper's own failure lines: the fallback's details", () => {
    const details = (path: string) => quoted(path).flatMap((f) => f.details ?? [])
    // npm 5: the script, how it ended, and npm's sentence naming it; never its boilerplate.
    const npm5 = details('npm/elifecycle-failed-at-script/ci-log.txt')
    expect(npm5).toEqual([
      'npm ERR! lib-for-testing-jest@0.1.1 test: `jest`',
      'npm ERR! Exit status 1',
      'npm ERR! Failed at the lib-for-testing-jest@0.1.1 test script.'
    ])
    // npm 7: the error line the fallback keys on, then the lifecycle lines around it.
    expect(details('npm/lifecycle-script-workspace/ci-log.txt')).toEqual([
      'npm ERR! Error: command failed',
      'npm ERR! Lifecycle script `test` failed with error:',
      'npm ERR!   in workspace: package1@1.0.0'
    ])
    // pnpm: its message is the line under ERR_PNPM_<CODE>.
    const pnpm = details('pnpm/recursive-run-exit-status/ci-log.txt')
    expect(pnpm.slice(0, 3)).toEqual([
      'ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  decode-viewer@0.0.0 build: `tsc && vite build`',
      'Exit status 2',
      ' ELIFECYCLE  Command failed with exit code 1.'
    ])
    expect(pnpm).not.toContain('/Users/luke/.../polkadot-api/examples/papi-react-template:')
    // Docker compose's closing line, whole (the key is cut at the key's length).
    expect(details('docker/compose-target-failed-to-solve/ci-log.txt')).toEqual([
      'target ui: failed to solve: process "/bin/sh -c npm run build" did not complete successfully: exit code: 1'
    ])
    // Maven: the goal that failed and why, under the fallback's own line.
    const maven = details('maven-surefire/build-failure-block-only/ci-log.txt')
    expect(maven).toHaveLength(2)
    expect(maven[1]).toMatch(/^\[ERROR\] Failed to execute goal .* There are test failures\.$/)
    // turbo's task prefix stays: it names the package and task.
    expect(details('turbo/task-prefixed-wrappers/ci-log.txt')).toEqual([
      'next-app:build: ERROR: command finished with error: command exited (1)',
      'adonis:build:  ELIFECYCLE  Command failed with exit code 1.',
      'vite-project:build:  ELIFECYCLE Command failed with exit code 1.'
    ])
  })
})

describe('the failure summary markdown: details under its one budget', () => {
  const log = readFileSync(join(CORPUS, 'pytest/param-assertion/job-log.log'), 'utf8')
  const real = extractFailuresFromString(log).findings[0]?.details ?? []
  const checks = Array.from({ length: 300 }, (_, i) => ({
    name: `test ${i}`,
    conclusion: 'failure',
    url: '',
    source: 'log' as const,
    keys: [`pytest:tests/t${i}.py::test_vat`],
    firstErrorLines: ['FAILED'],
    details: [{ key: `pytest:tests/t${i}.py::test_vat`, lines: real }]
  }))
  const summary: FailureSummary = {
    version: 2,
    sha: 'a'.repeat(40),
    attempt: 0,
    generatedAt: '2026-11-27T00:00:00.000Z',
    signature: { keys: checks.map((c) => c.keys[0]!), full: 'x', short: 'x' },
    checks
  }
  it.each([1_000, 20_000])('300 checks stay within %s characters', (maxChars) => {
    const markdown = renderFailureSummaryMarkdown(summary, { maxChars })
    expect(markdown.length).toBeLessThanOrEqual(maxChars)
  })
  it('the first check’s details come whole when there is room', () => {
    const markdown = renderFailureSummaryMarkdown({ ...summary, checks: checks.slice(0, 3) })
    expect(markdown).toContain('E       AssertionError: assert 23.99 == 23.98')
    expect(markdown).toContain('tests/test_vat.py:16: AssertionError')
  })
})

describe('details attributed to their own failure (quoted tuning fixtures)', () => {
  const quoted = (file: string) =>
    extractFailuresFromString(readFileSync(join(CORPUS, 'quoted', file), 'utf8')).findings
  const detailsOf = (findings: ReturnType<typeof quoted>, key: string) =>
    findings.find((finding) => finding.key === key)?.details ?? []

  it('vitest: tests whose FAIL lines share one error each get it, kind and details', () => {
    const findings = quoted('vitest/grouped-error-gh-log-failed/ci-log.txt')
    const tests = findings.filter((finding) => finding.key.startsWith('vitest:'))
    expect(tests).toHaveLength(6)
    for (const test of tests) {
      expect(test.key).toMatch(/:TypeError$|~[0-9a-f]{8}$/)
      expect(test.details?.some((line) => /motion-trigger-\w+\.test\.ts:\d+:\d+/.test(line))).toBe(
        true
      )
    }
  })

  it('vitest: annotations and totals inside a block belong to no test; each keeps its own location', () => {
    const findings = quoted('vitest/annotations-inside-blocks/ci-log.txt')
    const tests = findings.filter((finding) => finding.key.startsWith('vitest:'))
    expect(tests).toHaveLength(6)
    const locations = tests.map((test) =>
      (test.details ?? []).filter((line) => /^ ❯ \S+\.test\.ts:\d+:\d+$/.test(line))
    )
    // One location per test, all different: no test carries another's error.
    for (const own of locations) expect(own).toHaveLength(1)
    expect(new Set(locations.flat()).size).toBe(6)
    for (const test of tests) {
      expect(test.details?.some((line) => /^\s*(?:Test Files|Tests) /.test(line))).toBe(false)
    }
  })

  it('tsc: each distinct error with its continuation lines, a repeat by its line only', () => {
    const findings = quoted('tsc/continuation-and-repeats/ci-log.txt')
    const ident = detailsOf(findings, 'tsc:TS2345:Ident:src/ts/adapt/vgen.ts')
    expect(ident).toHaveLength(3)
    expect(ident.slice(1).every((line) => line.startsWith('  '))).toBe(true)
    const repeated = detailsOf(findings, 'tsc:TS2345:true:src/ts/adapt/vgen.ts')
    expect(repeated.map((line) => /\((\d+),\d+\)/.exec(line)?.[1])).toEqual([
      '1986',
      '1992',
      '1998'
    ])
  })

  it('pyright: the continuation line that carries the rule is kept; a repeat adds its line', () => {
    const findings = quoted('pyright/attribute-two-errors/ci-log.txt')
    expect(findings.map((finding) => finding.key)).toEqual([
      'pyright:reportAttributeAccessIssue:foo.py'
    ])
    const lines = findings[0]?.details ?? []
    expect(lines.filter((line) => line.includes('(reportAttributeAccessIssue)'))).toHaveLength(1)
    expect(lines.filter((line) => / - error: /.test(line))).toHaveLength(2)
  })

  it('cargo before Rust 1.73: a panic message over several lines is the panic, left and right kept', () => {
    const assertion = quoted('cargo-test/old-panic-assertion-lines/ci-log.txt')
    expect(detailsOf(assertion, 'cargo:tests::testing')).toEqual([
      "        thread 'tests::testing' panicked at 'assertion failed: `(left == right)`",
      '  left: `"World"`,',
      ' right: `"Hello"`\', src/main.rs:11:9'
    ])
    // A custom message (a panic, not an assertion); the backtrace note is no detail.
    const custom = quoted('cargo-test/old-panic-custom-message-lines/ci-log.txt')
    expect(detailsOf(custom, 'cargo:all_the_fields:panic')).toEqual([
      "thread 'all_the_fields' panicked at 'cargo -V output is unexpected: cargo 1.33.0",
      "', tests/test_samples.rs:130:5"
    ])
  })

  it('Surefire 2.x: an entry on the Failed tests: line keeps the header, as printed', () => {
    const findings = quoted('maven-surefire/surefire-2-12-failed-tests-inline/ci-log.txt')
    expect(detailsOf(findings, 'surefire:ClassificationAnalysisTest.pica')).toEqual([
      'Failed tests:   pica(de.gwdg.metadataqa.marc.cli.ClassificationAnalysisTest): expected:<...t,percent(..)'
    ])
    expect(detailsOf(findings, 'surefire:CollocationTest.formatRow')).toEqual([
      '  formatRow(de.gwdg.metadataqa.marc.cli.utils.CollocationTest): expected:<lcsh;udc,3416,68[.]32%(..)'
    ])
  })

  it('flake8 and mypy: a key found at several places keeps each place', () => {
    const flake8 = detailsOf(
      quoted('flake8/one-code-four-lines/ci-log.txt'),
      'flake8:E501:upyun/rest.py'
    )
    expect(flake8.map((line) => line.split(': ')[0])).toEqual([
      'upyun/rest.py:148:80',
      'upyun/rest.py:230:80',
      'upyun/rest.py:235:80',
      'upyun/rest.py:262:80'
    ])
    const mypy = detailsOf(
      quoted('mypy/one-code-eleven-lines/ci-log.txt'),
      'mypy:union-attr:None:capa/ida/plugin/form.py'
    )
    expect(mypy).toHaveLength(11)
    expect(mypy.at(-1)).toMatch(/^capa\/ida\/plugin\/form\.py:1276: error: /)
  })

  it('ESC written visibly (`^[[31m`) is cleaned like ESC itself', () => {
    const text = readFileSync(
      join(CORPUS, 'quoted', 'vitest/grouped-error-gh-log-failed/ci-log.txt'),
      'utf8'
    )
    const withEsc = text.replace(/\^\[\[/g, '\u001b[')
    expect(extractFailuresFromString(withEsc).findings.map((finding) => finding.key)).toEqual(
      extractFailuresFromString(text).findings.map((finding) => finding.key)
    )
  })
})

describe('renderFailureDetails: one error in several files', () => {
  const detail = (path: string, line: number) => ({
    check: 'typecheck',
    key: `tsc:TS2345:${path}`,
    lines: [
      `${path}(${line},7): error TS2345: Argument of type 'A' is not assignable to parameter of type 'B'.`,
      "  Type 'A' is missing the following properties from type 'B': x, y"
    ]
  })
  it('is one block: the message and its continuation once, every location, every key counted', () => {
    const details = [detail('src/a.ts', 3), detail('src/b.ts', 9), detail('src/c.ts', 12)]
    const text = renderFailureDetails(details, 30_720).join('\n')
    expect(text.match(/is missing the following properties/g)).toHaveLength(1)
    for (const place of ['src/a.ts(3,7)', 'src/b.ts(9,7)', 'src/c.ts(12,7)'])
      expect(text).toContain(place)
    expect(text).toContain('`tsc:TS2345:src/b.ts`')
    expect(text).not.toMatch(/more failures? without details/)
  })
  it('keeps apart errors that differ in more than their place', () => {
    const other = { ...detail('src/b.ts', 9), key: 'tsc:TS2322:src/b.ts' }
    const text = renderFailureDetails([detail('src/a.ts', 3), other], 30_720).join('\n')
    expect(text.match(/is missing the following properties/g)).toHaveLength(2)
  })
})
