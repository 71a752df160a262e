/**
 * Adversarial log lines for the parsers (shared by the fuzz tests and the timing script):
 * long runs of the characters their patterns repeat, after prefixes that make each parser
 * take the line seriously.
 */

/** Units repeated to fill a line: what the parsers' patterns repeat or stop at. */
export const RUN_UNITS = [
  ' ',
  '\t',
  '0',
  '9:',
  ':',
  '/',
  'a/',
  '(',
  ')',
  '(1,',
  '>',
  ' > ',
  '`',
  '✕',
  '●',
  '›',
  '×',
  '.',
  '-',
  '=',
  '_',
  '[',
  ']',
  '::',
  '"',
  "'",
  '\\',
  '|',
  '#',
  'a',
  'error ',
  'Error: ',
  'at ',
  'a.ts:1:',
  'x.py::',
  '::test_',
  'TS',
  'E0',
  '→',
  ' ✓',
  'FAIL ',
  '--- ',
  '[ERROR] ',
  'Tests run: ',
  '🚀'
] as const

/** Starts of lines that each parser reacts to (and '' for none). */
export const LINE_PREFIXES = [
  '',
  'error TS2339: ',
  'src/a.ts(1,1): error TS2339: ',
  'src/a.ts:1:1 - error TS2339: ',
  '/home/runner/work/r/r/src/a.ts',
  '  1:1  error  ',
  'FAIL ',
  ' FAIL  src/a.test.ts > ',
  '  ● ',
  '  ✕ ',
  '  × ',
  'not ok 1 - ',
  '    at ',
  '  1) ',
  'E   ',
  'FAILED tests/test_a.py::',
  'tests/a.py:1: error: ',
  'a.py:1:1: E501 ',
  '--- FAIL: ',
  '    a_test.go:1: ',
  'error[E0308]: ',
  'test a::b ... ',
  '[ERROR] ',
  '[ERROR] Tests run: 1, Failures: 1 <<< FAILURE! - in ',
  'A.java:[1,1] error: ',
  '> Task :',
  '  Failed ',
  '##[error]',
  'Error: ',
  'fatal: '
] as const

/** A line of `length` characters: `prefix`, then `unit` repeated (cut to length). */
export function adversarialLine(prefix: string, unit: string, length: number): string {
  const body = unit.repeat(Math.ceil(Math.max(0, length - prefix.length) / unit.length))
  return (prefix + body).slice(0, length)
}
