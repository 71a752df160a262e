// Import circles among the files of src/ (README: "Development"): a module graph read in one
// direction has none. Every `import` and `export … from` counts, type-only ones too: a reader
// follows those as well. `node scripts/lint/import-cycles.mjs` prints them and exits 1.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

/** The TypeScript files under `root`, as paths relative to `cwd`. */
export function sourceFiles(root) {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter(
      (entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')
    )
    .map((entry) => join(entry.parentPath, entry.name))
}

/** The graph: each file and the files of `files` it imports (relative specifiers only). */
export function importGraph(files, read = (file) => readFileSync(file, 'utf8')) {
  const known = new Set(files.map((file) => resolve(file)))
  const graph = new Map()
  for (const file of files) {
    const from = resolve(file)
    const targets = ts
      .preProcessFile(read(file), true, true)
      .importedFiles.map((imported) => imported.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => resolve(dirname(from), spec.replace(/\.js$/, '.ts')))
      .filter((target) => known.has(target))
    graph.set(from, [...new Set(targets)])
  }
  return graph
}

/** Each circle (a strongly connected component of more than one file, or a self-import), sorted. */
export function importCycles(graph) {
  let counter = 0
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const cycles = []
  const visit = (node) => {
    index.set(node, counter)
    low.set(node, counter)
    counter += 1
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node), low.get(next)))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)))
    }
    if (low.get(node) !== index.get(node)) return
    const component = []
    let member
    do {
      member = stack.pop()
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1 || (graph.get(node) ?? []).includes(node))
      cycles.push(component.sort())
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return cycles.sort((a, b) => a[0].localeCompare(b[0]))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../src')
  const cycles = importCycles(importGraph(sourceFiles(root)))
  for (const cycle of cycles)
    console.log(cycle.map((file) => relative(process.cwd(), file)).join(' ⇄ '))
  process.exitCode = cycles.length > 0 ? 1 : 0
}
