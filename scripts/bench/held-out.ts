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
import { extractFailuresFromString } from '../../src/core/signature/extract.js'
import { buildKey } from '../../src/core/signature/normalise.js'

export const HELD_OUT_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '__fixtures__',
  'held-out'
)

/** The second batch, collected after the first had been scored (its own manifest). */
export const HELD_OUT_BATCH_2_DIR = join(HELD_OUT_DIR, 'batch-2')

export type Verdict = 'good' | 'partial' | 'wrong' | 'empty'

interface HeldOutLog {
  file: string
  tool: string
  source: string
  style: string
  expected: string[]
}

export interface ScoredLog extends HeldOutLog {
  found: string[]
  verdict: Verdict
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
    const found = extractFailuresFromString(text).findings.map((finding) => finding.key)
    return { ...log, found, verdict: verdictOf(log.expected, found) }
  })
}

const VERDICTS: readonly Verdict[] = ['good', 'partial', 'wrong', 'empty']

/** Both batches' tables, each under its own heading. */
export function runHeldOutBench(options: { details?: boolean } = {}): string {
  return [
    '### First batch',
    '',
    heldOutTable(scoreHeldOut(HELD_OUT_DIR), options),
    '',
    '### Second batch',
    '',
    heldOutTable(scoreHeldOut(HELD_OUT_BATCH_2_DIR), options)
  ].join('\n')
}

function heldOutTable(scored: readonly ScoredLog[], options: { details?: boolean }): string {
  const tools = [...new Set(scored.map((log) => log.tool))].sort()
  const count = (logs: readonly ScoredLog[], verdict: Verdict): number =>
    logs.filter((log) => log.verdict === verdict).length
  const row = (name: string, logs: readonly ScoredLog[]): string[] => [
    name,
    String(logs.length),
    ...VERDICTS.map((verdict) => String(count(logs, verdict)))
  ]
  const table = markdownTable(
    [
      ['tool', 'logs', ...VERDICTS],
      ...tools.map((tool) =>
        row(
          tool,
          scored.filter((log) => log.tool === tool)
        )
      ),
      row('**all**', scored)
    ],
    { align: ['l', 'r', 'r', 'r', 'r', 'r'] }
  )
  const good = count(scored, 'good')
  const lines = [
    table,
    '',
    `${good}/${scored.length} good (${Math.round((100 * good) / scored.length)}%), ${count(scored, 'wrong')} wrong`
  ]
  if (options.details === true) {
    for (const log of scored.filter((entry) => entry.verdict !== 'good')) {
      lines.push('', `- ${log.file} (${log.verdict}): found ${JSON.stringify(log.found)}`)
      lines.push(`  expected ${JSON.stringify(log.expected)}`)
    }
  }
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(runHeldOutBench({ details: process.argv.includes('--details') }))
}
