/**
 * The parser registry: every tool the extractor knows, the triggers that decide which lines
 * reach it, and the extended regular expressions (`grep -E`) that select the lines it reacts
 * to, which the benchmark runs through grep as the equivalent work.
 *
 * Triggers keep the extractor fast: most lines of a job log are noise, and a line reaches the
 * parsers only when it contains one of the `anywhere` fragments or starts (after blanks) with
 * one of the `lineStart` fragments; a parser inside a multi-line block sees every line until it
 * says it is done. The fragments are deliberately few and coarse (`rror` covers error, Error,
 * `##[error]`), because one short alternation per line is what keeps the pass cheap.
 */
import type { ParserFactory } from '../types.js'
import { cargoGrepPatterns, createCargoParser } from './cargo.js'
import { createDotnetParser, dotnetGrepPatterns } from './dotnet.js'
import { createEslintParser, eslintGrepPatterns } from './eslint.js'
import { createGoParser, goGrepPatterns } from './go.js'
import { createGradleParser, gradleGrepPatterns } from './gradle.js'
import { createJavacParser, javacGrepPatterns } from './javac.js'
import { createJestParser, jestGrepPatterns } from './jest.js'
import { createJunitParser, junitGrepPatterns } from './junit.js'
import { createMochaParser, mochaGrepPatterns } from './mocha.js'
import { createMypyParser, mypyGrepPatterns } from './mypy.js'
import { createNodeTestParser, nodeTestGrepPatterns } from './node-test.js'
import { createPhpunitParser, phpunitGrepPatterns } from './phpunit.js'
import { createPytestParser, pytestGrepPatterns } from './pytest.js'
import { createFlake8Parser, createRuffParser, pythonLintGrepPatterns } from './python-lint.js'
import { createRspecParser, rspecGrepPatterns } from './rspec.js'
import { createRunnerParser, runnerGrepPatterns } from './runner.js'
import { createRustcParser, rustGrepPatterns } from './rust.js'
import { createSurefireParser, surefireGrepPatterns } from './surefire.js'
import { createTscParser, tscGrepPatterns } from './tsc.js'
import { createVitestParser, vitestGrepPatterns } from './vitest.js'
import { biomeGrepPatterns, createBiomeParser } from './biome.js'
import { bunGrepPatterns, createBunParser } from './bun.js'
import { createCtestParser, ctestGrepPatterns } from './ctest.js'
import { createDenoParser, denoGrepPatterns } from './deno.js'
import { createGolangciLintParser, golangciLintGrepPatterns } from './golangci-lint.js'
import { createNextParser, nextGrepPatterns } from './next.js'
import { createPlaywrightParser, playwrightGrepPatterns } from './playwright.js'
import { createSwiftParser, swiftGrepPatterns } from './swift.js'
import { createUnittestParser, unittestGrepPatterns } from './unittest.js'
import { createViteParser, viteGrepPatterns } from './vite.js'

export interface Triggers {
  /** Regular-expression fragments that may match anywhere in the line. */
  anywhere?: readonly string[]
  /** Fragments that must match at the start of the line, after blanks. */
  lineStart?: readonly string[]
}

export interface ParserEntry {
  /** The first segment of the keys this parser emits. */
  tool: string
  create: ParserFactory
  /** The lines that must reach this parser (a superset of the lines it reacts to). */
  triggers: Triggers
  /** `grep -E` patterns selecting the lines this parser reacts to (for the benchmark). */
  grepPatterns: readonly string[]
}

/** `error` in its lower-case forms (`error TS`, `: error:`, `##[error]`); ERROR needs `RROR`. */
const ERROR_WORD = 'error'
/** `Error:` and ESLint's `[Error/rule]`, but not `Errors: 0` in every Maven test summary. */
const ERROR_TITLE = 'Error[:/]'
/** A path at the start of a line followed by `.<ext>:<digit>`. */
const pathWith = (extension: string): string => `(?:[A-Za-z]:)?[^\\s:]{1,300}\\.${extension}:\\d`
/** The list header JUnit 4's runner and PHPUnit share: `There were 2 failures:`. */
const THERE_WERE = 'There w'
const PY_LINT: Triggers = {
  lineStart: [
    pathWith('pyi?'),
    '[A-Z]{1,4}\\d{1,4} ',
    'Found \\d',
    '\\[\\*\\]',
    'No fixes',
    'All checks'
  ]
}

export const PARSERS: readonly ParserEntry[] = [
  {
    tool: 'tsc',
    create: createTscParser,
    // `RROR`: webpack's `ERROR in <file>` lines of the TypeScript loaders.
    triggers: { anywhere: [ERROR_WORD, 'RROR'] },
    grepPatterns: tscGrepPatterns
  },
  {
    tool: 'eslint',
    create: createEslintParser,
    triggers: { anywhere: [ERROR_WORD, ERROR_TITLE], lineStart: ['\\d+:\\d+\\s'] },
    grepPatterns: eslintGrepPatterns
  },
  {
    tool: 'jest',
    create: createJestParser,
    triggers: { anywhere: ['FAIL', '●'] },
    grepPatterns: jestGrepPatterns
  },
  {
    tool: 'vitest',
    create: createVitestParser,
    triggers: { anywhere: ['FAIL'] },
    grepPatterns: vitestGrepPatterns
  },
  {
    tool: 'mocha',
    create: createMochaParser,
    triggers: { anywhere: ['failing'] },
    grepPatterns: mochaGrepPatterns
  },
  {
    tool: 'node-test',
    create: createNodeTestParser,
    triggers: { anywhere: ['✖', '▶'], lineStart: ['not ok ', 'test at '] },
    grepPatterns: nodeTestGrepPatterns
  },
  {
    tool: 'pytest',
    create: createPytestParser,
    // `___ test_x ___`: a report section, which says what the test raised.
    triggers: { anywhere: ['FAIL', 'RROR'], lineStart: ['_{3,} '] },
    grepPatterns: pytestGrepPatterns
  },
  {
    tool: 'mypy',
    create: createMypyParser,
    triggers: { anywhere: [ERROR_WORD] },
    grepPatterns: mypyGrepPatterns
  },
  {
    tool: 'ruff',
    create: createRuffParser,
    triggers: PY_LINT,
    grepPatterns: pythonLintGrepPatterns
  },
  { tool: 'flake8', create: createFlake8Parser, triggers: PY_LINT, grepPatterns: [] },
  {
    tool: 'go',
    create: createGoParser,
    triggers: {
      anywhere: ['FAIL', '"fail"'],
      lineStart: [pathWith('go'), 'panic: ', '=== RUN']
    },
    grepPatterns: goGrepPatterns
  },
  {
    tool: 'cargo',
    create: createCargoParser,
    triggers: {
      anywhere: ['FAIL'],
      lineStart: [
        'Running ',
        'Doc-tests ',
        'failures:',
        '---- ',
        "thread '",
        // nextest: a timeout, a signal, a test's captured output
        '(?:TIMEOUT|SIG[A-Z]{2,8}) \\[',
        '(?:-{3}|─{2,}) STD'
      ]
    },
    grepPatterns: cargoGrepPatterns
  },
  {
    tool: 'rustc',
    create: createRustcParser,
    triggers: { anywhere: [ERROR_WORD] },
    grepPatterns: rustGrepPatterns
  },
  {
    tool: 'javac',
    create: createJavacParser,
    triggers: { anywhere: [ERROR_WORD, ERROR_TITLE, 'RROR'] },
    grepPatterns: javacGrepPatterns
  },
  {
    tool: 'surefire',
    create: createSurefireParser,
    triggers: { anywhere: [ERROR_TITLE, 'RROR'], lineStart: ['Failed tests:', 'Tests in error:'] },
    grepPatterns: surefireGrepPatterns
  },
  {
    tool: 'gradle',
    create: createGradleParser,
    triggers: { anywhere: ['FAIL'] },
    grepPatterns: gradleGrepPatterns
  },
  {
    tool: 'dotnet',
    create: createDotnetParser,
    triggers: { anywhere: [ERROR_WORD, '\\[FAIL\\]'], lineStart: ['[Ff]ailed ', 'X '] },
    grepPatterns: dotnetGrepPatterns
  },
  {
    tool: 'rspec',
    create: createRspecParser,
    triggers: { lineStart: ['Failures:', 'rspec ', 'An error occurred while loading '] },
    grepPatterns: rspecGrepPatterns
  },
  {
    tool: 'phpunit',
    create: createPhpunitParser,
    triggers: { lineStart: [THERE_WERE] },
    grepPatterns: phpunitGrepPatterns
  },
  {
    tool: 'junit',
    create: createJunitParser,
    triggers: { lineStart: [THERE_WERE] },
    grepPatterns: junitGrepPatterns
  },
  {
    tool: 'playwright',
    create: createPlaywrightParser,
    triggers: { anywhere: [' › '], lineStart: ['\\d+ (?:failed|flaky)\\b'] },
    grepPatterns: playwrightGrepPatterns
  },
  {
    tool: 'bun',
    create: createBunParser,
    // A file's path line and the stack frames in test files, besides the result line.
    triggers: {
      anywhere: ['\\(fail\\)', '✗', 'bun test ', '\\.test\\.', '\\.spec\\.', '_test\\.', '_spec\\.']
    },
    grepPatterns: bunGrepPatterns
  },
  {
    tool: 'deno',
    create: createDenoParser,
    triggers: { anywhere: [' => ', ' \\.\\.\\.'], lineStart: ['running \\d'] },
    grepPatterns: denoGrepPatterns
  },
  {
    tool: 'swift',
    create: createSwiftParser,
    triggers: { anywhere: [ERROR_WORD, "' failed", '✘ Test'] },
    grepPatterns: swiftGrepPatterns
  },
  {
    tool: 'ctest',
    create: createCtestParser,
    triggers: { anywhere: ['\\*\\*\\*'], lineStart: ['\\d{1,6} - \\S'] },
    grepPatterns: ctestGrepPatterns
  },
  {
    tool: 'unittest',
    create: createUnittestParser,
    triggers: { lineStart: ['(?:FAIL|ERROR): \\w'] },
    grepPatterns: unittestGrepPatterns
  },
  {
    tool: 'golangci-lint',
    create: createGolangciLintParser,
    triggers: { lineStart: [pathWith('go')] },
    grepPatterns: golangciLintGrepPatterns
  },
  {
    tool: 'biome',
    create: createBiomeParser,
    triggers: { anywhere: ['━━━'] },
    grepPatterns: biomeGrepPatterns
  },
  {
    tool: 'vite',
    create: createViteParser,
    triggers: { anywhere: ['failed to resolve import', 'error during build'] },
    grepPatterns: viteGrepPatterns
  },
  {
    tool: 'next',
    create: createNextParser,
    triggers: { anywhere: ['Type error: '] },
    grepPatterns: nextGrepPatterns
  },
  {
    tool: 'gha',
    create: createRunnerParser,
    triggers: { anywhere: [ERROR_WORD], lineStart: ['##\\[', '::error'] },
    grepPatterns: runnerGrepPatterns
  }
]

function unique(fragments: readonly string[]): string[] {
  return [...new Set(fragments)]
}

/** The parsers' `anywhere` trigger fragments, de-duplicated. */
export function anywhereFragments(): string[] {
  return unique(PARSERS.flatMap((entry) => entry.triggers.anywhere ?? []))
}

/** The parsers' `lineStart` trigger fragments, de-duplicated. */
export function lineStartFragments(): string[] {
  return unique(PARSERS.flatMap((entry) => entry.triggers.lineStart ?? []))
}

/** Every parser's grep patterns, de-duplicated: what `grep -E` must match to do the same selection. */
export function grepEquivalentPatterns(): string[] {
  return [...new Set(PARSERS.flatMap((entry) => entry.grepPatterns))]
}
