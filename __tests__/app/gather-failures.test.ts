import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { type AnnotationInfo, type CheckRunOutput, type FailureSources } from '../../src/ports.js'
import { gatherFailure } from '../../src/app/gather-failures.js'
import type { CheckView } from '../../src/core/checks/reduce.js'
import { extractFailuresFromString } from '../../src/core/signature/extract.js'
import { memoryLogger } from '../../__fixtures__/log.js'

const CORPUS = resolve(import.meta.dirname, '../../__fixtures__/corpus')
const corpus = (file: string) => readFileSync(join(CORPUS, file))

function failed(overrides: Partial<CheckView> = {}): CheckView {
  return {
    kind: 'check-run',
    id: 7,
    name: 'test',
    status: 'completed',
    conclusion: 'failure',
    url: 'https://github.example/r/1',
    state: 'failed',
    jobId: 70,
    ...overrides
  }
}

interface Calls {
  output: number
  annotations: number
  log: number
}

function sources(parts: {
  output?: Partial<CheckRunOutput>
  annotations?: AnnotationInfo[]
  log?: Buffer | null | Error
}): FailureSources & { calls: Calls } {
  const calls: Calls = { output: 0, annotations: 0, log: 0 }
  return {
    calls,
    async checkRunOutput() {
      calls.output++
      return {
        title: null,
        summary: null,
        text: null,
        annotationsCount: parts.annotations?.length ?? 0,
        ...parts.output
      }
    },
    async annotations() {
      calls.annotations++
      return parts.annotations ?? []
    },
    async jobLog() {
      calls.log++
      if (parts.log instanceof Error) throw parts.log
      if (!parts.log) return null
      const bytes = parts.log
      return (async function* () {
        // Chunks that split lines and UTF-8 sequences, as a network stream would.
        for (let at = 0; at < bytes.length; at += 1000) yield bytes.subarray(at, at + 1000)
      })()
    }
  }
}

describe('gatherFailure: the cheapest source that explains the failure', () => {
  it('takes telling annotations and never downloads the log', async () => {
    const src = sources({
      annotations: [
        {
          path: '.github',
          level: 'failure',
          title: null,
          message: 'Process completed with exit code 1.'
        },
        {
          path: 'src/cart.ts',
          level: 'failure',
          title: 'TS2339',
          message: "Property 'fromArrays' does not exist on type 'typeof Stats'."
        }
      ],
      log: corpus('jest/assertion/job-log.log')
    })
    const found = await gatherFailure(failed(), src, { log: memoryLogger() })
    expect(found.source).toBe('annotations')
    // The annotation reads as tsc's line would; the generic exit-code annotation is no key.
    expect(found.keys).toEqual(['tsc:TS2339:fromArrays:src/cart.ts'])
    expect(src.calls.log).toBe(0)
  })

  it('gives an annotation the key of the log line it came from, so two errors stay two', async () => {
    const logLine = readFileSync(join(CORPUS, 'tsc/missing-property/plain.txt'), 'utf8')
    const fromLog = extractFailuresFromString(logLine).findings.map((finding) => finding.key)
    const src = sources({
      annotations: [
        {
          path: 'src/report.ts',
          level: 'failure',
          title: 'TS2339',
          message:
            "Property 'fromArrays' does not exist on type '{ mean(values: number[]): number; }'."
        },
        {
          path: 'src/report.ts',
          level: 'failure',
          title: 'TS2339',
          message:
            "Property 'toArrays' does not exist on type '{ mean(values: number[]): number; }'."
        }
      ]
    })
    const found = await gatherFailure(failed(), src, { log: memoryLogger() })
    expect(fromLog).toEqual(['tsc:TS2339:fromArrays:src/report.ts'])
    expect(found.keys).toEqual([...fromLog, 'tsc:TS2339:toArrays:src/report.ts'])
  })

  it('skips generic annotations and reads the job log, streamed', async () => {
    const src = sources({
      annotations: [
        {
          path: '.github',
          level: 'failure',
          title: null,
          message: 'Process completed with exit code 1.'
        }
      ],
      log: corpus('jest/assertion/job-log.log')
    })
    const found = await gatherFailure(failed(), src, { log: memoryLogger() })
    expect(found.source).toBe('log')
    expect(found.keys).toEqual([
      'jest:__tests__/cart.test.js>cart > total > adds the prices of two items'
    ])
    expect(found.firstErrorLines.length).toBeGreaterThan(0)
    expect(src.calls.log).toBe(1)
  })

  it('uses the check-run output when a parser recognises it', async () => {
    const text = readFileSync(join(CORPUS, 'tsc/missing-property/job-log.log'), 'utf8')
    const src = sources({
      output: { title: 'tsc', text },
      log: corpus('jest/assertion/job-log.log')
    })
    const found = await gatherFailure(failed(), src, { log: memoryLogger() })
    expect(found.source).toBe('output')
    expect(found.keys.every((key) => key.startsWith('tsc:'))).toBe(true)
    expect(src.calls.log).toBe(0)
  })

  it('reports an expired log instead of failing, and falls back to the check name', async () => {
    const found = await gatherFailure(failed(), sources({ log: null }), { log: memoryLogger() })
    expect(found).toMatchObject({ source: 'none', keys: ['check:test:failure'] })
    expect(found.note).toContain('no longer available')
    const broken = await gatherFailure(failed(), sources({ log: new Error('socket hang up') }), {
      log: memoryLogger()
    })
    expect(broken.note).toContain('socket hang up')
  })

  it('marks a log cut at the byte cap', async () => {
    const found = await gatherFailure(
      failed(),
      sources({ log: corpus('jest/assertion/job-log.log') }),
      { log: memoryLogger(), maxLogBytes: 900 }
    )
    expect(found.logTruncated === true || found.source === 'none').toBe(true)
  })

  it('keys a commit status by its context and masked description', async () => {
    const status = failed({
      kind: 'status',
      name: 'ci/jenkins',
      description: 'Build #4521 failed after 12m'
    })
    const src = sources({})
    const found = await gatherFailure(status, src, { log: memoryLogger() })
    expect(found.source).toBe('status')
    expect(found.keys).toEqual(['status:ci/jenkins:Build #N failed after <duration>'])
    expect(src.calls.output + src.calls.log).toBe(0)
  })
})
