// Cuts a tool's output (stdin) where a log that ended early would end (stdout): everything from
// the last line matching the pattern (argument 1, a JavaScript regular expression) on goes, and so
// do the blank lines before that line. Exits 1 when no line matches.
//
// Usage: node cut-log.mjs '<pattern>' < output > cut-output
import { readFileSync } from 'node:fs'
import process from 'node:process'

const pattern = new RegExp(process.argv[2] ?? '')
const lines = readFileSync(0, 'utf8').split('\n')
const at = lines.findLastIndex((line) => pattern.test(line))
if (at === -1) process.exit(1)
let end = at
while (end > 0 && lines[end - 1].trim() === '') end -= 1
process.stdout.write(lines.slice(0, end).join('\n') + '\n')
