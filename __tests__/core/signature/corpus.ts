/**
 * Access to the corpus of real tool output in `__fixtures__/corpus/` (see its manifest). Test
 * helper, not a test file.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const CORPUS_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  '__fixtures__',
  'corpus'
)

export interface CorpusClass {
  id: string
  tool: string
  description: string
  files: string[]
  variants?: Record<string, string>
}

export interface CorpusManifest {
  version: number
  tools: Record<string, string>
  classes: CorpusClass[]
  unavailable?: Record<string, string>
}

export function loadManifest(): CorpusManifest {
  const path = join(CORPUS_DIR, 'manifest.json')
  if (!existsSync(path)) return { version: 1, tools: {}, classes: [] }
  return JSON.parse(readFileSync(path, 'utf8')) as CorpusManifest
}

/** The classes whose every file is present (the corpus may still be growing). */
export function completeClasses(manifest: CorpusManifest = loadManifest()): CorpusClass[] {
  return manifest.classes.filter(
    (cls) => cls.files.length > 0 && cls.files.every((file) => existsSync(join(CORPUS_DIR, file)))
  )
}

export function readCorpusFile(file: string): string {
  return readFileSync(join(CORPUS_DIR, file), 'utf8')
}

export function corpusClass(id: string): CorpusClass | undefined {
  return loadManifest().classes.find((cls) => cls.id === id)
}

/**
 * What a person copies of a jest run: its failure blocks, without the FAIL/PASS line above them
 * or the summary below.
 */
export function jestFailureBlocks(text: string): string {
  return text
    .split('\n')
    .filter(
      (line) =>
        !/^\s*(?:FAIL|PASS)\s/.test(line) &&
        !/^(?:Test Suites|Tests|Snapshots|Time|Ran all)\b/.test(line)
    )
    .join('\n')
}
