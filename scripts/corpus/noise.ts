/**
 * Noisy variants of a corpus fixture: the same tool output as other CI systems, machines and
 * terminals would show it, made by rewriting the file. None of them may change a failure's
 * signature. Used by the corpus tests for every fixture, and runnable to look at the variants:
 *
 *   npx tsx scripts/corpus/noise.ts <fixture file> [variant]
 *
 * Each variant is deterministic (no clock, no randomness): the same file always gives the same
 * text. In a GitHub Actions job log (`.log`) the prefixes go after the runner's own timestamp.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export interface NoiseVariant {
  name: string
  /** What the variant imitates. */
  noise: string
  apply(text: string): string
}

const RUNNER_TIMESTAMP = /^(\ufeff?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{1,9}Z )/
/**
 * Puts `prefix(n)` before every line `n` of the tool's output: after the runner's timestamp in a
 * job log, and never before the runner's own `##[…]` lines, which no other system prefixes.
 */
function prefixLines(text: string, prefix: (index: number) => string): string {
  const lines = text.split('\n')
  const last = lines.at(-1) === '' ? lines.length - 1 : lines.length
  return lines
    .map((line, index) => {
      if (index >= last) return line
      const stamp = RUNNER_TIMESTAMP.exec(line)?.[1] ?? ''
      const bom = stamp === '' && line.startsWith('\ufeff') ? '\ufeff' : ''
      if (line.startsWith('##[', stamp.length)) return line
      return `${stamp || bom}${prefix(index)}${line.slice(stamp.length || bom.length)}`
    })
    .join('\n')
}

function two(n: number): string {
  return String(n).padStart(2, '0')
}

/** A clock that starts at 13:10:32 and moves one second every 7 lines. */
function clock(index: number): string {
  const seconds = 13 * 3600 + 10 * 60 + 32 + Math.floor(index / 7)
  return `${two(Math.floor(seconds / 3600) % 24)}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`
}

/** Replaces the generator's checkout (/home/runner/work/app/app, see lib.sh) with another root. */
function moveCheckout(text: string, root: string, separator: '/' | '\\'): string {
  return text.replace(
    /\/home\/runner\/work\/app\/app((?:\/[^\s'"`:()[\]]*)?)/g,
    (_match, rest: string) => `${root}${separator === '/' ? rest : rest.replaceAll('/', '\\')}`
  )
}

/** A line of a `gh run view --log` copy: job and step names, a tab each, then the runner's stamp. */
const GH_COPIED = /^[^\t\n]{1,300}\t[^\t\n]{1,300}\t\ufeff?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/

/**
 * The form `gh run view --log` (and `--log-failed`) prints: `<job>\t<step>\t` before every line,
 * the step's first line with its BOM after them; a line of raw output gets a runner timestamp.
 */
function ghRunView(text: string): string {
  const lines = text.split('\n')
  const last = lines.at(-1) === '' ? lines.length - 1 : lines.length
  return lines
    .map((line, index) => {
      if (index >= last) return line
      const prefix = 'test (ubuntu-latest, 20)\tRun tests\t'
      // A line of a log that is such a copy already stays as it is.
      if (GH_COPIED.test(line)) return line
      const stamped = RUNNER_TIMESTAMP.test(line)
      if (stamped) return `${prefix}${line}`
      const bom = line.startsWith('\ufeff') ? '\ufeff' : ''
      return `${prefix}${bom}2026-07-28T${clock(index)}.1234567Z ${line.slice(bom.length)}`
    })
    .join('\n')
}

/**
 * A job log as the web UI's copy gives it: no timestamps or BOM, the step header a plain
 * `Run …` line, `##[error]` shown as `Error: ` and the group end gone.
 */
function webUiCopy(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\ufeff?(?:\S+Z )?##\[endgroup\]/.test(line))
    .map((line) =>
      line
        .replace(RUNNER_TIMESTAMP, '')
        .replace(/^\ufeff/, '')
        .replace(/^##\[group\]/, '')
        .replace(/^##\[error\]/, 'Error: ')
    )
    .join('\n')
}

export const NOISE_VARIANTS: readonly NoiseVariant[] = [
  {
    name: 'gh-run-view',
    noise: 'copied with gh run view --log: job and step names and a tab before every line',
    apply: ghRunView
  },
  {
    name: 'web-ui-copy',
    noise: "copied from the web UI: no timestamps, ##[error] shown as 'Error: '",
    apply: webUiCopy
  },
  {
    name: 'jenkins-clock',
    noise: "a clock before every line, as Jenkins' timestamper prints it (13:10:32 )",
    apply: (text) => prefixLines(text, (index) => `${clock(index)} `)
  },
  {
    name: 'jenkins-iso',
    noise: 'a bracketed date and time before every line ([2026-07-28T13:10:32.123Z] )',
    apply: (text) =>
      prefixLines(
        text,
        (index) => `[2026-07-28T${clock(index)}.${String(index % 1000).padStart(3, '0')}Z] `
      )
  },
  {
    name: 'gitlab',
    noise: "GitLab's timestamp and stream before every line (2026-07-28T13:10:32.123456Z 00O )",
    apply: (text) =>
      prefixLines(
        text,
        (index) => `2026-07-28T${clock(index)}.${String(index).padStart(6, '0')}Z 00O `
      )
  },
  {
    name: 'buildkit',
    noise: "Docker BuildKit's plain progress prefix (#12 16.69 ): the tool ran in a RUN step",
    apply: (text) => prefixLines(text, (index) => `#12 ${(16.69 + index / 100).toFixed(2)} `)
  },
  {
    name: 'obs-build-timer',
    noise:
      "the Open Build Service's seconds since the build began ([   14s] ): the tool ran in a package build",
    apply: (text) =>
      prefixLines(text, (index) => `[${String(14 + Math.floor(index / 9)).padStart(4)}s] `)
  },
  {
    name: 'gitlab-checkout',
    noise: 'another CI checkout root on Linux (/builds/shop/app)',
    apply: (text) => moveCheckout(text, '/builds/shop/app', '/')
  },
  {
    name: 'macos-checkout',
    noise: "a developer's checkout on macOS (/Users/dev/src/app)",
    apply: (text) => moveCheckout(text, '/Users/dev/src/app', '/')
  },
  {
    name: 'windows-checkout',
    noise: 'the Windows runner checkout with backslashes (D:\\a\\app\\app\\src\\…)',
    apply: (text) => moveCheckout(text, 'D:\\a\\app\\app', '\\')
  },
  {
    name: 'windows-checkout-slashes',
    noise:
      "a developer's checkout on Windows with forward slashes (C:/Users/dev/source/repos/app/…)",
    apply: (text) => moveCheckout(text, 'C:/Users/dev/source/repos/app', '/')
  },
  {
    name: 'shifted-lines',
    noise:
      'every line number after a file name moved down by 7 (file.ts:12:5, File.cs(12,5), :line 12)',
    apply: (text) =>
      text
        .replace(
          /(\.[A-Za-z]{1,5})([:(])(\d{1,6})(?=[:,)\s]|$)/gm,
          (_m, ext: string, sep: string, n: string) => `${ext}${sep}${Number(n) + 7}`
        )
        .replace(/(:line )(\d{1,6})/g, (_m, word: string, n: string) => `${word}${Number(n) + 7}`)
  },
  {
    name: 'colour',
    noise: 'ANSI colour around the words failures are found by (FAIL, error, Error, ●, ✖, ---- )',
    apply: (text) =>
      text.replace(
        /\b(FAILED|FAIL|ERROR|error|Error)\b|[●✖]/g,
        (word) => `\u001b[1;31m${word}\u001b[22;39m`
      )
  }
]

const invokedDirectly =
  process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]
if (invokedDirectly) {
  const [file, only] = process.argv.slice(2)
  if (file === undefined) throw new Error('usage: noise.ts <fixture file> [variant]')
  const text = readFileSync(file, 'utf8')
  for (const variant of NOISE_VARIANTS) {
    if (only !== undefined && variant.name !== only) continue
    process.stdout.write(`==> ${variant.name}: ${variant.noise}\n${variant.apply(text)}\n`)
  }
}
