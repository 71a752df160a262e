/**
 * `autoloop-ci-gate signature [--log FILE]... [--json]` (README: "Failure signatures"): reads CI logs, raw tool
 * output or runner job logs, from files or standard input, streaming, and prints the failure
 * keys and the signature. Keys from several logs are merged, as for several failing checks.
 */
import { createReadStream } from 'node:fs'
import { parseArgs } from 'node:util'
import { errorMessage } from '../core/errors.js'
import { extractFailures } from '../core/signature/extract.js'
import { signatureOf } from '../core/signature/signature.js'

export interface SignatureCommandIo {
  stdin: NodeJS.ReadableStream
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
  /** Opens a log file; defaults to a file stream. */
  openFile?: (path: string) => NodeJS.ReadableStream
}

const USAGE = 'usage: autoloop-ci-gate signature [--log FILE]... [--json]'

interface SignatureArgs {
  logs: string[]
  json: boolean
  help: boolean
}

/** Parses the arguments; returns a message naming the fix when they are wrong. */
export function parseSignatureArgs(args: readonly string[]): SignatureArgs | string {
  let values: { log?: string[]; json?: boolean; help?: boolean }
  try {
    values = parseArgs({
      args: [...args],
      options: {
        log: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' }
      },
      strict: true,
      allowPositionals: false
    }).values
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const code = (error as { code?: string }).code
    const option = /'(-[^' ]+)/.exec(message)?.[1] ?? message
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option.startsWith('--log'))
      return '--log needs a file name: pass --log path/to/job.log (or pipe the log into standard input)'
    return `unknown argument '${option}': the signature command takes only --log FILE (repeatable) and --json`
  }
  const logs = values.log ?? []
  if (logs.some((file) => file === '' || file.startsWith('--')))
    return '--log needs a file name: pass --log path/to/job.log (or pipe the log into standard input)'
  return { logs, json: values.json ?? false, help: values.help ?? false }
}

export async function runSignatureCommand(args: string[], io: SignatureCommandIo): Promise<number> {
  const parsed = parseSignatureArgs(args)
  if (typeof parsed === 'string') {
    io.stderr.write(`error: ${parsed}\n${USAGE}\n`)
    return 2
  }
  if (parsed.help) {
    io.stdout.write(
      `${USAGE}\n\nReads CI logs (files, or standard input when no --log is given; raw tool output or\n` +
        `GitHub Actions job logs) and prints the failure keys, one per line, and the signature.\n` +
        `--json prints one object: {"signature": "...", "short": "...", "keys": [...]}.\n`
    )
    return 0
  }
  const openFile = io.openFile ?? ((path: string) => createReadStream(path))
  const keys: string[] = []
  const truncatedLogs: string[] = []
  const sources = parsed.logs.length > 0 ? parsed.logs : [undefined]
  for (const path of sources) {
    const name = path ?? 'standard input'
    try {
      const stream = path === undefined ? io.stdin : openFile(path)
      const result = await extractFailures(stream as AsyncIterable<Uint8Array | string>)
      keys.push(...result.findings.map((finding) => finding.key))
      if (result.truncated) truncatedLogs.push(name)
    } catch (error) {
      io.stderr.write(
        `error: cannot read the log ${path === undefined ? 'from standard input' : `file '${path}'`}: ` +
          `${errorMessage(error)}\nFix: check that the path exists and is readable, or pipe the log into standard input.\n`
      )
      return 2
    }
  }
  for (const name of truncatedLogs) {
    io.stderr.write(
      `warning: ${name} was cut at the size cap; the signature covers its first part only\n`
    )
  }
  const signature = signatureOf(keys)
  if (parsed.json) {
    io.stdout.write(
      `${JSON.stringify({ signature: signature.full, short: signature.short, keys: signature.keys })}\n`
    )
    return 0
  }
  if (signature.keys.length === 0) {
    io.stdout.write('no failure found\n')
    return 0
  }
  io.stdout.write(`${signature.keys.join('\n')}\n\nsignature: ${signature.full}\n`)
  if (signature.short !== signature.full) io.stdout.write(`short: ${signature.short}\n`)
  return 0
}
