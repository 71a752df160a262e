import { Readable, Writable } from 'node:stream'
import { describe, expect, test } from '@jest/globals'
import { runSignatureCommand } from '../../../src/cli/signature.js'
import { signatureOf } from '../../../src/core/signature/signature.js'
import { CORPUS_DIR, completeClasses, readCorpusFile } from './corpus.js'
import { join } from 'node:path'

class Sink extends Writable {
  text = ''
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString()
    done()
  }
}

function io(stdinText = '') {
  const stdout = new Sink()
  const stderr = new Sink()
  return { stdin: Readable.from([Buffer.from(stdinText)]), stdout, stderr }
}

const classes = completeClasses()
const first = classes[0]!
const second = classes[1]!
const firstFile = first.files.find((file) => file.endsWith('.log')) ?? first.files[0]!
const secondFile = second.files[0]!

async function jsonFor(args: string[]) {
  const streams = io()
  const code = await runSignatureCommand(args, streams)
  return { code, out: JSON.parse(streams.stdout.text) as Record<string, unknown>, streams }
}

describe('autoloop-ci-gate signature', () => {
  test('--json prints exactly one object with the signature, its one-line form and the keys', async () => {
    const { code, out, streams } = await jsonFor(['--log', join(CORPUS_DIR, firstFile), '--json'])
    expect(code).toBe(0)
    expect(Object.keys(out).sort()).toEqual(['keys', 'short', 'signature'])
    expect(streams.stdout.text.trim().split('\n')).toHaveLength(1)
    const keys = out.keys as string[]
    expect(keys.length).toBeGreaterThan(0)
    expect(out.signature).toBe(signatureOf(keys).full)
    expect(out.short).toBe(signatureOf(keys).short)
  })

  test('reads standard input when no --log is given', async () => {
    const fromFile = await jsonFor(['--json', `--log=${join(CORPUS_DIR, firstFile)}`])
    const streams = io(readCorpusFile(firstFile))
    expect(await runSignatureCommand(['--json'], streams)).toBe(0)
    expect(JSON.parse(streams.stdout.text)).toEqual(fromFile.out)
  })

  test('merges the keys of several logs, as for several failing checks', async () => {
    const a = await jsonFor(['--json', '--log', join(CORPUS_DIR, firstFile)])
    const b = await jsonFor(['--json', '--log', join(CORPUS_DIR, secondFile)])
    const both = await jsonFor([
      '--log',
      join(CORPUS_DIR, firstFile),
      '--log',
      join(CORPUS_DIR, secondFile),
      '--json'
    ])
    const expected = signatureOf([...(a.out.keys as string[]), ...(b.out.keys as string[])])
    expect(both.out).toEqual({
      signature: expected.full,
      short: expected.short,
      keys: expected.keys
    })
  })

  test('text mode prints the keys one per line and the signature', async () => {
    const streams = io()
    expect(await runSignatureCommand(['--log', join(CORPUS_DIR, firstFile)], streams)).toBe(0)
    const { out } = await jsonFor(['--json', '--log', join(CORPUS_DIR, firstFile)])
    const lines = streams.stdout.text.split('\n')
    for (const key of out.keys as string[]) expect(lines).toContain(key)
    expect(lines).toContain(`signature: ${out.signature as string}`)
  })

  test('an unknown flag is refused with exit code 2 and the usage', async () => {
    const streams = io()
    expect(await runSignatureCommand(['--logs', 'x'], streams)).toBe(2)
    expect(streams.stderr.text).toContain("unknown argument '--logs'")
    expect(streams.stderr.text).toContain('usage: autoloop-ci-gate signature')
    expect(streams.stdout.text).toBe('')
  })

  test('--log without a file is refused with exit code 2', async () => {
    const streams = io()
    expect(await runSignatureCommand(['--log'], streams)).toBe(2)
    expect(streams.stderr.text).toContain('--log needs a file name')
  })

  test('a missing file is refused with exit code 2 and names the path and the fix', async () => {
    const streams = io()
    const missing = join(CORPUS_DIR, 'no-such-dir', 'job.log')
    expect(await runSignatureCommand(['--log', missing, '--json'], streams)).toBe(2)
    expect(streams.stderr.text).toContain(missing)
    expect(streams.stderr.text).toContain('Fix:')
    expect(streams.stdout.text).toBe('')
  })
})
