/**
 * The corpus-wide quality bar (see the README, Failure signatures): on logs produced by real
 * toolchains, every file of a failure class (noisy re-runs, colour, other directories, job-log
 * wrapping) and every noisy variant of each file (other CI systems' line prefixes, other
 * checkout roots, shifted line numbers, colour; scripts/corpus/noise.ts) yields the same
 * signature, and every two classes yield different signatures. Both rates must be 100%, per
 * tool and corpus-wide. Quoted real output must give the keys a person named for it; the
 * held-out part is reported apart and must not fall below its measured rate.
 */
import { describe, expect, test } from '@jest/globals'
import { measureCorpus, perTool, quotedTable, toolTable } from '../../../scripts/corpus/measure.js'
import { extractFailuresFromString } from '../../../src/core/signature/extract.js'
import { PARSERS } from '../../../src/core/signature/parsers/index.js'
import { signatureOf } from '../../../src/core/signature/signature.js'
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

const measured = measureCorpus()
const tuned = measured.filter((cls) => cls.set !== 'held-out')
const heldOut = measured.filter((cls) => cls.set === 'held-out')
/** Held-out fixtures whose keys are exactly the ones a person named, as last measured. */
const HELD_OUT_MATCHING = 7

describe('per tool, with every noisy variant of every file', () => {
  test('invariance and discrimination are 100% for every tool', () => {
    const rows = perTool(tuned)
    console.log(`signatures per tool (files and noisy variants):\n${toolTable(rows)}`)
    expect(rows.length).toBeGreaterThan(20)
    for (const cls of tuned)
      expect({ id: cls.id, deviations: cls.deviations }).toEqual({ id: cls.id, deviations: [] })
    for (const row of rows) {
      expect({ tool: row.tool, invariant: row.invariant, distinct: row.distinct }).toEqual({
        tool: row.tool,
        invariant: row.classes,
        distinct: row.pairs
      })
    }
  })

  test('quoted real output gives the keys a person named for it', () => {
    const quoted = tuned.filter((cls) => cls.set === 'tuning')
    expect(quoted.length).toBeGreaterThan(5)
    for (const cls of quoted) {
      expect({ id: cls.id, signature: cls.signature, matches: cls.matchesExpected }).toEqual({
        id: cls.id,
        signature: cls.signature,
        matches: true
      })
    }
  })

  test('the held-out quoted output, reported apart, keeps its rate', () => {
    const matching = heldOut.filter((cls) => cls.matchesExpected === true).length
    console.log(
      `held-out quoted fixtures: ${matching}/${heldOut.length} give the keys a person named\n` +
        quotedTable(heldOut)
    )
    expect(heldOut.length).toBeGreaterThan(5)
    expect(matching).toBeGreaterThanOrEqual(HELD_OUT_MATCHING)
    for (const cls of heldOut)
      expect({ id: cls.id, deviations: cls.deviations }).toEqual({ id: cls.id, deviations: [] })
  })
})

function percent(part: number, whole: number): string {
  return whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`
}
