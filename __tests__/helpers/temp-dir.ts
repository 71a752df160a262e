/**
 * Temporary folders for tests that are always removed: every folder made while a test file
 * runs is removed after that file's tests (jest loads this module once per test file, and
 * the hook below belongs to the file that imported it).
 */
import { afterAll } from '@jest/globals'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []

afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A new empty folder under the system temp folder, removed after the test file's tests. */
export function tempDir(prefix = 'autoloop-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}
