/**
 * Gathering (README: "Failure signatures"): for each red check, the cheapest source that
 * explains the failure —
 * check-run annotations, then the check run's output, then (GitHub Actions jobs only) the
 * job log, streamed with a byte cap; for commit statuses their context and description.
 * A missing or expired log is reported in the result, never fatal.
 */
import type { GatheredFailure } from '../core/checks/findings.js'
import type { AnnotationInfo, FailureSources } from '../ports.js'
import type { CheckView } from '../core/checks/reduce.js'
import type { Logger } from '../ports.js'
import { errorMessage } from '../core/errors.js'
import {
  extractFailures,
  extractFailuresFromString,
  type ExtractResult
} from '../core/signature/extract.js'
import { DETAIL_LIMITS } from '../core/signature/details.js'
import { buildKey, maskMessage, normalisePath } from '../core/signature/normalise.js'

export interface GatherOptions {
  log: Logger
  /** Bytes of a job log read at most. */
  maxLogBytes?: number
  /** Lines kept per check for the summary. */
  maxLines?: number
}

/**
 * What the gate reads of one job's log: less than the extractor's own cap (DEFAULT_MAX_LOG_BYTES,
 * for a log given to the CLI), since a gate may read several logs in one run.
 */
const JOB_LOG_MAX_BYTES = 64 * 1024 * 1024
const DEFAULT_MAX_LINES = 10

/** Annotations GitHub adds to every failed step: they say nothing about the failure. */
const GENERIC_ANNOTATION =
  /^(?:Process completed with exit code \d+\.?|The operation was canceled\.?|The job was canceled\b.*|The runner has received a shutdown signal.*|The job running on runner .* has exceeded the maximum execution time.*)$/

/** Keys from a parser (not the unknown-tool fallback) explain a failure. */
function specific(keys: readonly string[]): boolean {
  return keys.some((key) => !key.startsWith('error:'))
}

function fromExtraction(
  result: ExtractResult,
  maxLines: number
): { keys: string[]; lines: string[]; details: { key: string; lines: string[] }[] } {
  return {
    keys: result.findings.map((finding) => finding.key),
    lines: result.findings.slice(0, maxLines).map((finding) => finding.line),
    details: result.findings.flatMap((finding) =>
      finding.details ? [{ key: finding.key, lines: finding.details }] : []
    )
  }
}

/** A diagnostic code as problem matchers and tools put it in an annotation's title. */
const ANNOTATION_CODE = /^(?:TS|CS|BC|FS|NU|MSB)?[A-Z]{0,3}\d{2,5}$/
const PYTHON_FILE = /\.pyi?$/

/**
 * An annotation as the lines its tool prints in a log, so that the same tool parsers read both
 * and an annotation gives the key of the log line it came from: the message as it is (a tool's
 * own `::error::` text), and with its path (and its code, when the title is one) in the shapes
 * compilers and linters print: `path(1,1): error CODE: msg` (tsc, MSBuild), `path:1:1: CODE msg`
 * (flake8, ruff), `path:1: error: msg` (mypy), `path:1:1: msg` (go). Line numbers are never in
 * keys, so the annotation's own do not matter.
 */
function annotationAsLogLines(annotation: AnnotationInfo): string[] {
  const message = annotation.message.split('\n')
  const first = (message[0] ?? '').trim()
  const lines = [...message]
  const path = annotation.path
  if (!path || first === '') return lines
  const title = (annotation.title ?? '').trim()
  const code = ANNOTATION_CODE.test(title) ? title : undefined
  if (code !== undefined) {
    const text = first.startsWith(`${code}: `) ? first.slice(code.length + 2) : first
    lines.push(`${path}(1,1): error ${code}: ${text}`, `${path}:1:1: ${code} ${text}`)
  }
  if (PYTHON_FILE.test(path)) lines.push(`${path}:1: error: ${first}`)
  else lines.push(`${path}:1:1: ${first}`)
  return lines
}

function annotationKeys(annotations: readonly AnnotationInfo[], maxLines: number) {
  const telling = annotations.filter(
    (a) => a.level === 'failure' && !GENERIC_ANNOTATION.test(a.message.trim())
  )
  const fromText = fromExtraction(
    extractFailuresFromString(`${telling.flatMap(annotationAsLogLines).join('\n')}\n`),
    maxLines
  )
  if (specific(fromText.keys)) return fromText
  const keys = telling.map((a) =>
    buildKey(
      'annotation',
      a.path ? normalisePath(a.path) : undefined,
      maskMessage(a.title || a.message.split('\n')[0] || '')
    )
  )
  return {
    keys,
    lines: telling.slice(0, maxLines).map((a) => `${a.path}: ${a.message.split('\n')[0] ?? ''}`),
    // An annotation's details: its path and message, as the check run gave them.
    details: telling.map((a, i) => ({
      key: keys[i] ?? '',
      lines: [...(a.path ? [a.path] : []), ...a.message.split('\n')].slice(0, DETAIL_LIMITS.lines)
    }))
  }
}

export async function gatherFailure(
  check: CheckView,
  sources: FailureSources,
  options: GatherOptions
): Promise<GatheredFailure> {
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES
  const base = {
    name: check.name,
    kind: check.kind,
    conclusion: check.conclusion ?? check.state,
    url: check.url
  }
  if (check.kind === 'status') {
    const description = check.description ?? ''
    const key = buildKey('status', check.name, description ? maskMessage(description) : undefined)
    return {
      ...base,
      source: 'status',
      keys: [key],
      firstErrorLines: description ? [description] : [],
      ...(description ? { details: [{ key, lines: [description] }] } : {})
    }
  }
  const notes: string[] = []
  let fallbackLines: string[] = []
  let fallbackKeys: string[] = []
  let fallbackDetails: { key: string; lines: string[] }[] = []
  try {
    const output = await sources.checkRunOutput(check.id)
    if (output.annotationsCount > 0) {
      const found = annotationKeys(await sources.annotations(check.id), maxLines)
      if (found.keys.length > 0)
        return {
          ...base,
          source: 'annotations',
          keys: found.keys,
          firstErrorLines: found.lines,
          details: found.details
        }
    }
    const text = [output.title, output.summary, output.text].filter(Boolean).join('\n')
    if (text) {
      const found = fromExtraction(extractFailuresFromString(text), maxLines)
      if (specific(found.keys))
        return {
          ...base,
          source: 'output',
          keys: found.keys,
          firstErrorLines: found.lines,
          details: found.details
        }
      fallbackKeys = found.keys
      fallbackLines = found.lines
      fallbackDetails = found.details
    }
  } catch (error) {
    notes.push(`check run details unreadable: ${errorMessage(error)}`)
  }
  if (check.jobId !== undefined) {
    try {
      const stream = await sources.jobLog(check.jobId)
      if (stream) {
        const result = await extractFailures(stream, {
          maxBytes: options.maxLogBytes ?? JOB_LOG_MAX_BYTES
        })
        const found = fromExtraction(result, maxLines)
        if (found.keys.length > 0) {
          return {
            ...base,
            source: 'log',
            keys: found.keys,
            firstErrorLines: found.lines,
            details: found.details,
            ...(result.truncated
              ? { logTruncated: true, note: `log read up to ${result.bytesRead} bytes` }
              : {})
          }
        }
        notes.push('the job log shows no recognisable error line')
      } else notes.push('the job log is no longer available (expired or deleted)')
    } catch (error) {
      notes.push(`the job log could not be read: ${errorMessage(error)}`)
    }
  }
  if (fallbackKeys.length > 0)
    return {
      ...base,
      source: 'output',
      keys: fallbackKeys,
      firstErrorLines: fallbackLines,
      details: fallbackDetails,
      ...(notes.length ? { note: notes.join('; ') } : {})
    }
  options.log.info(
    `No failure detail found for "${check.name}": ${notes.join('; ') || 'no annotations, output or log'}`
  )
  return {
    ...base,
    source: 'none',
    keys: [buildKey('check', check.name, check.conclusion ?? check.state)],
    firstErrorLines: [],
    ...(notes.length ? { note: notes.join('; ') } : {})
  }
}

/** Gathers every failing check, one at a time (a log can be large; memory stays flat). */
export async function gatherFailures(
  failing: readonly CheckView[],
  sources: FailureSources,
  options: GatherOptions
): Promise<GatheredFailure[]> {
  const gathered: GatheredFailure[] = []
  for (const check of failing) gathered.push(await gatherFailure(check, sources, options))
  return gathered
}
