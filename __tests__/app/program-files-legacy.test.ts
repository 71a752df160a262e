import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { programFilesOf } from '../../src/app/program-files.js'
import { stateFileErrorOf } from '../statefile/helpers.js'

const v1Open = readFileSync(
  new URL('../../__fixtures__/state/coverage-v1.md', import.meta.url),
  'utf8'
)

const lineOf = (text: string, needle: string): number =>
  text.split('\n').findIndex((line) => line.includes(needle)) + 1

describe('a broken ledger block of an earlier version in the state file', () => {
  it('is located in the block, at its own line, even when the words appear earlier in the file', () => {
    // A maintainer's words before the block that read like the ledger's field names.
    const note = 'Note: the "iteration" and its "outcome" are kept below.'
    const broken = v1Open
      .replace('## 🚦 CI Gate\n', `## 🚦 CI Gate\n\n${note}\n`)
      .replace('"outcome":null', '"outcome":"purple"')
    expect(broken).toContain('"outcome":"purple"')
    const error = stateFileErrorOf(() =>
      programFilesOf('coverage', { text: broken, version: 'v1' }, null, 'memory', {
        maxBytes: 30_720,
        now: 0
      })
    )
    expect(error.message).toMatch(/coverage\.md \(memory\)/)
    expect(error.message).toMatch(/iteration\.outcome/)
    expect(error.line).toBe(lineOf(broken, '"outcome":"purple"'))
    expect(error.lineText).toContain('"outcome":"purple"')
  })

  it('names the block’s first line for an error at its root', () => {
    const broken = v1Open.replace(/"iteration":\{[^}]*\}/, '"iteration":null')
    expect(broken).not.toBe(v1Open)
    const error = stateFileErrorOf(() =>
      programFilesOf('coverage', { text: broken, version: 'v1' }, null, 'memory', {
        maxBytes: 30_720,
        now: 0
      })
    )
    expect(error.line).toBeGreaterThanOrEqual(lineOf(broken, '{"version":1'))
  })
})
