// Checks the real-tool failure corpus (__fixtures__/corpus, made by scripts/corpus/generate.sh):
// the manifest is well-formed and matches the files, and each file has the noise its name claims.
import { describe, expect, test } from '@jest/globals'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'

const corpusDir = fileURLToPath(new URL('../../__fixtures__/corpus/', import.meta.url))

const fixturePath = z
  .string()
  .regex(
    /^[a-z0-9-]+\/[a-z0-9-]+\/[a-z0-9-]+\.(txt|log)$/,
    'fixture paths are <tool>/<class>/<variant>.txt|.log'
  )
const manifestSchema = z.object({
  version: z.literal(1),
  command: z.literal('bash scripts/corpus/generate.sh'),
  tools: z.record(z.string().min(1), z.string().min(1)),
  classes: z
    .array(
      z.object({
        id: z.string().regex(/^[a-z0-9-]+\/[a-z0-9-]+$/),
        tool: z.string().min(1),
        description: z.string().min(10),
        files: z.array(fixturePath).min(3),
        variants: z.record(fixturePath, z.string().min(5))
      })
    )
    .min(1),
  unavailable: z.record(z.string().min(1), z.string().min(10)).optional()
})
type Manifest = z.infer<typeof manifestSchema>

const manifest: Manifest = manifestSchema.parse(
  JSON.parse(readFileSync(join(corpusDir, 'manifest.json'), 'utf8'))
)

/** Quoted real output: where each file was quoted from, and the keys a person named for it. */
const quotedSchema = z.object({
  about: z.string().min(20),
  classes: z
    .array(
      z.object({
        id: z.string().regex(/^[a-z0-9-]+\/[a-z0-9-]+$/),
        tool: z.string().min(1),
        set: z.enum(['tuning', 'held-out']),
        source: z.url().startsWith('https://github.com/'),
        description: z.string().min(20),
        expected: z.array(z.string().min(3)).min(1),
        file: z.string().regex(/^quoted\/[a-z0-9-]+\/[a-z0-9-]+\/[a-z0-9-]+\.txt$/)
      })
    )
    .min(1)
})
const quoted = quotedSchema.parse(
  JSON.parse(readFileSync(join(corpusDir, 'quoted', 'manifest.json'), 'utf8'))
)
const listedFiles = manifest.classes.flatMap((entry) => entry.files)
const read = (file: string): string => readFileSync(join(corpusDir, file), 'utf8')

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(path) : [relative(corpusDir, path).split(sep).join('/')]
  })
}

// eslint-disable-next-line no-control-regex -- an ANSI colour sequence starts with ESC
const ANSI_ESCAPE = /\u001b\[[0-9;]*m/
const RUNNER_TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7})Z /

describe('corpus manifest', () => {
  test('class ids are unique and made of the tool and a class name', () => {
    const ids = manifest.classes.map((entry) => entry.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const entry of manifest.classes) {
      expect(entry.id.startsWith(`${entry.tool}/`)).toBe(true)
    }
  })

  test('every class names the tool version that produced it', () => {
    for (const entry of manifest.classes) {
      expect(manifest.tools[entry.tool]).toEqual(expect.any(String))
    }
  })

  test('tools recorded as unavailable have no classes', () => {
    const unavailable = Object.keys(manifest.unavailable ?? {})
    for (const entry of manifest.classes) {
      expect(unavailable).not.toContain(entry.tool)
    }
  })

  test('each class lists its files under its own folder, each with a noise description', () => {
    for (const entry of manifest.classes) {
      for (const file of entry.files) expect(file.startsWith(`${entry.id}/`)).toBe(true)
      expect(Object.keys(entry.variants).sort()).toEqual([...entry.files].sort())
    }
    expect(new Set(listedFiles).size).toBe(listedFiles.length)
  })

  test('every listed file exists and is not empty', () => {
    for (const file of listedFiles) {
      const path = join(corpusDir, file)
      expect([file, existsSync(path)]).toEqual([file, true])
      expect([file, statSync(path).size > 0]).toEqual([file, true])
    }
  })

  test('every fixture file under the corpus folder is listed', () => {
    const quotedFiles = quoted.classes.map((entry) => entry.file)
    const onDisk = filesUnder(corpusDir).filter((file) => /\.(txt|log)$/.test(file))
    expect(onDisk.sort()).toEqual([...listedFiles, ...quotedFiles].sort())
    const others = filesUnder(corpusDir).filter((file) => !/\.(txt|log)$/.test(file))
    expect(others.sort()).toEqual(['.gitignore', 'manifest.json', 'quoted/manifest.json'])
  })

  test('quoted fixtures have unique ids, a held-out part, and a file under their id', () => {
    const ids = quoted.classes.map((entry) => entry.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const entry of quoted.classes) {
      expect(entry.id.startsWith(`${entry.tool}/`)).toBe(true)
      expect(entry.file).toBe(`quoted/${entry.id}/ci-log.txt`)
      expect(statSync(join(corpusDir, entry.file)).size).toBeGreaterThan(0)
    }
    expect(quoted.classes.some((entry) => entry.set === 'held-out')).toBe(true)
  })

  test('the corpus stays small', () => {
    let total = 0
    for (const file of listedFiles) {
      const size = statSync(join(corpusDir, file)).size
      expect([file, size <= 64 * 1024]).toEqual([file, true])
      total += size
    }
    expect(total).toBeLessThan(3 * 1024 * 1024)
  })
})

describe('noise claimed by the file names', () => {
  test("a file named color is described as 'colour: …' and contains ANSI escapes", () => {
    let colourFiles = 0
    for (const entry of manifest.classes) {
      for (const file of entry.files) {
        const nameSaysColour = /(^|-)color[-.]/.test(file.split('/')[2] ?? '')
        const descriptionSaysColour = (entry.variants[file] ?? '').startsWith('colour:')
        expect([file, nameSaysColour]).toEqual([file, descriptionSaysColour])
        if (!nameSaysColour) continue
        colourFiles += 1
        expect([file, ANSI_ESCAPE.test(read(file))]).toEqual([file, true])
      }
    }
    expect(colourFiles).toBeGreaterThan(0)
  })

  test('a .log file is a GitHub Actions job log: BOM, a timestamp on every line, step header and trailer', () => {
    const jobLogs = listedFiles.filter((file) => file.endsWith('.log'))
    expect(jobLogs.length).toBeGreaterThan(0)
    for (const file of jobLogs) {
      const text = read(file)
      expect([file, text.startsWith('\ufeff')]).toEqual([file, true])
      const lines = text.slice(1).split('\n')
      expect(lines.pop()).toBe('')
      const stamps = lines.map((line) => RUNNER_TIMESTAMP.exec(line)?.[1])
      expect([file, stamps.every((stamp) => stamp !== undefined)]).toEqual([file, true])
      const sorted = [...stamps].sort()
      expect([file, stamps]).toEqual([file, sorted])
      const bodies = lines.map((line) => line.replace(RUNNER_TIMESTAMP, ''))
      expect(bodies[0]).toMatch(/^##\[group\]Run \S/)
      expect(bodies).toContain('##[endgroup]')
      expect(bodies.at(-1)).toMatch(/^##\[error\]Process completed with exit code [1-9]\d*\.$/)
    }
  })

  test('job logs do not share timestamps with each other', () => {
    const firstStamps = listedFiles
      .filter((file) => file.endsWith('.log'))
      .map((file) => RUNNER_TIMESTAMP.exec(read(file).slice(1))?.[1])
    expect(new Set(firstStamps).size).toBe(firstStamps.length)
  })

  test('a .txt file is plain tool output, not a job log', () => {
    for (const file of listedFiles.filter((name) => name.endsWith('.txt'))) {
      const text = read(file)
      expect([file, text.startsWith('\ufeff') || RUNNER_TIMESTAMP.test(text)]).toEqual([
        file,
        false
      ])
    }
  })

  test('no output names the scratch folder the generator works in', () => {
    for (const file of listedFiles) {
      expect([file, read(file).includes('.corpus-work')]).toEqual([file, false])
    }
  })
})
