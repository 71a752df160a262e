/**
 * Benchmark of the failure extractor on large job logs (streaming, flat memory: README "Failure signatures").
 *
 *   npx tsx scripts/bench/signature.ts [--sizes 200,1024]
 *
 * For each size (MiB) it writes a GitHub Actions job log to a temp file (timestamped lines of
 * passing-test and build noise, with the failure output of real corpus files mixed in), runs
 * the extractor over it in a child process (throughput, peak RSS from
 * `process.resourceUsage().maxRSS`), runs `grep -E` with the parsers' line patterns over the
 * same file, prints a markdown table and deletes the file.
 */
import { spawn, spawnSync } from 'node:child_process'
import {
  createReadStream,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
  closeSync
} from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { markdownTable } from 'markdown-table'
import { extractFailures } from '../../src/core/signature/extract.js'
import { grepEquivalentPatterns } from '../../src/core/signature/parsers/index.js'

const MiB = 1024 * 1024
const here = dirname(fileURLToPath(import.meta.url))
const corpusDir = join(here, '..', '..', '__fixtures__', 'corpus')

export interface SignatureBenchOptions {
  /** Log sizes in MiB; default 200 and 1024. */
  sizesMiB?: number[]
  /** Where the temp logs go; default the OS temp dir. */
  tmpDir?: string
  /** Progress messages (default: none). */
  progress?: (message: string) => void
}

interface ChildResult {
  bytes: number
  seconds: number
  cpuSeconds: number
  maxRssKiB: number
  keys: string[]
}

/** Read size of the child's file stream. */
const CHUNK_BYTES = 256 * 1024

const NOISE: readonly string[] = [
  '  ✓ adds the prices of two items (3 ms)',
  'PASS __tests__/cart.test.js',
  '    ✓ formats the invoice header (12 ms)',
  'tests/test_orders.py::test_total[case-7] PASSED                            [ 45%]',
  '=== RUN   TestParseHeader/empty_input',
  '--- PASS: TestParseHeader (0.00s)',
  'ok  \texample.com/shop/cart\t0.112s',
  'test tests::parses_negative ... ok',
  '[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.204 s -- in com.example.CartTest',
  'npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory.',
  '   Compiling serde v1.0.219',
  '  Downloaded registry.example/packages/lodash-4.17.21.tgz (542 kB) in 14ms',
  '\u001b[32m✓\u001b[39m src/report.test.ts (9 tests) 57ms',
  'webpack 5.99.9 compiled successfully in 2314 ms',
  '  console.log',
  '    at Object.<anonymous> (/home/runner/work/shop/shop/src/cart.js:14:11)',
  'Collecting requests>=2.31 (from -r requirements.txt (line 3))',
  '> Task :compileJava UP-TO-DATE'
]

/** The failing parts of real tool output, from corpus files (their whole text). */
function corpusFailures(): string[] {
  const manifestPath = join(corpusDir, 'manifest.json')
  if (!existsSync(manifestPath)) return []
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    classes: { files: string[] }[]
  }
  const texts: string[] = []
  for (const cls of manifest.classes) {
    const file = cls.files.find((name) => name.endsWith('.txt'))
    if (file !== undefined && existsSync(join(corpusDir, file))) {
      texts.push(readFileSync(join(corpusDir, file), 'utf8'))
    }
  }
  return texts
}

/** Writes a job log of about `sizeMiB` MiB: mostly noise, corpus failures at ten points. */
export function writeJobLog(path: string, sizeMiB: number): number {
  const target = sizeMiB * MiB
  const failures = corpusFailures()
  const fd = openSync(path, 'w')
  let written = 0
  let line = 0
  let clock = Date.parse('2026-07-28T23:19:32.000Z')
  const insertEvery = Math.max(1, Math.floor(target / 10))
  let nextInsert = insertEvery
  let failureIndex = 0
  const stamp = (): string => {
    clock += 1
    return `${new Date(clock).toISOString().slice(0, -1)}4965Z `
  }
  try {
    written += writeSync(fd, `\ufeff${stamp()}##[group]Run npm test\n${stamp()}##[endgroup]\n`)
    while (written < target) {
      const parts: string[] = []
      for (let i = 0; i < 4096; i++) {
        parts.push(stamp(), NOISE[line % NOISE.length] ?? '', '\n')
        line += 1
      }
      written += writeSync(fd, parts.join(''))
      if (written >= nextInsert && failures.length > 0) {
        const text = failures[failureIndex % failures.length] ?? ''
        failureIndex += 1
        const stamped = text
          .split('\n')
          .map((l) => `${stamp()}${l}`)
          .join('\n')
        written += writeSync(fd, `${stamped}\n`)
        nextInsert += insertEvery
      }
    }
    written += writeSync(fd, `${stamp()}##[error]Process completed with exit code 1.\n`)
  } finally {
    closeSync(fd)
  }
  return written
}

function runChild(path: string): Promise<ChildResult> {
  const script = fileURLToPath(import.meta.url)
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, '--child', path], {
      stdio: ['ignore', 'pipe', 'inherit']
    })
    let out = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => (out += chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`benchmark child exited with ${code}`))
      else resolve(JSON.parse(out) as ChildResult)
    })
  })
}

/** In the child: stream the file through the extractor and report. */
async function childMain(path: string): Promise<void> {
  const started = performance.now()
  const cpu = process.cpuUsage()
  const result = await extractFailures(createReadStream(path, { highWaterMark: CHUNK_BYTES }), {
    maxBytes: Number.POSITIVE_INFINITY
  })
  const seconds = (performance.now() - started) / 1000
  const used = process.cpuUsage(cpu)
  const report: ChildResult = {
    bytes: result.bytesRead,
    seconds,
    cpuSeconds: (used.user + used.system) / 1e6,
    maxRssKiB: process.resourceUsage().maxRSS,
    keys: result.findings.map((finding) => finding.key)
  }
  process.stdout.write(JSON.stringify(report))
}

function timeGrep(path: string): { seconds: number; matches: number } {
  const args = ['-E', '-c', ...grepEquivalentPatterns().flatMap((pattern) => ['-e', pattern]), path]
  const started = performance.now()
  const run = spawnSync('grep', args, { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } })
  const seconds = (performance.now() - started) / 1000
  if (run.error !== undefined) throw run.error
  return { seconds, matches: Number.parseInt(run.stdout.trim(), 10) || 0 }
}

export async function runSignatureBench(options: SignatureBenchOptions = {}): Promise<string> {
  const sizes = options.sizesMiB ?? [200, 1024]
  const progress = options.progress ?? (() => undefined)
  const dir = mkdtempSync(join(options.tmpDir ?? tmpdir(), 'signature-bench-'))
  const rows: string[][] = []
  try {
    for (const size of sizes) {
      const path = join(dir, `job-${size}.log`)
      progress(`writing a ${size} MiB job log`)
      const bytes = writeJobLog(path, size)
      progress(`extracting failures from ${(bytes / MiB).toFixed(0)} MiB`)
      const child = await runChild(path)
      progress(`grep -E over the same file`)
      const grep = timeGrep(path)
      rmSync(path, { force: true })
      const mbps = child.bytes / MiB / child.seconds
      const cpuMbps = child.bytes / MiB / child.cpuSeconds
      const grepMbps = bytes / MiB / grep.seconds
      rows.push([
        `${(bytes / MiB).toFixed(0)} MiB`,
        mbps.toFixed(0),
        cpuMbps.toFixed(0),
        (child.maxRssKiB / 1024).toFixed(0),
        String(child.keys.length),
        grepMbps.toFixed(0),
        `${(child.seconds / grep.seconds).toFixed(2)}×`
      ])
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const cpu = cpus()
  const machine = `${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, Node ${process.version}`
  return [
    `Failure extraction over a GitHub Actions job log (one core, streaming) — ${machine}`,
    '',
    markdownTable([
      [
        'log size',
        'extractor MB/s (wall)',
        'extractor MB/s (CPU)',
        'peak RSS (MiB)',
        'keys found',
        'grep -E MB/s (wall)',
        'time vs grep'
      ],
      ...rows
    ]),
    '',
    `Extractor: one child process per size (\`node --import tsx\`, whose own baseline RSS is about 75 MiB), ` +
      `streaming the file in ${CHUNK_BYTES / 1024} KiB reads; CPU MB/s divides by user+system time. ` +
      `grep: \`LC_ALL=C grep -E -c\` with the ${grepEquivalentPatterns().length} line patterns the parsers react to. MB = MiB.`
  ].join('\n')
}

function parseSizes(argv: readonly string[]): number[] | undefined {
  const index = argv.indexOf('--sizes')
  const value =
    index === -1 ? argv.find((arg) => arg.startsWith('--sizes='))?.slice(8) : argv[index + 1]
  if (value === undefined) return undefined
  const sizes = value.split(',').map((part) => Number.parseFloat(part))
  if (sizes.some((size) => !Number.isFinite(size) || size <= 0)) {
    throw new Error(`--sizes takes positive MiB figures separated by commas, e.g. --sizes 200,1024`)
  }
  return sizes
}

const invokedDirectly =
  process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]
if (invokedDirectly) {
  const childIndex = process.argv.indexOf('--child')
  if (childIndex !== -1) {
    await childMain(process.argv[childIndex + 1] ?? '')
  } else {
    const table = await runSignatureBench({
      sizesMiB: parseSizes(process.argv.slice(2)),
      progress: (message) => process.stderr.write(`${message}\n`)
    })
    process.stdout.write(`${table}\n`)
  }
}
