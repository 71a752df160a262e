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
import { ESLINT_FILE_EXTENSIONS, createEslintParser, eslintGrepPatterns } from './eslint.js'
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
import { createPyrightParser, pyrightGrepPatterns } from './pyright.js'
import { createTerraformParser, terraformGrepPatterns } from './terraform.js'
import { actionlintGrepPatterns, createActionlintParser } from './actionlint.js'
import { createKotlinParser, kotlinGrepPatterns } from './kotlin.js'
import { createFlake8Parser, createRuffParser, pythonLintGrepPatterns } from './python-lint.js'
import { createRspecParser, rspecGrepPatterns } from './rspec.js'
import { createRunnerParser, runnerGrepPatterns } from './runner.js'
import { createShellcheckParser, shellcheckGrepPatterns } from './shellcheck.js'
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

interface Triggers {
  /** Regular-expression fragments that may match anywhere in the line. */
  anywhere?: readonly string[]
  /** Fragments that must match at the start of the line, after blanks. */
  lineStart?: readonly string[]
}

interface ParserEntry {
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
/**
 * A path at the start of a line. Line-start fragments that begin with it are tried as one
 * (see lineStartFragments): each would otherwise scan the line's first word again.
 */
const PATH_START = '(?:[A-Za-z]:)?[^\\s:]{1,300}'
/** A path at the start of a line followed by `.<ext>:<digit>`. */
const pathWith = (extension: string): string => `${PATH_START}\\.${extension}:\\d`
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
    // A file line on its own: its problems may follow after a blank line, where the problem
    // line's previous line does not name the file.
    triggers: {
      anywhere: [ERROR_WORD, ERROR_TITLE],
      lineStart: ['\\d+:\\d+\\s', `${PATH_START}\\.${ESLINT_FILE_EXTENSIONS}[ \\t\\r]*(?:\\n|$)`]
    },
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
    tool: 'pyright',
    create: createPyrightParser,
    // A diagnostic (`path.py:12:5 - error:`, or `  12:5 - error:` under its file's header line),
    // the header line itself, a Python file's path alone, and the JSON report's array.
    triggers: {
      anywhere: [ERROR_WORD],
      lineStart: [
        pathWith('pyi?'),
        `${PATH_START}\\.pyi?[ \\t\\r]*(?:\\n|$)`,
        '"generalDiagnostics": \\['
      ]
    },
    grepPatterns: pyrightGrepPatterns
  },
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
        '(?:---|──)[^ ]* STD'
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
    // A failure's numbered header (`  1) [chromium] › …`), the closing lists' counts.
    triggers: { lineStart: ['\\d+\\) ', '\\d+ (?:failed|flaky)\\b'] },
    grepPatterns: playwrightGrepPatterns
  },
  {
    tool: 'bun',
    create: createBunParser,
    // The result line, a file's path line (`src/a.test.ts:`), a stack frame in a test file and
    // the run's banner (details are read only after it); never a PASS line or a file named in
    // passing.
    triggers: {
      lineStart: [
        '\\(fail\\) ',
        '✗',
        'bun test v\\d',
        `${PATH_START}\\.[cm]?[jt]sx?:[ \\t\\r]*(?:\\n|$)`,
        '::group::',
        'at .{0,500}?[._](?:test|spec)\\.[cm]?[jt]sx?:\\d'
      ]
    },
    grepPatterns: bunGrepPatterns
  },
  {
    tool: 'deno',
    create: createDenoParser,
    // Inside a run (after `running N tests from`) and its ERRORS and FAILURES report the
    // parser reads every line.
    triggers: { lineStart: ['running \\d', '(?:ERRORS|FAILURES) *(?:\\r?\\n|$)'] },
    grepPatterns: denoGrepPatterns
  },
  {
    tool: 'swift',
    create: createSwiftParser,
    triggers: { anywhere: [ERROR_WORD], lineStart: ["Test Case '", '(?:✘|􀢄) Test'] },
    grepPatterns: swiftGrepPatterns
  },
  {
    tool: 'ctest',
    create: createCtestParser,
    triggers: { lineStart: ['\\d+/\\d+ Test +#', '\\d{1,6} - \\S'] },
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
    // A diagnostic's header: `src/a.ts:2:22 lint/suspicious/noExplicitAny …`, `src/a.ts format …`
    triggers: {
      lineStart: [`${PATH_START}(?::\\d+:\\d+)? (?:lint|format|assist|parse|organizeImports)\\b`]
    },
    grepPatterns: biomeGrepPatterns
  },
  {
    tool: 'vite',
    create: createViteParser,
    // `[vite]: Rollup failed to resolve import …`; `error during build:` has `error`.
    triggers: { anywhere: [ERROR_WORD], lineStart: ['(?:Error: )?\\[vite\\]'] },
    grepPatterns: viteGrepPatterns
  },
  {
    tool: 'next',
    create: createNextParser,
    // `Type error: …`
    triggers: { anywhere: [ERROR_WORD] },
    grepPatterns: nextGrepPatterns
  },
  {
    tool: 'terraform',
    create: createTerraformParser,
    // `Error: <summary>` (its place and detail follow while the parser reads them), also inside
    // the box whose left edge leads every line (`│ Error: …`, colour between the words).
    triggers: { anywhere: [ERROR_TITLE], lineStart: ['│'] },
    grepPatterns: terraformGrepPatterns
  },
  {
    tool: 'actionlint',
    create: createActionlintParser,
    // `.github/workflows/ci.yml:20:9: msg [rule]`
    triggers: { lineStart: [pathWith('ya?ml')] },
    grepPatterns: actionlintGrepPatterns
  },
  {
    tool: 'shellcheck',
    create: createShellcheckParser,
    // `In scripts/a.sh line 17:`, the header of a finding's block (the parser reads the block).
    triggers: { lineStart: ['In [^\\n]{1,1000}? line \\d{1,7}:'] },
    grepPatterns: shellcheckGrepPatterns
  },
  {
    tool: 'kotlin',
    create: createKotlinParser,
    triggers: { lineStart: ['e: '] },
    grepPatterns: kotlinGrepPatterns
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

/** The parsers' `lineStart` trigger fragments, de-duplicated; those after a path as one. */
export function lineStartFragments(): string[] {
  const all = unique(PARSERS.flatMap((entry) => entry.triggers.lineStart ?? []))
  const afterPath = all.filter((fragment) => fragment.startsWith(PATH_START))
  const others = all.filter((fragment) => !fragment.startsWith(PATH_START))
  if (afterPath.length === 0) return others
  const tails = afterPath.map((fragment) => fragment.slice(PATH_START.length))
  return [...others, `${PATH_START}(?:${tails.join('|')})`]
}

/** Every parser's grep patterns, de-duplicated: what `grep -E` must match to do the same selection. */
export function grepEquivalentPatterns(): string[] {
  return [...new Set(PARSERS.flatMap((entry) => entry.grepPatterns))]
}
