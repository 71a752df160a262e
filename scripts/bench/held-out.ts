/**
 * The held-out real logs (`__fixtures__/held-out/`): logs people pasted into public threads,
 * each with the keys a person named for it before the extractor first read it. Each log is
 * scored as BENCHMARKS.md describes: good (exactly the named keys), partial (some of them and
 * nothing else), empty (only the unknown-tool fallback, or nothing) or wrong (a key for
 * something that is not the failure). A second batch (`batch-2/`, same manifest format) holds
 * kinds the first lacks; it is scored apart. `npx tsx scripts/bench/index.ts --only held-out`.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { markdownTable } from 'markdown-table'
import { renderBriefFailurePart } from '../../src/cli/brief.js'
import { extractFailuresFromString } from '../../src/core/signature/extract.js'
import { buildKey } from '../../src/core/signature/normalise.js'
import type { Finding } from '../../src/core/signature/types.js'
import { NOISE_VARIANTS } from '../corpus/noise.js'

export const HELD_OUT_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '__fixtures__',
  'held-out'
)

/** The second batch, collected after the first had been scored (its own manifest). */
export const HELD_OUT_BATCH_2_DIR = join(HELD_OUT_DIR, 'batch-2')

/**
 * The third batch (issue 27): the JavaScript/TypeScript families and wrappers the other batches
 * have least (tsc --build, vitest, jest, node:test, mocha, Cypress, npm/pnpm/turbo, docker), its
 * own manifest.
 */
export const HELD_OUT_BATCH_3_DIR = join(HELD_OUT_DIR, 'batch-3')

/** The fourth batch (issue 27): the non-JavaScript tool families, its own manifest. */
export const HELD_OUT_BATCH_4_DIR = join(HELD_OUT_DIR, 'batch-4')

export type Verdict = 'good' | 'partial' | 'wrong' | 'empty'

/** What a fixer needs of a log, each a string that must reach the brief (blanks collapsed). */
export type HeldOutFacts = Partial<
  Record<'message' | 'expected' | 'received' | 'location', string | string[]>
>

interface HeldOutLog {
  file: string
  tool: string
  source: string
  style: string
  expected: string[]
  facts?: HeldOutFacts
}

export interface ScoredLog extends HeldOutLog {
  found: string[]
  verdict: Verdict
  /** The facts the brief carries and misses (only for a log with `facts`). */
  factsCarried: string[]
  factsMissed: string[]
  /** The noisy copies whose keys differ from the log's own (see NOISY_COPIES). */
  noisyChanged: string[]
}

/** The state file's default bound, the budget the `brief` CLI renders the failure part in. */
const BRIEF_MAX_BYTES = 30_720

const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim()

/** Every fact of a log, as a list. */
export function factsOf(facts: HeldOutFacts | undefined): string[] {
  if (facts === undefined) return []
  return Object.values(facts).flatMap((value) =>
    value === undefined ? [] : typeof value === 'string' ? [value] : value
  )
}

/**
 * The facts of a log the brief carries: the failure part rendered for the log's findings as the
 * `brief` CLI renders it (src/cli/brief.ts), each fact looked for as a substring, blanks collapsed
 * on both sides.
 */
export function factsCarried(
  file: string,
  findings: readonly Finding[],
  facts: readonly string[]
): { carried: string[]; missed: string[] } {
  const brief = collapse(
    renderBriefFailurePart([{ check: file, findings }], BRIEF_MAX_BYTES).join('\n')
  )
  const carried = facts.filter((fact) => brief.includes(collapse(fact)))
  return { carried, missed: facts.filter((fact) => !carried.includes(fact)) }
}

const RUNNER_STAMP =
  /^((?:[^\t\n]{1,200}\t[^\t\n]{1,200}\t)?\ufeff?)\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{1,9}Z /
const two = (n: number): string => String(n).padStart(2, '0')

/**
 * Runner timestamps of another run: a log that has them gets other times, a log without them
 * gets one before every line (as the raw job log would show it).
 */
function otherTimestamps(text: string): string {
  const lines = text.split('\n')
  const stamped = lines.some((line) => RUNNER_STAMP.test(line))
  return lines
    .map((line, index) => {
      if (index === lines.length - 1 && line === '') return line
      const s = 7 * 3600 + 3 * 60 + 5 + Math.floor(index / 3)
      const stamp = `2027-03-09T${two(Math.floor(s / 3600) % 24)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}.${String(index % 10_000_000).padStart(7, '0')}Z `
      if (stamped) return line.replace(RUNNER_STAMP, (_m, lead: string) => `${lead}${stamp}`)
      return `${stamp}${line}`
    })
    .join('\n')
}

/**
 * A checkout on another runner: GitHub's Linux roots (`/home/runner/work/<r>/<r>`, a container
 * job's `/__w/<r>/<r>`) moved to the macOS runner's (`/Users/runner/work/<r>/<r>`), and the
 * macOS one to Linux. A log with no runner root is left as it is.
 */
function otherCheckoutRoot(text: string): string {
  return text.replace(
    /\/(home\/runner\/work|__w|Users\/runner\/work)\/([^/\s]+)\/\2(?=[/\s]|$)/g,
    (_match, root: string, repo: string) =>
      root === 'Users/runner/work'
        ? `/home/runner/work/${repo}/${repo}`
        : `/Users/runner/work/${repo}/${repo}`
  )
}

const shiftedLines = NOISE_VARIANTS.find((variant) => variant.name === 'shifted-lines')

/** The noisy copies each log must give the same keys in. */
export const NOISY_COPIES: readonly { name: string; apply: (text: string) => string }[] = [
  { name: 'timestamps', apply: otherTimestamps },
  { name: 'shifted-lines', apply: (text) => shiftedLines?.apply(text) ?? text },
  { name: 'checkout-root', apply: otherCheckoutRoot }
]

function keysOf(text: string): string[] {
  return [...new Set(extractFailuresFromString(text).findings.map((finding) => finding.key))].sort()
}

/** The unknown-tool fallback's keys: a masked error line, the runner's own error lines. */
function isFallback(key: string): boolean {
  return key.startsWith('error:') || key.startsWith('gha:')
}

/**
 * One log's verdict. An empty `expected` means no key names the failure: only fallback keys
 * (or none) are right. A named fallback key must be found exactly (it says which line is the
 * failure, as against a wrapper's line).
 */
export function verdictOf(expectedKeys: readonly string[], found: readonly string[]): Verdict {
  const expected = expectedKeys.map((key) => buildKey(key))
  if (expected.length === 0) return found.every(isFallback) ? 'good' : 'wrong'
  const extra = found.filter((key) => !expected.includes(key))
  const hits = found.filter((key) => expected.includes(key))
  if (extra.length === 0 && hits.length === expected.length) return 'good'
  const namedFallback = expected.every(isFallback)
  if (extra.some((key) => namedFallback || !isFallback(key))) return 'wrong'
  return hits.length > 0 ? 'partial' : 'empty'
}

export function scoreHeldOut(dir: string = HELD_OUT_DIR): ScoredLog[] {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    logs: HeldOutLog[]
  }
  return manifest.logs.map((log) => {
    const text = readFileSync(join(dir, log.file), 'utf8')
    const findings = extractFailuresFromString(text).findings
    const found = findings.map((finding) => finding.key)
    const facts = factsCarried(log.file, findings, factsOf(log.facts))
    const own = JSON.stringify([...new Set(found)].sort())
    const noisyChanged = NOISY_COPIES.filter(
      (copy) => JSON.stringify(keysOf(copy.apply(text))) !== own
    ).map((copy) => copy.name)
    return {
      ...log,
      found,
      verdict: verdictOf(log.expected, found),
      factsCarried: facts.carried,
      factsMissed: facts.missed,
      noisyChanged
    }
  })
}

const VERDICTS: readonly Verdict[] = ['good', 'partial', 'wrong', 'empty']

/** Every batch's table, each under its own heading. */
export function runHeldOutBench(options: { details?: boolean } = {}): string {
  return [
    '### First batch',
    '',
    heldOutTable(scoreHeldOut(HELD_OUT_DIR), options),
    '',
    '### Second batch',
    '',
    heldOutTable(scoreHeldOut(HELD_OUT_BATCH_2_DIR), options),
    '',
    '### Third batch',
    '',
    heldOutTable(scoreHeldOut(HELD_OUT_BATCH_3_DIR), options),
    '',
    '### Fourth batch',
    '',
    heldOutTable(scoreHeldOut(HELD_OUT_BATCH_4_DIR), options)
  ].join('\n')
}

function heldOutTable(scored: readonly ScoredLog[], options: { details?: boolean }): string {
  const tools = [...new Set(scored.map((log) => log.tool))].sort()
  const count = (logs: readonly ScoredLog[], verdict: Verdict): number =>
    logs.filter((log) => log.verdict === verdict).length
  const factCount = (logs: readonly ScoredLog[]): string => {
    const carried = logs.reduce((n, log) => n + log.factsCarried.length, 0)
    const all = carried + logs.reduce((n, log) => n + log.factsMissed.length, 0)
    return all === 0 ? '—' : `${carried}/${all}`
  }
  const row = (name: string, logs: readonly ScoredLog[]): string[] => [
    name,
    String(logs.length),
    ...VERDICTS.map((verdict) => String(count(logs, verdict))),
    factCount(logs),
    `${logs.filter((log) => log.noisyChanged.length === 0).length}/${logs.length}`
  ]
  const table = markdownTable(
    [
      ['tool', 'logs', ...VERDICTS, 'brief facts carried', 'noisy copies, same keys'],
      ...tools.map((tool) =>
        row(
          tool,
          scored.filter((log) => log.tool === tool)
        )
      ),
      row('**all**', scored)
    ],
    { align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'] }
  )
  const good = count(scored, 'good')
  const carried = scored.reduce((n, log) => n + log.factsCarried.length, 0)
  const facts = carried + scored.reduce((n, log) => n + log.factsMissed.length, 0)
  const percent = (n: number, of: number): number => Math.round((100 * n) / Math.max(of, 1))
  const steady = scored.filter((log) => log.noisyChanged.length === 0).length
  const lines = [
    table,
    '',
    `${good}/${scored.length} good (${percent(good, scored.length)}%), ${count(scored, 'wrong')} wrong` +
      (facts > 0 ? `; brief facts carried ${carried}/${facts} (${percent(carried, facts)}%)` : '') +
      `; noisy copies (${NOISY_COPIES.map((copy) => copy.name).join(', ')}) give the same keys for ${steady}/${scored.length} logs`
  ]
  if (options.details === true) {
    for (const log of scored) {
      const problems = [
        log.verdict === 'good' ? '' : log.verdict,
        log.factsMissed.length > 0 ? 'facts missed' : '',
        log.noisyChanged.length > 0 ? `keys change in ${log.noisyChanged.join(', ')}` : ''
      ].filter((problem) => problem !== '')
      if (problems.length === 0) continue
      lines.push('', `- ${log.file} (${problems.join('; ')}): found ${JSON.stringify(log.found)}`)
      if (log.verdict !== 'good') lines.push(`  expected ${JSON.stringify(log.expected)}`)
      if (log.factsMissed.length > 0)
        lines.push(`  facts missed ${JSON.stringify(log.factsMissed)}`)
    }
  }
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(runHeldOutBench({ details: process.argv.includes('--details') }))
}
