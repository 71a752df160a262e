/**
 * Temporary folders for tests that are always removed: each one is registered with
 * `afterAll` of the test file that made it.
 */
import { afterAll } from '@jest/globals'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []
let registered = false

/** A new empty folder under the system temp folder, removed after the test file's tests. */
export function tempDir(prefix = 'autoloop-test-'): string {
  if (!registered) {
    registered = true
    afterAll(() => {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
    })
  }
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}
