/**
 * The corpus-wide quality bar (SPEC §8): on logs produced by real toolchains, every file of a
 * failure class (noisy re-runs, colour, other directories, job-log wrapping) yields the same
 * signature, and every two classes yield different signatures. Both rates must be 100%.
 */
import { describe, expect, test } from '@jest/globals'
import { extractFailuresFromString } from '../../src/signature/extract.js'
import { PARSERS } from '../../src/signature/parsers/index.js'
import { signatureOf } from '../../src/signature/signature.js'
import { completeClasses, loadManifest, readCorpusFile } from './corpus.js'

const PARSER_TOOLS = new Set(PARSERS.map((entry) => entry.tool).filter((tool) => tool !== 'gha'))
const classes = completeClasses()

function signatureOfFile(file: string): string {
  const result = extractFailuresFromString(readCorpusFile(file))
  return signatureOf(result.findings.map((finding) => finding.key)).full
}

const perClass = classes.map((cls) => {
  const signatures = new Map<string, string[]>()
  for (const file of cls.files) {
    const signature = signatureOfFile(file)
    signatures.set(signature, [...(signatures.get(signature) ?? []), file])
  }
  return { cls, signatures }
})

describe('corpus-wide signatures', () => {
  test('the corpus has classes to measure', () => {
    expect(loadManifest().classes.length).toBeGreaterThan(0)
    expect(classes.length).toBeGreaterThan(0)
  })

  test.each(perClass.map((entry) => [entry.cls.id, entry] as const))(
    '%s: every file yields one signature, from a tool parser (shell: the unknown-tool fallback)',
    (_id, { cls, signatures }) => {
      expect({ id: cls.id, signatures: [...signatures.entries()] }).toEqual({
        id: cls.id,
        signatures: [[expect.any(String), cls.files]]
      })
      const [signature] = [...signatures.keys()]
      expect(signature).not.toBe('')
      const tools = signatureOf((signature ?? '').split('; ')).keys.map((key) => key.split(':')[0])
      // A plain shell command has no parser: its key is the normalised first error line.
      if (cls.tool === 'shell') expect(tools).toEqual(['error'])
      else expect(tools.some((tool) => PARSER_TOOLS.has(tool ?? ''))).toBe(true)
    }
  )

  test('stability and distinctness rates are both 100%', () => {
    const stable = perClass.filter((entry) => entry.signatures.size === 1).length
    const baseline = perClass.map((entry) => ({
      id: entry.cls.id,
      signature: [...entry.signatures.keys()][0] ?? ''
    }))
    let pairs = 0
    let distinct = 0
    const collisions: string[] = []
    for (let i = 0; i < baseline.length; i++) {
      for (let j = i + 1; j < baseline.length; j++) {
        pairs += 1
        const a = baseline[i]!
        const b = baseline[j]!
        if (a.signature !== b.signature) distinct += 1
        else collisions.push(`${a.id} = ${b.id}: ${a.signature}`)
      }
    }
    console.log(
      `corpus signatures: ${stable}/${perClass.length} classes with exactly one signature ` +
        `(${percent(stable, perClass.length)}); ${distinct}/${pairs} class pairs with different ` +
        `signatures (${percent(distinct, pairs)})`
    )
    expect(collisions).toEqual([])
    expect(stable).toBe(perClass.length)
  })
})

function percent(part: number, whole: number): string {
  return whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`
}
