// Wraps a real tool's output (stdin) in the form of a GitHub Actions job log (stdout):
// a UTF-8 BOM, a `YYYY-MM-DDTHH:MM:SS.fffffffZ ` timestamp before every line, the runner's
// `##[group]Run <command>` … `##[endgroup]` step header, the tool's lines unchanged, and the
// runner's `##[error]Process completed with exit code N.` trailer.
//
// Usage: node wrap-job-log.mjs --command "<shown command>" --exit-code N --seed "<text>" < out > log
// The seed picks the start time and the gaps between lines, so one seed always gives the same log
// and different seeds give different timestamps.
import { readFileSync } from 'node:fs'
import process from 'node:process'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    command: { type: 'string' },
    'exit-code': { type: 'string' },
    seed: { type: 'string' }
  }
})
const command = values.command
const exitCode = Number(values['exit-code'])
if (command === undefined || values.seed === undefined || !Number.isInteger(exitCode)) {
  throw new Error('usage: wrap-job-log.mjs --command <cmd> --exit-code <n> --seed <text> < output')
}

// FNV-1a hash of the seed, then a small xorshift generator: deterministic, no dependency.
let state = 2166136261
for (const char of values.seed) {
  state = Math.imul(state ^ char.codePointAt(0), 16777619) >>> 0
}
const next = () => {
  state ^= state << 13
  state >>>= 0
  state ^= state >>> 17
  state ^= state << 5
  state >>>= 0
  return state
}

// Time in units of 100 ns (the runner prints 7 fractional digits).
const TICKS_PER_MS = 10_000n
let ticks = BigInt(Date.UTC(2026, 6, 28, 23, 0, 0)) * TICKS_PER_MS
ticks += BigInt(next() % 3_600_000) * TICKS_PER_MS + BigInt(next() % 10_000)
const stamp = (gapTicks) => {
  ticks += BigInt(gapTicks)
  const ms = ticks / TICKS_PER_MS
  const iso = new Date(Number(ms)).toISOString() // 2026-07-28T23:19:32.496Z
  const fraction = (ticks % (TICKS_PER_MS * 1000n)).toString().padStart(7, '0')
  return `${iso.slice(0, 19)}.${fraction}Z `
}

const toolText = readFileSync(0, 'utf8')
const toolLines = toolText.split('\n')
if (toolLines.at(-1) === '') toolLines.pop()

const lines = []
const emit = (text, gapTicks) => lines.push(stamp(gapTicks) + text)
emit(`##[group]Run ${command.split('\n')[0]}`, 0)
for (const commandLine of command.split('\n')) {
  emit(`\u001b[36;1m${commandLine}\u001b[0m`, 1 + (next() % 400))
}
emit('shell: /usr/bin/bash -e {0}', 1 + (next() % 400))
emit('env:', 1 + (next() % 400))
emit('  CI: true', 1 + (next() % 200))
emit('##[endgroup]', 1 + (next() % 400))
// The first tool line comes after the process starts; later ones are close together.
let gap = 200_000 + (next() % 3_000_000)
for (const toolLine of toolLines) {
  emit(toolLine, gap)
  gap = 1 + (next() % 50_000)
}
emit(`##[error]Process completed with exit code ${exitCode}.`, 100_000 + (next() % 900_000))

process.stdout.write('\ufeff' + lines.join('\n') + '\n')
