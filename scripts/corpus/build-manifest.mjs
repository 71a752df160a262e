// Builds __fixtures__/corpus/manifest.json from the meta records that generate.sh wrote for the
// tools it ran this time (.corpus-work/meta/<tool>.jsonl). Entries of tools that were not run
// this time are kept from the existing manifest, so regenerating one tool keeps the others.
//
// Usage: node build-manifest.mjs <meta dir> <corpus dir> <tool...>
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import process from 'node:process'

const [metaDir, corpusDir, ...toolsRun] = process.argv.slice(2)
if (metaDir === undefined || corpusDir === undefined || toolsRun.length === 0) {
  throw new Error('usage: build-manifest.mjs <meta dir> <corpus dir> <tool...>')
}
const manifestPath = join(corpusDir, 'manifest.json')
const previous = existsSync(manifestPath)
  ? JSON.parse(readFileSync(manifestPath, 'utf8'))
  : { tools: {}, classes: [], unavailable: {} }

const rerun = new Set(toolsRun)
const tools = Object.fromEntries(Object.entries(previous.tools).filter(([t]) => !rerun.has(t)))
const unavailable = Object.fromEntries(
  Object.entries(previous.unavailable ?? {}).filter(([t]) => !rerun.has(t))
)
const classes = previous.classes.filter((c) => !rerun.has(c.tool))

for (const tool of toolsRun) {
  const metaFile = join(metaDir, `${tool}.jsonl`)
  if (!existsSync(metaFile)) throw new Error(`no meta records for ${tool}: ${metaFile}`)
  const records = readFileSync(metaFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line))
  const byId = new Map()
  for (const record of records) {
    if (record.kind === 'version') tools[record.tool] = record.version
    else if (record.kind === 'unavailable') unavailable[record.tool] = record.why
    else if (record.kind === 'class') {
      byId.set(record.id, {
        id: record.id,
        tool: record.tool,
        description: record.description,
        files: [],
        variants: {}
      })
    } else if (record.kind === 'file') {
      const entry = byId.get(record.class)
      if (entry === undefined)
        throw new Error(`file ${record.file} of unknown class ${record.class}`)
      entry.files.push(record.file)
      entry.variants[record.file] = record.noise
    }
  }
  classes.push(...byId.values())
}

const sortedKeys = (object) =>
  Object.fromEntries(Object.entries(object).sort(([a], [b]) => a.localeCompare(b)))
classes.sort((a, b) => a.id.localeCompare(b.id))
const manifest = {
  version: 1,
  command: 'bash scripts/corpus/generate.sh',
  tools: sortedKeys(tools),
  classes,
  unavailable: sortedKeys(unavailable)
}
writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n')
