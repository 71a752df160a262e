/**
 * Regression: the folder store's compare-and-swap held only within one process, so two jobs
 * writing one program's file in the same folder could both pass the version check and one
 * update was lost (found by concurrent-writers.test.ts: two gates counted as the same
 * attempt). Writers in separate processes now take turns through a lock file.
 */
import { describe, expect, it } from '@jest/globals'
import { spawn } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { tempDir } from '../helpers/temp-dir.js'

const CHILD = resolve(import.meta.dirname, 'children/increment.ts')
const PROCESSES = 6
const INCREMENTS = 60

function increment(dir: string, times: number): Promise<number> {
  return new Promise((resolveExit, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CHILD, dir, 'counter', String(times)],
      {
        stdio: ['ignore', 'ignore', 'pipe']
      }
    )
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolveExit(code) : reject(new Error(stderr))))
  })
}

describe('LocalDirStore across processes', () => {
  const dir = tempDir('autoloop-cas-')

  it(`${PROCESSES} processes × ${INCREMENTS} compare-and-swap updates lose none`, async () => {
    await Promise.all(Array.from({ length: PROCESSES }, () => increment(dir, INCREMENTS)))
    expect(readFileSync(join(dir, 'counter.md'), 'utf8')).toBe(`count: ${PROCESSES * INCREMENTS}\n`)
    // No lock or temp file is left behind for repo-memory to commit.
    expect(readdirSync(dir)).toEqual(['counter.md'])
  }, 60_000)
})
