/**
 * Turns a CI log, raw tool output or a GitHub Actions job log, into clean lines, one chunk at a
 * time: the log is never held whole, a byte cap stops reading (the result then says it was
 * truncated), and an overlong line is cut.
 */

/** Lines longer than this many characters are cut (minified bundles, base64 blobs). */
export const DEFAULT_MAX_LINE_LENGTH = 16 * 1024
/** Reading stops after this many bytes unless the caller sets another cap. */
export const DEFAULT_MAX_LOG_BYTES = 512 * 1024 * 1024

export interface LineReaderOptions {
  /** Stop reading after this many bytes; the line cut by the cap is dropped. */
  maxBytes?: number
  /** Cut lines after this many characters (bytes in `latin1` mode). */
  maxLineLength?: number
}

/**
 * Splits bytes into blocks of whole lines held as byte strings (one character per byte, `latin1`),
 * so that one regular-expression search can skip many noise lines at once. Every block ends
 * with `\n`. A line longer than the cap is cut only when it spans chunks (the caller cuts
 * the others), which bounds the memory a line without newlines can take.
 */
export class LineBlockSplitter {
  private readonly maxBytes: number
  private readonly maxLineLength: number
  private carry = ''
  private cutting = false
  private ended = false
  bytesRead = 0
  truncated = false

  constructor(
    /** Gets each block; `unterminated` marks the last line of the stream when no newline ended it. */
    private readonly onBlock: (block: string, unterminated?: boolean) => void,
    options: LineReaderOptions = {}
  ) {
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_LOG_BYTES
    this.maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH
  }

  /** Feeds bytes; returns false once the byte cap is reached and nothing more will be read. */
  write(chunk: Uint8Array): boolean {
    if (this.truncated || this.ended) return false
    let bytes = chunk
    const room = this.maxBytes - this.bytesRead
    if (bytes.length > room) {
      bytes = bytes.subarray(0, Math.max(0, room))
      this.truncated = true
    }
    this.bytesRead += bytes.length
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1')
    const last = text.lastIndexOf('\n')
    if (last === -1) {
      this.append(text)
      return !this.truncated
    }
    let block: string
    if (this.cutting) {
      // The carried line reached the cap: the rest of it, up to its newline, is dropped.
      block = this.carry + text.slice(text.indexOf('\n'), last + 1)
    } else {
      block = this.carry.length > 0 ? this.carry + text.slice(0, last + 1) : text.slice(0, last + 1)
    }
    this.carry = ''
    this.cutting = false
    this.append(text.slice(last + 1))
    this.onBlock(block)
    return !this.truncated
  }

  /** Ends the stream: emits the last line unless the byte cap cut it. */
  end(): void {
    if (this.ended) return
    this.ended = true
    if (!this.truncated && (this.carry.length > 0 || this.cutting)) {
      this.onBlock(`${this.carry}\n`, true)
    }
    this.carry = ''
  }

  private append(text: string): void {
    if (this.cutting || text.length === 0) return
    const room = this.maxLineLength - this.carry.length
    if (text.length > room) {
      this.carry += text.slice(0, room)
      this.cutting = true
    } else this.carry += text
  }
}

const NON_ASCII = /[\x80-\xff]/

/** Decodes a byte string (from `latin1` mode) as UTF-8. */
export function bytesToText(bytes: string): string {
  return NON_ASCII.test(bytes) ? Buffer.from(bytes, 'latin1').toString('utf8') : bytes
}

/** A regular expression written for text, rewritten to match the same text as a byte string. */
export function byteStringPattern(source: string): string {
  return Buffer.from(source, 'utf8').toString('latin1')
}

/**
 * Characters that mean a line needs more than the timestamp cut: CR, ESC, C1 controls, U+FFFD,
 * BOM, and ESC written visibly as `^[` (`cat -v`, log archives) before a CSI's `[`.
 */
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const NEEDS_CLEANING = /[\r\x1b\x80-\x9f\ufeff\ufffd]|\^\[\[/
/**
 * Terminal control sequences: 7-bit CSI (`ESC [`, also with ESC written as `^[`), 8-bit CSI (U+009B, or a raw 0x9b byte that
 * decoded to U+FFFD), OSC (`ESC ]` or U+009D, up to BEL or ST, e.g. hyperlinks), other
 * two-byte escapes, and any remaining C1 control. Every alternative is a run of disjoint
 * character classes, so matching stays linear.
 */
const CONTROL_SEQUENCES =
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  /(?:\x1b|\^\[)\[[0-?]*[ -/]*[@-~]?|[\x9b\ufffd][0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?|[\x80-\x9f]/g

/**
 * `gh run view --log` and `--log-failed` put the job's and the step's names, each followed by a
 * tab, before the runner's timestamp of every line (the step's first line has a BOM after them).
 * A name holds no tab; the step is `UNKNOWN STEP` when gh cannot tell.
 */
const GH_COPY_PREFIX =
  /[^\t\n]{1,300}\t[^\t\n]{1,300}\t(?=(?:\ufeff|\xef\xbb\xbf)?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)/y
/**
 * Length of a `gh run view --log` prefix (`<job>\t<step>\t`, see GH_COPY_PREFIX) at `start` of
 * `text` (a line or a byte string), 0 when there is none; the BOM and timestamp after it stay.
 */
export function ghCopyPrefixLength(text: string, start: number): number {
  const tab = text.indexOf('\t', start)
  if (tab <= start || tab > start + 300) return 0
  GH_COPY_PREFIX.lastIndex = start
  return GH_COPY_PREFIX.test(text) ? GH_COPY_PREFIX.lastIndex - start : 0
}

/**
 * Removes a `gh run view --log` copy's job and step names (see ghCopyPrefixLength), the runner's
 * timestamp prefix, a BOM, CR overwrites (only what was written after the
 * last lone CR stays, as on a terminal), terminal control sequences and the line prefixes other
 * CI systems and builders add (see `foreignPrefixLength`) from one line.
 */
export function cleanLine(raw: string): string {
  let line = raw
  if (line.charCodeAt(0) === 0xfeff) line = line.slice(1)
  const copied = ghCopyPrefixLength(line, 0)
  if (copied > 0) line = line.slice(copied)
  if (line.charCodeAt(0) === 0xfeff) line = line.slice(1)
  line = stripTimestamp(line)
  if (NEEDS_CLEANING.test(line)) {
    if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1)
    const cr = line.lastIndexOf('\r')
    if (cr !== -1) line = line.slice(cr + 1)
    if (line.indexOf('\ufeff') !== -1) line = line.replaceAll('\ufeff', '')
    line = line.replace(CONTROL_SEQUENCES, '')
  }
  let prefix = foreignPrefixLength(line, 0)
  prefix += builderPrefixLength(line, prefix)
  return prefix === 0 ? line : line.slice(prefix)
}

/**
 * Prefixes that other CI systems and builders put before every line of a tool's output, tried
 * where a line begins (after the runner's own timestamp): Docker BuildKit's plain progress
 * (`#12 16.69 `: step number and seconds), a clock (`13:10:32 `, `[13:10:32.123] `, Jenkins'
 * timestamper), and a date and time in other forms than the runner's (`2026-07-28 13:10:32 `,
 * `[2026-07-28T13:10:32.123Z] `, GitLab's `2026-07-28T13:10:32.123456Z 00O `, whose time has the
 * runner's shape and goes first, leaving its stream mark `00O `), and the Open Build Service's
 * seconds since the build began (`[   14s] `, `[  260s] `; a line with nothing after it keeps
 * only the bracket when the blank was trimmed). Exactly one blank after the prefix goes, so the
 * tool's own indentation stays. Also matches byte strings.
 */
const FOREIGN_PREFIX =
  /#\d{1,5} \d{1,6}\.\d{1,3} |\[ {0,6}\d{1,7}s\](?: |(?=[\r\n]|$))|\d\d[OE]\+? |\[?(?:\d{4}-\d\d-\d\d[T ])?\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\]? (?:\d\d[OE]\+? )?/y

/** Length of the foreign prefixes (see FOREIGN_PREFIX) at `start` of `text`; 0 when there is none. */
export function foreignPrefixLength(text: string, start: number): number {
  let at = start
  for (let round = 0; round < 2; round++) {
    // Cheap first test: every such prefix starts with `#`, `[` or a digit.
    const code = text.charCodeAt(at)
    if (code !== 35 && code !== 91 && (code < 48 || code > 57)) break
    FOREIGN_PREFIX.lastIndex = at
    if (!FOREIGN_PREFIX.test(text)) break
    at = FOREIGN_PREFIX.lastIndex
  }
  return at - start
}

/**
 * The prefixes Nix puts before a build's lines: `nix build -L` and `nix log` the derivation's
 * name and `> ` (`python3.12-foo-1.0> `, `foo> `), and the tail of a failed build's log that it
 * prints under its error seven blanks and `> ` (`       > `, `       >` on an empty line).
 */
const NIX_TAIL_INDENT = 7
/** Longest derivation name read before `> `. */
const MAX_NIX_NAME = 200

/** A character of a derivation's name: a letter, a digit, `_`, `.`, `+` or `-`. */
function isNameCode(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 46 ||
    code === 43 ||
    code === 45
  )
}

/**
 * Length of a Nix builder prefix at `start` of `text` (a line or a byte string): a derivation's
 * name (a letter or digit, then name characters) and `> `, or seven blanks and `>` followed by a
 * blank or the line's end; 0 when there is none. Read by character codes: it is tried where
 * every line begins.
 */
export function builderPrefixLength(text: string, start: number): number {
  const code = text.charCodeAt(start)
  if (code === 32) {
    const gt = start + NIX_TAIL_INDENT
    if (text.charCodeAt(gt) !== 62) return 0
    for (let i = start + 1; i < gt; i++) if (text.charCodeAt(i) !== 32) return 0
    const after = text.charCodeAt(gt + 1)
    if (after === 32) return NIX_TAIL_INDENT + 2
    return Number.isNaN(after) || after === 10 || after === 13 ? NIX_TAIL_INDENT + 1 : 0
  }
  // A name starts with a letter or a digit.
  if (!isNameCode(code) || code === 95 || code === 46 || code === 43 || code === 45) return 0
  const limit = Math.min(text.length, start + MAX_NIX_NAME + 1)
  let i = start + 1
  while (i < limit && isNameCode(text.charCodeAt(i))) i++
  return text.charCodeAt(i) === 62 && text.charCodeAt(i + 1) === 32 ? i + 2 - start : 0
}

/** Removes a runner timestamp, `2026-07-28T23:19:32.4965943Z ` (0 to 9 fraction digits). */
export function stripTimestamp(line: string): string {
  // Shape test by character codes: `dddd-dd-ddTdd:dd:dd`, cheaper than a regex on every line.
  if (
    line.length < 20 ||
    line.charCodeAt(4) !== 45 ||
    line.charCodeAt(7) !== 45 ||
    line.charCodeAt(10) !== 84 ||
    line.charCodeAt(13) !== 58 ||
    line.charCodeAt(16) !== 58 ||
    !isDigits(line, 0, 4)
  ) {
    return line
  }
  let i = 19
  if (line.charCodeAt(i) === 46) {
    i += 1
    const end = Math.min(line.length, i + 9)
    while (i < end && isDigit(line.charCodeAt(i))) i += 1
  }
  if (line.charCodeAt(i) !== 90) return line // Z
  i += 1
  if (line.charCodeAt(i) === 32) i += 1
  return line.slice(i)
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57
}

function isDigits(line: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isDigit(line.charCodeAt(i))) return false
  return true
}

/**
 * The runner's `##[group]` / `##[endgroup]` / `##[debug]` marker lines, which parsers never see:
 * `undefined` for any other line, else the group title (the step name, `Run ` removed) when
 * the line opens a group.
 */
export function runnerMarker(line: string): { step?: string } | undefined {
  if (line.charCodeAt(0) !== 35 || !line.startsWith('##[')) return undefined
  if (line.startsWith('##[group]')) {
    const title = line.slice(9).trim()
    return { step: title.startsWith('Run ') ? title.slice(4).trim() : title }
  }
  if (line.startsWith('##[endgroup]') || line.startsWith('##[debug]')) return {}
  return undefined
}
