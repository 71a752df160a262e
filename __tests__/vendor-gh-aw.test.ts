/**
 * The vendored gh-aw scripts (docs/gh-aw.md: "gh-aw conformance") and the script that vendors them:
 * each tag is complete (every local require resolves), names its source, and re-vendoring
 * from a clone gives the same files.
 */
import { describe, expect, it } from '@jest/globals'
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join, posix, relative, resolve } from 'node:path'
import { tempDir } from './helpers/temp-dir.js'

const ROOT = resolve(import.meta.dirname, '..')
const VENDOR = join(ROOT, 'vendor', 'gh-aw-actions')
const SCRIPT = join(ROOT, 'scripts', 'vendor-gh-aw.mjs')
const TAGS = readdirSync(VENDOR).filter((tag) => /^v\d+\.\d+\.\d+$/.test(tag))

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort()
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], {
    cwd,
    encoding: 'utf8'
  }).trim()

describe('vendor/gh-aw-actions', () => {
  it('holds the tag autoloop pins and a newer one', () => {
    expect(TAGS).toContain('v0.65.6')
    expect(TAGS.length).toBeGreaterThanOrEqual(2)
  })

  it.each(TAGS)(
    '%s: SOURCE names repository, tag, tag object and commit, and lists exactly the files',
    (tag) => {
      const dir = join(VENDOR, tag)
      const source = readFileSync(join(dir, 'SOURCE'), 'utf8')
      expect(source).toContain('repository: https://github.com/github/gh-aw-actions\n')
      expect(source).toContain(`tag: ${tag}\n`)
      expect(source).toMatch(/^tag object: [0-9a-f]{40}$/m)
      expect(source).toMatch(/^commit: [0-9a-f]{40}$/m)
      const listed = [...source.matchAll(/^ {2}(setup\/\S+)$/gm)].map((m) => m[1]).sort()
      expect(listed).toEqual(filesUnder(dir).filter((f) => f.startsWith('setup/')))
      expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toContain('MIT License')
    }
  )

  it.each(TAGS)('%s: every local require of a vendored script is vendored', (tag) => {
    const dir = join(VENDOR, tag)
    const files = new Set(filesUnder(dir))
    const unresolved: string[] = []
    for (const file of [...files].filter((f) => f.endsWith('.cjs'))) {
      for (const m of readFileSync(join(dir, file), 'utf8').matchAll(
        /require\(\s*["'`](\.\/[^"'`]+)["'`]\s*\)/g
      )) {
        const required = posix.join(posix.dirname(file), m[1]!)
        if (!files.has(required)) unresolved.push(`${file} → ${m[1]}`)
      }
    }
    expect(unresolved).toEqual([])
  })
})

describe('scripts/vendor-gh-aw.mjs', () => {
  it('re-vendors a tag from a clone: the same files, the scripts off the path left out, SOURCE naming the clone’s tag', () => {
    const clone = tempDir('gh-aw-actions-clone-')
    cpSync(join(VENDOR, 'v0.65.6', 'setup'), join(clone, 'setup'), { recursive: true })
    cpSync(join(VENDOR, 'v0.65.6', 'LICENSE'), join(clone, 'LICENSE'))
    writeFileSync(join(clone, 'setup', 'js', 'not_on_the_path.cjs'), 'module.exports = {}\n')
    git(clone, 'init', '-q', '-b', 'main')
    git(clone, 'add', '-A')
    git(clone, 'commit', '-qm', 'sync actions')
    git(clone, 'tag', '-a', 'v0.65.6', '-m', 'v0.65.6')
    const out = join(tempDir('gh-aw-vendored-'), 'v0.65.6')
    execFileSync(process.execPath, [SCRIPT, clone, 'v0.65.6', out], { stdio: 'pipe' })

    const expected = filesUnder(join(VENDOR, 'v0.65.6')).filter((f) => f !== 'SOURCE')
    expect(filesUnder(out).filter((f) => f !== 'SOURCE')).toEqual(expected)
    for (const file of expected)
      expect(readFileSync(join(out, file), 'utf8')).toBe(
        readFileSync(join(VENDOR, 'v0.65.6', file), 'utf8')
      )
    const source = readFileSync(join(out, 'SOURCE'), 'utf8')
    expect(source).toContain(`commit: ${git(clone, 'rev-parse', 'HEAD')}\n`)
    expect(source).toContain(`tag object: ${git(clone, 'rev-parse', 'refs/tags/v0.65.6')}\n`)
  })

  it('a tag the clone lacks: exit 2, naming the tag', () => {
    const clone = tempDir('gh-aw-actions-empty-')
    git(clone, 'init', '-q')
    const run = spawnSync(process.execPath, [SCRIPT, clone, 'v9.9.9'], { encoding: 'utf8' })
    expect(run.status).toBe(2)
    expect(run.stderr).toContain('has no tag v9.9.9')
  })
})
