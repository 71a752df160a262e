/**
 * `autoloop-ci-gate brief [--log FILE]... [--max-bytes N]` (docs/failure-details.md: "Failure details"): the
 * failure part of the fix brief as the gate writes it for those logs — the signature and each
 * failure's details, rendered by the same function as the brief (`renderFailureDetails`) under
 * the same budget — so a maintainer sees what the fixer will read.
 */
import { createReadStream } from 'node:fs'
import { parseArgs } from 'node:util'
import { errorMessage } from '../core/errors.js'
import { extractFailures } from '../core/signature/extract.js'
import { signatureOf } from '../core/signature/signature.js'
import { renderFailureDetails, type FailureDetail } from '../render/failure-details.js'
import { inlineCode } from '../core/text/untrusted.js'
import type { SignatureCommandIo } from './signature.js'
import type { Finding } from '../core/signature/types.js'

const USAGE = 'usage: autoloop-ci-gate brief [--log FILE]... [--max-bytes N]'
/** The state file's default size bound (`state-max-bytes`). */
const DEFAULT_MAX_BYTES = 30_720

export async function runBriefCommand(args: string[], io: SignatureCommandIo): Promise<number> {
  let values: { log?: string[]; 'max-bytes'?: string; help?: boolean }
  try {
    values = parseArgs({
      args,
      options: {
        log: { type: 'string', multiple: true },
        'max-bytes': { type: 'string' },
        help: { type: 'boolean', short: 'h' }
      },
      strict: true,
      allowPositionals: false
    }).values
  } catch (error) {
    io.stderr.write(
      `error: ${errorMessage(error)}: the brief command takes --log FILE (repeatable) and --max-bytes N\n${USAGE}\n`
    )
    return 2
  }
  if (values.help) {
    io.stdout.write(
      `${USAGE}\n\nPrints the failure part of the fix brief as the gate would write it for these logs\n` +
        `(files, or standard input): the signature and each failure's details, within N bytes\n` +
        `(default ${DEFAULT_MAX_BYTES}, the state file's default bound).\n`
    )
    return 0
  }
  const maxBytes = Number(values['max-bytes'] ?? DEFAULT_MAX_BYTES)
  if (!Number.isInteger(maxBytes) || maxBytes < 200) {
    io.stderr.write(
      `error: --max-bytes must be a whole number of at least 200, got '${values['max-bytes']}'\n${USAGE}\n`
    )
    return 2
  }
  const openFile = io.openFile ?? ((path: string) => createReadStream(path))
  const logs: BriefLog[] = []
  const sources = values.log && values.log.length > 0 ? values.log : [undefined]
  for (const path of sources) {
    try {
      const stream = path === undefined ? io.stdin : openFile(path)
      const result = await extractFailures(stream as AsyncIterable<Uint8Array | string>)
      logs.push({ check: path ?? 'standard input', findings: result.findings })
    } catch (error) {
      io.stderr.write(
        `error: cannot read the log ${path === undefined ? 'from standard input' : `file '${path}'`}: ` +
          `${errorMessage(error)}\nFix: check that the path exists and is readable, or pipe the log into standard input.\n`
      )
      return 2
    }
  }
  const lines = renderBriefFailurePart(logs, maxBytes)
  io.stdout.write(`${lines.join('\n')}\n`)
  return 0
}

/** One log read for the brief: the check it stands for and what the extractor found in it. */
export interface BriefLog {
  check: string
  findings: readonly Finding[]
}

/**
 * The failure part of the brief for these logs, within `maxBytes`: the signature and each
 * failure's details (`renderFailureDetails`, with each check's failure count); `no failure
 * found` when no log gave a key. Pure: the held-out benchmark renders real logs through it.
 */
export function renderBriefFailurePart(logs: readonly BriefLog[], maxBytes: number): string[] {
  const keys: string[] = []
  const details: FailureDetail[] = []
  const counts = new Map<string, number>()
  for (const { check, findings } of logs) {
    counts.set(check, (counts.get(check) ?? 0) + findings.length)
    for (const finding of findings) {
      keys.push(finding.key)
      if (finding.details) details.push({ check, key: finding.key, lines: finding.details })
    }
  }
  const signature = signatureOf(keys)
  if (signature.keys.length === 0) return ['no failure found']
  const head = [
    `- **Signature** (${signature.keys.length} key${signature.keys.length === 1 ? '' : 's'}): ${inlineCode(signature.short, 160)}`,
    ''
  ]
  const room = maxBytes - Buffer.byteLength(head.join('\n'), 'utf8') - 1
  return [...head, ...renderFailureDetails(details, room, {}, keys.length, counts)]
}
