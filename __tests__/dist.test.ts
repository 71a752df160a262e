/**
 * dist/ is committed and must be what `npm run build` makes from the sources: the runner
 * executes dist/index.js, never src/.
 */
import { describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
const NCC = join(ROOT, 'node_modules/@vercel/ncc/dist/ncc/cli.js')

function files(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(dir, join(prefix, entry.name)) : [join(prefix, entry.name)]
  )
}

describe('dist/', () => {
  it('matches a fresh build of src/', () => {
    const out = mkdtempSync(join(tmpdir(), 'autoloop-dist-'))
    try {
      // The same commands as `npm run build`, into a scratch folder.
      const build = (entry: string, dir: string, license: string[]) =>
        execFileSync(
          process.execPath,
          [NCC, 'build', entry, '-o', join(out, dir), '-t', '--source-map', ...license],
          {
            cwd: ROOT,
            stdio: 'pipe'
          }
        )
      build('src/index.ts', '.', ['--license', 'licenses.txt'])
      build('src/cli.ts', 'cli', [])
      const built = files(out).sort()
      expect(files(join(ROOT, 'dist')).sort()).toEqual(built)
      const stale = built.filter(
        (file) => !readFileSync(join(out, file)).equals(readFileSync(join(ROOT, 'dist', file)))
      )
      expect(stale).toEqual([])
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  }, 180_000)
})
