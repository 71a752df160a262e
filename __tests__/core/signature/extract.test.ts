import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, test } from '@jest/globals'
import fc from 'fast-check'
import { extractFailures, extractFailuresFromString } from '../../../src/core/signature/extract.js'
import { completeClasses, jestFailureBlocks, readCorpusFile } from './corpus.js'

const CORPUS = resolve(import.meta.dirname, '../../../__fixtures__/corpus')
const files = completeClasses().flatMap((cls) => cls.files)
const jobLogs = files.filter((file) => file.endsWith('.log'))

/** Runs a short Node program and returns what it printed (real output, made at test time). */
function outputOf(program: string): string {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', program], {
    encoding: 'utf8',
    cwd: process.cwd()
  })
  return `${run.stdout}${run.stderr}`
}

function keys(text: string): string[] {
  return extractFailuresFromString(text).findings.map((finding) => finding.key)
}

describe('extractFailures', () => {
  test('the corpus has files to read', () => {
    expect(files.length).toBeGreaterThan(0)
    expect(jobLogs.length).toBeGreaterThan(0)
  })

  test.each(files)('the trigger prefilter loses nothing: %s', (file) => {
    const text = readCorpusFile(file)
    expect(extractFailuresFromString(text)).toEqual(
      extractFailuresFromString(text, { everyLine: true })
    )
  })

  test('a stream in chunks of any size gives what the whole string gives', async () => {
    const samples = jobLogs.slice(0, 6).map((file) => Buffer.from(readCorpusFile(file)))
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...samples),
        fc.array(fc.nat(), { maxLength: 10 }),
        async (bytes, rawCuts) => {
          const cuts = [...new Set(rawCuts.map((cut) => cut % bytes.length))].sort((a, b) => a - b)
          const chunks: Buffer[] = []
          let from = 0
          for (const cut of [...cuts, bytes.length]) {
            chunks.push(bytes.subarray(from, cut))
            from = cut
          }
          const streamed = await extractFailures(Readable.from(chunks))
          expect(streamed).toEqual(extractFailuresFromString(bytes.toString('utf8')))
        }
      ),
      { numRuns: 40 }
    )
  })

  test('a log cut by the byte cap says so', async () => {
    const file = jobLogs[0] ?? ''
    const bytes = Buffer.from(readCorpusFile(file))
    const cap = Math.floor(bytes.length / 2)
    const result = await extractFailures(Readable.from([bytes]), { maxBytes: cap })
    expect(result.truncated).toBe(true)
    expect(result.bytesRead).toBe(cap)
    const whole = await extractFailures(Readable.from([bytes]))
    expect(whole.truncated).toBe(false)
    expect(whole.bytesRead).toBe(bytes.length)
  })

  test('the exit-code trailer is a key only when nothing else is found', () => {
    for (const file of jobLogs) {
      const text = readCorpusFile(file)
      expect(keys(text).some((key) => key.startsWith('gha:'))).toBe(false)
      // The same job log with only the runner's own lines left: markers and the trailer.
      const runnerOnly = text
        .split('\n')
        .filter((line) => line.includes('##['))
        .join('\n')
      const code = /Process completed with exit code (\d+)/.exec(text)?.[1]
      expect(code).toBeDefined()
      expect(keys(runnerOnly)).toEqual([`gha:exit code ${code}`])
    }
  })

  test('an unknown tool falls back to its first error line, masked', () => {
    const output = outputOf("const id = 4711; throw new TypeError('no profile for customer ' + id)")
    expect(keys(output)).toEqual(['error:TypeError: no profile for customer N'])
    // The fallback beats the trailer of a job log.
    const jobLog = `${output}\n##[error]Process completed with exit code 1.\n`
    expect(keys(jobLog)).toEqual(['error:TypeError: no profile for customer N'])
  })

  test('workflow-command errors are kept only when no tool parser found anything', () => {
    const output = outputOf(
      "import * as core from '@actions/core'; core.error('Deploy key expired on 2026-07-28')"
    )
    expect(output).toContain('::error::')
    expect(keys(output)).toEqual(['gha:Deploy key expired on <time>'])
    const withJest = `${readCorpusFile(jobLogs[0] ?? '')}\n${output}`
    expect(keys(withJest).some((key) => key.startsWith('gha:'))).toBe(false)
  })

  test("a problem matcher's ##[error] before a tool's line never enters its key", () => {
    for (const file of files.filter(
      (name) => name.startsWith('go-build/') && name.endsWith('.txt')
    )) {
      const text = readCorpusFile(file)
      // The runner's problem matcher for Go marks each diagnostic line in the job log.
      const marked = text.replace(/^(?=\S+\.go:\d)/gm, '##[error]')
      expect(marked).not.toBe(text)
      expect(keys(marked)).toEqual(keys(text))
    }
  })

  test("eslint problems the runner's problem matcher marked give the same keys, also as the web UI copies them", () => {
    for (const file of files.filter(
      (name) => name.startsWith('eslint/') && name.endsWith('.txt')
    )) {
      const text = readCorpusFile(file)
      if (text.includes('\u001b')) continue // the coloured variant: the matcher reads plain text
      // setup-node's eslint-stylish matcher marks each problem line (not the file's line).
      const marked = text.replace(/^(?=\s+\d+:\d+\s+error\s)/gm, '##[error]')
      const copied = marked.replace(/^##\[error\]/gm, 'Error: ')
      expect(marked).not.toBe(text)
      expect(keys(marked)).toEqual(keys(text))
      expect(keys(copied)).toEqual(keys(text))
    }
  })

  test("jest's failure blocks pasted without their FAIL line or summary give the same keys", () => {
    for (const file of files.filter((name) => name.startsWith('jest/') && name.endsWith('.txt'))) {
      const text = readCorpusFile(file)
      if (text.includes('\u001b') || text.includes('Test suite failed to run')) continue
      // What a person copies: the failure blocks, not the FAIL line above nor the summary below.
      const blocks = jestFailureBlocks(text)
      expect(blocks).not.toBe(text)
      expect(keys(blocks)).toEqual(keys(text))
    }
  })

  test("the web UI's copy of the step trailer is the trailer", () => {
    expect(keys('Run ls missing\nError: Process completed with exit code 2.\n')).toEqual([
      'gha:exit code 2'
    ])
  })

  test("a wrapper's summary line is the key only when nothing else reads as an error", () => {
    // yarn after a coverage run that failed its threshold, quoted from
    // https://github.com/yarnpkg/yarn/issues/6466: nothing names a failure of its own.
    const yarn = [
      '=============================== Coverage summary ===============================',
      'Statements   : 99.65% ( 3715/3728 )',
      'Lines        : 99.6% ( 3250/3263 )',
      '================================================================================',
      'error Command failed with exit code 1.',
      'info Visit https://yarnpkg.com/en/docs/cli/run for documentation about this command.'
    ].join('\n')
    // The wrapper's line says what failed; the summary banner and the `info` line never do.
    expect(keys(yarn)).toEqual(['error:error Command failed with exit code N.'])
    // Docker BuildKit's summary, quoted from https://github.com/zaldivards/ContextQA/issues/25
    const buildkit =
      'ERROR: failed to solve: process "/bin/sh -c npm install && npm i -g serve" did not complete successfully: exit code: 254'
    expect(extractFailuresFromString(`${buildkit}\n`).findings).toEqual([
      {
        key: expect.stringMatching(/^error:ERROR: failed to solve: /),
        line: buildkit,
        details: [buildkit]
      }
    ])
    // The same summary under a real failure: the failure's key, never the wrapper's; the
    // wrapper's line comes after the failure's own details.
    const output = outputOf("throw new TypeError('no profile for customer 4711')")
    const [finding, ...others] = extractFailuresFromString(`${output}\n${buildkit}\n`).findings
    expect(others).toEqual([])
    expect(finding?.key).toBe('error:TypeError: no profile for customer N')
    expect(finding?.details?.at(-1)).toBe(buildkit)
    // In a job log, the step trailer stays the key and carries the wrapper's lines.
    const job = [
      'Run yarn test',
      ...yarn.split('\n'),
      '##[error]Process completed with exit code 1.'
    ]
    expect(extractFailuresFromString(job.join('\n')).findings).toEqual([
      {
        key: 'gha:exit code 1',
        line: '##[error]Process completed with exit code 1.',
        details: ['error Command failed with exit code 1.']
      }
    ])
  })

  test("a wrapper's failure lines are triggers of their own, never the fallback's key over an error line", () => {
    // pnpm's message on the line under ERR_PNPM_<CODE>, quoted from
    // https://github.com/pnpm/pnpm/issues/4146: read although nothing in it reads as an error.
    const pnpm = [
      ' ERR_PNPM_RECURSIVE_EXEC_FIRST_FAIL  Command failed with ENOTDIR: run:dev',
      'spawn ENOTDIR'
    ].join('\n')
    const [finding] = extractFailuresFromString(`${pnpm}\n`).findings
    expect(finding?.details).toEqual([...pnpm.split('\n')])
    // However many the wrapper prints, its lines stay within one failure's detail bounds.
    const many = Array.from(
      { length: 40 },
      (_, i) => `${pnpm.split('\n')[0]}${i} ${'x'.repeat(900)}`
    )
    const bounded = extractFailuresFromString(`${many.join('\n')}\n`).findings[0]?.details ?? []
    expect(bounded.length).toBeGreaterThan(0)
    expect(bounded.length).toBeLessThanOrEqual(10)
    expect(Buffer.byteLength(bounded.join('\n'), 'utf8')).toBeLessThanOrEqual(4096)
    // Every wrapper line quoted in the tuning fixtures gives the same findings without the
    // trigger prefilter.
    for (const file of [
      'npm/elifecycle-failed-at-script',
      'npm/lifecycle-script-workspace',
      'pnpm/recursive-run-exit-status',
      'docker/compose-target-failed-to-solve',
      'maven-surefire/build-failure-block-only',
      'turbo/task-prefixed-wrappers'
    ]) {
      const text = readFileSync(join(CORPUS, 'quoted', file, 'ci-log.txt'), 'utf8')
      expect(extractFailuresFromString(text).findings).toEqual(
        extractFailuresFromString(text, { everyLine: true }).findings
      )
    }
  })

  test('the general rule: a thrown exception keeps its first frame in the project as a detail', () => {
    const output = outputOf(
      "function load(id) { throw new TypeError('no profile for customer ' + id) }\nload(4711)"
    )
    const [finding] = extractFailuresFromString(output).findings
    expect(finding?.key).toBe('error:TypeError: no profile for customer N')
    expect(finding?.details).toHaveLength(2)
    expect(finding?.details?.[1]).toMatch(/^\s+at load /)
  })

  test("the general rule: each failed test's line of a runner nobody parses, never a passing one", () => {
    // vitest's per-file list, cut before its failure blocks (a real log, see the quoted manifest):
    // with no block to read, the `×` lines are what a person calls the failures.
    const log = readFileSync(
      join(CORPUS, 'quoted', 'vitest/grouped-error-gh-log-failed/ci-log.txt'),
      'utf8'
    )
    const lines = log
      .split('\n')
      .filter((line) => line.includes('\tRun npm run test:integration\t'))
    const cut = lines
      .slice(
        0,
        lines.findIndex((line) => line.includes('Failed Tests'))
      )
      .join('\n')
    const found = keys(cut)
    expect(found).toHaveLength(6)
    for (const key of found) expect(key).toMatch(/^error:FAIL [a-z]/)
    expect(found).toContain(
      'error:FAIL cancels queued trigger work when paused and does not duplicate on remount'
    )
    expect(found.some((key) => key.includes('adoption.test.ts'))).toBe(false)
  })

  test('the general rule: errors at a place, never a warning or a note (gcc, quoted)', () => {
    const text = readFileSync(
      join(CORPUS, 'quoted', 'gcc/implicit-declaration-macro/ci-log.txt'),
      'utf8'
    )
    const found = keys(text)
    expect(found).toHaveLength(1)
    expect(found[0]).toMatch(/^error:jimiocompat\.h:implicit declaration/)
    // The same error shifted, under another root, with the runner's stamps: the same key.
    const noisy = text
      .replace('./jimiocompat.h:90:34', '/home/runner/work/jimtcl/jimtcl/jimiocompat.h:97:34')
      .split('\n')
      .map((line) => `2026-04-24T10:00:00.0000000Z ${line}`)
      .join('\n')
    expect(keys(noisy)).toEqual(found)
  })

  test.each(['eslint/hand-cut-root-file-lines', 'eslint/relative-file-lines'])(
    "eslint's stylish output with a blank line after every line (a console copied so): the same keys, never a warning: %s",
    (fixture) => {
      const text = readFileSync(join(CORPUS, 'quoted', fixture, 'ci-log.txt'), 'utf8')
      const found = keys(text)
      expect(found.length).toBeGreaterThan(0)
      const lines = text.split('\n')
      expect(keys(lines.join('\n\n'))).toEqual(found)
      // Two blank lines after a file line end it: its problems are no longer known to be its.
      expect(keys(lines.join('\n\n\n'))).toEqual([])
    }
  )

  test("shellcheck's tty format: each finding under its block's header, never its wiki list", () => {
    const text = readFileSync(
      join(CORPUS, 'quoted', 'shellcheck/tty-no-level-parse-errors/ci-log.txt'),
      'utf8'
    )
    const findings = extractFailuresFromString(text).findings
    expect(findings.map((finding) => finding.key)).toEqual([
      'shellcheck:SC1009:rubbish-shell-scriopt.sh',
      'shellcheck:SC1019:rubbish-shell-scriopt.sh',
      'shellcheck:SC1073:rubbish-shell-scriopt.sh',
      'shellcheck:SC1072:rubbish-shell-scriopt.sh'
    ])
    // The header, the script's line and the finding's marker, as printed.
    expect(findings[0]?.details).toEqual([
      'In rubbish-shell-scriopt.sh line 5:',
      `if [ -z x"FOO' == ]; then`,
      '   ^-- SC1009: The mentioned syntax error was in this test expression.'
    ])
    // A marker without its block, a header another tool prints, a block with no marker.
    expect(keys('   ^-- SC2086: Double quote to prevent globbing and word splitting.')).toEqual([])
    expect(keys('In file included from src/a.c line 3:\n#include "b.h"\n')).toEqual([])
    expect(keys('In ./a.sh line 3:\necho $x\n\nDid you mean:\n')).toEqual([])
  })

  test('pyright --outputjson: errors only, with the text form’s key; warnings never', () => {
    // Two diagnostics of a pyright 1.1.410 report of eight warnings (errorCount 0) as quoted
    // in a public repository, then an error added in the same form.
    const report = [
      '{',
      '    "version": "1.1.410",',
      '    "time": "1785725164034",',
      '    "generalDiagnostics": [',
      '        {',
      '            "file": "d:\\\\桌面文件\\\\软件项目_qt6\\\\tests\\\\test_phase_b_dialog.py",',
      '            "severity": "warning",',
      '            "message": "Object of type \\"None\\" is not subscriptable",',
      '            "range": {',
      '                "start": {',
      '                    "line": 107,',
      '                    "character": 14',
      '                },',
      '                "end": {',
      '                    "line": 107,',
      '                    "character": 17',
      '                }',
      '            },',
      '            "rule": "reportOptionalSubscript"',
      '        },',
      '        {',
      '            "file": "d:\\\\桌面文件\\\\软件项目_qt6\\\\tests\\\\test_phase_b_dialog.py",',
      '            "severity": "warning",',
      '            "message": "Cannot access attribute \\"_run_compensation_pipeline\\" for class \\"PhaseBDialog\\"\\n  Attribute \\"_run_compensation_pipeline\\" is unknown",',
      '            "range": {',
      '                "start": {',
      '                    "line": 508,',
      '                    "character": 40',
      '                },',
      '                "end": {',
      '                    "line": 508,',
      '                    "character": 66',
      '                }',
      '            },',
      '            "rule": "reportAttributeAccessIssue"',
      '        }',
      '    ],',
      '    "summary": {',
      '        "filesAnalyzed": 1,',
      '        "errorCount": 0,',
      '        "warningCount": 8,',
      '        "informationCount": 0,',
      '        "timeInSec": 1.688',
      '    }',
      '}'
    ]
    expect(keys(report.join('\n'))).toEqual([])
    // The second diagnostic an error, on a runner.
    const errorReport = [...report]
    errorReport[22] = '            "severity": "error",'
    const findings = extractFailuresFromString(
      errorReport
        .join('\n')
        .replaceAll(
          'd:\\\\桌面文件\\\\软件项目_qt6\\\\tests\\\\',
          '/home/runner/work/qt6/qt6/tests/'
        )
    ).findings
    expect(findings.map((finding) => finding.key)).toEqual([
      'pyright:reportAttributeAccessIssue:tests/test_phase_b_dialog.py'
    ])
    expect(findings[0]?.details).toEqual(
      [
        '"file": "tests/test_phase_b_dialog.py",',
        '"severity": "error",',
        '"message": "Cannot access attribute \\"_run_compensation_pipeline\\" for class \\"PhaseBDialog\\"\\n  Attribute \\"_run_compensation_pipeline\\" is unknown",',
        '"rule": "reportAttributeAccessIssue"'
      ].map((line) => `            ${line}`)
    )
    // An empty report after pyright's log lines: nothing.
    expect(
      keys(
        'No configuration file found.\nFound 1 source file\n{\n    "version": "1.1.157",\n    "generalDiagnostics": [],\n    "summary": {\n        "errorCount": 0\n    }\n}\n'
      )
    ).toEqual([])
  })

  test('an empty log has no findings', async () => {
    expect(keys('')).toEqual([])
    expect((await extractFailures(Readable.from([]))).findings).toEqual([])
  })
})
