/**
 * Measures the failure signatures on the corpus, per tool: invariance (every file of a class,
 * and every noisy variant of every file, gives the class's one signature) and discrimination
 * (no two classes of a tool share a signature). The quoted fixtures are measured too, and their
 * keys are compared with the keys a person named for them; the held-out ones are reported apart.
 * The corpus tests assert on these figures; `npx tsx scripts/corpus/measure.ts` prints the tables.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { markdownTable } from 'markdown-table'
import { extractFailuresFromString } from '../../src/core/signature/extract.js'
import { buildKey } from '../../src/core/signature/normalise.js'
import { signatureOf } from '../../src/core/signature/signature.js'
import { NOISE_VARIANTS } from './noise.js'

export const CORPUS_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '__fixtures__',
  'corpus'
)

export interface MeasuredClass {
  id: string
  tool: string
  /** `generated` (a tool run here), or a quoted fixture's set. */
  set: 'generated' | 'tuning' | 'held-out'
  /** The class's signature: that of its first file. */
  signature: string
  /** Files and noisy variants whose signature differs from the class's. */
  deviations: string[]
  /** Files and noisy variants read. */
  readings: number
  /** Quoted fixtures: the keys a person named, and whether the keys found are exactly those. */
  expected?: string[]
  matchesExpected?: boolean
}

export interface ToolRow {
  tool: string
  classes: number
  readings: number
  invariant: number
  pairs: number
  distinct: number
}

interface GeneratedManifest {
  classes: { id: string; tool: string; files: string[] }[]
}
interface QuotedManifest {
  classes: {
    id: string
    tool: string
    set: 'tuning' | 'held-out'
    file: string
    expected: string[]
  }[]
}

function read(file: string): string {
  return readFileSync(join(CORPUS_DIR, file), 'utf8')
}

export function signatureOfText(text: string): string {
  return signatureOf(extractFailuresFromString(text).findings.map((finding) => finding.key)).full
}

function measureFiles(files: readonly string[]): {
  signature: string
  deviations: string[]
  readings: number
} {
  let signature: string | undefined
  const deviations: string[] = []
  let readings = 0
  for (const file of files) {
    const text = read(file)
    const readingsOfFile: [string, string][] = [
      [file, text],
      ...NOISE_VARIANTS.map((variant): [string, string] => [
        `${file} (${variant.name})`,
        variant.apply(text)
      ])
    ]
    for (const [name, variantText] of readingsOfFile) {
      const found = signatureOfText(variantText)
      readings += 1
      signature ??= found
      if (found !== signature) deviations.push(`${name}: ${found}`)
    }
  }
  return { signature: signature ?? '', deviations, readings }
}

export function measureCorpus(): MeasuredClass[] {
  const measured: MeasuredClass[] = []
  const generated = JSON.parse(read('manifest.json')) as GeneratedManifest
  for (const cls of generated.classes) {
    if (!cls.files.every((file) => existsSync(join(CORPUS_DIR, file)))) continue
    measured.push({ id: cls.id, tool: cls.tool, set: 'generated', ...measureFiles(cls.files) })
  }
  const quotedPath = join(CORPUS_DIR, 'quoted', 'manifest.json')
  if (existsSync(quotedPath)) {
    const quoted = JSON.parse(readFileSync(quotedPath, 'utf8')) as QuotedManifest
    for (const cls of quoted.classes) {
      const result = measureFiles([cls.file])
      // A named key is cut the way every key is (long names end in a hash).
      const expected = signatureOf(cls.expected.map((key) => buildKey(key))).full
      measured.push({
        id: `quoted/${cls.id}`,
        tool: cls.tool,
        set: cls.set,
        ...result,
        expected: cls.expected,
        matchesExpected: result.signature === expected
      })
    }
  }
  return measured
}

/** Invariance and discrimination per tool, over the classes given. */
export function perTool(classes: readonly MeasuredClass[]): ToolRow[] {
  const tools = [...new Set(classes.map((cls) => cls.tool))].sort()
  return tools.map((tool) => {
    const own = classes.filter((cls) => cls.tool === tool)
    let pairs = 0
    let distinct = 0
    for (let i = 0; i < own.length; i++) {
      for (let j = i + 1; j < own.length; j++) {
        pairs += 1
        if (own[i]?.signature !== own[j]?.signature) distinct += 1
      }
    }
    return {
      tool,
      classes: own.length,
      readings: own.reduce((sum, cls) => sum + cls.readings, 0),
      invariant: own.filter((cls) => cls.deviations.length === 0 && cls.signature !== '').length,
      pairs,
      distinct
    }
  })
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((100 * part) / whole).toFixed(0)}%`
}

export function toolTable(rows: readonly ToolRow[]): string {
  return markdownTable(
    [
      ['tool', 'classes', 'files × noise', 'invariance', 'discrimination'],
      ...rows.map((row) => [
        row.tool,
        String(row.classes),
        String(row.readings),
        `${row.invariant}/${row.classes} (${percent(row.invariant, row.classes)})`,
        row.pairs === 0
          ? '– (one class)'
          : `${row.distinct}/${row.pairs} (${percent(row.distinct, row.pairs)})`
      ])
    ],
    { align: ['l', 'r', 'r', 'r', 'r'] }
  )
}

export function quotedTable(classes: readonly MeasuredClass[]): string {
  return markdownTable([
    ['fixture', 'keys as named', 'noise-invariant', 'signature found'],
    ...classes.map((cls) => [
      cls.id.replace(/^quoted\//, ''),
      cls.matchesExpected === true ? 'yes' : 'no',
      cls.deviations.length === 0 ? 'yes' : 'no',
      `\`${cls.signature.replaceAll('|', '/')}\``
    ])
  ])
}

const invokedDirectly =
  process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]
if (invokedDirectly) {
  const classes = measureCorpus()
  const noisy = NOISE_VARIANTS.map((variant) => variant.name).join(', ')
  process.stdout.write(
    [
      `Generated and quoted-for-tuning classes (each file plus its noisy variants: ${noisy})`,
      '',
      toolTable(perTool(classes.filter((cls) => cls.set !== 'held-out'))),
      '',
      'Quoted fixtures (tuning)',
      '',
      quotedTable(classes.filter((cls) => cls.set === 'tuning')),
      '',
      'Quoted fixtures (held out)',
      '',
      quotedTable(classes.filter((cls) => cls.set === 'held-out')),
      ''
    ].join('\n')
  )
}
