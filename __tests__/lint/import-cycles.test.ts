/**
 * No import circle in src/ (README: "Development"): the gate reads observe → failures →
 * decide → apply in one direction, and so does every other module.
 */
import { describe, expect, it } from '@jest/globals'
import { relative, resolve } from 'node:path'
import { importCycles, importGraph, sourceFiles } from '../../scripts/lint/import-cycles.mjs'

const SRC = resolve(import.meta.dirname, '../../src')

/** The circles among in-memory files (path → text). */
function cyclesOf(files: Record<string, string>): string[][] {
  const paths = Object.keys(files).map((path) => resolve(SRC, path))
  const graph = importGraph(paths, (file: string) => files[relative(SRC, file)] ?? '')
  return importCycles(graph).map((cycle: string[]) => cycle.map((file) => relative(SRC, file)))
}

describe('import circles', () => {
  it('src/ has none', () => {
    const cycles = importCycles(importGraph(sourceFiles(SRC))).map((cycle: string[]) =>
      cycle.map((file) => relative(SRC, file))
    )
    expect(cycles).toEqual([])
  })

  it('finds a circle of two files, type-only imports and re-exports included', () => {
    expect(
      cyclesOf({
        'app/gate/observe.ts': "import { findRedFindings } from './failures.js'\n",
        'app/gate/failures.ts': "import type { WaitWindow } from './observe.js'\n",
        'app/gate/apply.ts': "export { settle } from './observe.js'\n"
      })
    ).toEqual([['app/gate/failures.ts', 'app/gate/observe.ts']])
  })

  it('finds a longer circle through a re-export, and nothing in a chain', () => {
    expect(
      cyclesOf({
        'a.ts': "import { b } from './b.js'\n",
        'b.ts': "export * from './c.js'\n",
        'c.ts': "import { a } from './a.js'\n",
        'd.ts': "import { a } from './a.js'\nimport pLimit from 'p-limit'\n"
      })
    ).toEqual([['a.ts', 'b.ts', 'c.ts']])
    expect(cyclesOf({ 'a.ts': "import { b } from './b.js'\n", 'b.ts': '' })).toEqual([])
  })
})
