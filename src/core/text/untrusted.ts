/**
 * Text taken from CI is untrusted (README: "Security"): logs, annotations, check-run output, status
 * descriptions, even check names and URLs. Anyone who can make a check fail controls it, and
 * it ends up in issue comments, job summaries, action outputs and logs. Every function here is
 * pure and runs in time linear in the input: each regular expression either starts at a fixed
 * literal and is followed by nothing that could make it re-scan a run, or is replaced by an
 * explicit scan (PEM blocks, HTML comments).
 *
 * Each formatter does the same preparation first (`prepare`):
 * 1. normalise: ANSI escapes, control characters and invisible (default-ignorable) characters
 *    such as zero-width spaces and bidi overrides are dropped, line ends become `\n`; so a
 *    token or a sentinel split by invisible characters is seen whole;
 * 2. redact secrets and masked values;
 * 3. remove HTML comments (an unterminated one up to the end of the text) and `AUTOLOOP:`
 *    marker text, so CI text can never forge the status-comment sentinel or a hidden marker.
 * Removed text is replaced by one space, which cannot take part in a comment opener or a
 * marker, so a removal never joins its neighbours into a new one.
 */

/** What a secret is replaced with, as the runner does. */
const REDACTED = '***'

/**
 * Masked values shorter than this are not redacted: masking every `true`, `main` or `1` would
 * make the text unreadable while protecting nothing a short value could hide.
 */
const MIN_MASKED_VALUE_LENGTH = 6

const DEFAULT_FENCE_MAX_LINES = 30
const DEFAULT_FENCE_MAX_CHARS = 4000

export interface UntrustedTextOptions {
  /** Values the runner masks (secrets, `add-mask`ed values), redacted wherever they appear. */
  maskedValues?: readonly string[] | undefined
}

interface FenceOptions extends UntrustedTextOptions {
  /** Lines shown at most (default 30). */
  maxLines?: number | undefined
  /** Characters of content shown at most, newlines included (default 4000). */
  maxChars?: number | undefined
}

// ---------------------------------------------------------------------------------------------
// Normalisation

/* eslint-disable no-control-regex -- these patterns exist to find control characters */
/** CSI sequences (colours, cursor moves) and OSC sequences (titles, hyperlinks). */
const ANSI_ESCAPE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?/g
/** C0 and C1 controls except tab and newline (carriage returns are turned into newlines first). */
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g
/* eslint-enable no-control-regex */
const LINE_BREAK = /\r\n?|[\u2028\u2029]/g
/** Zero-width characters, bidi controls, soft hyphens, variation selectors, tag characters. */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/**
 * Drops what hides or disguises text: ANSI escapes, control characters, invisible characters;
 * turns every line break into `\n` and lone surrogates into U+FFFD.
 */
export function normaliseText(text: string): string {
  return text
    .replace(ANSI_ESCAPE, '')
    .replace(LINE_BREAK, '\n')
    .replace(CONTROL, '')
    .replace(INVISIBLE, '')
    .replace(LONE_SURROGATE, '\uFFFD')
}

// ---------------------------------------------------------------------------------------------
// Secrets

/**
 * Token shapes. Each starts at a literal (or at the start of a run, by look-behind) and ends
 * with a greedy run that needs nothing after it, so no pattern can re-scan a run it started in.
 */
const SECRET_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  // GitHub: classic personal, OAuth, user-to-server, server-to-server and refresh tokens.
  [/gh[pousr]_[A-Za-z0-9]{20,}/g, REDACTED],
  // GitHub fine-grained personal access tokens.
  [/github_pat_[A-Za-z0-9_]{20,}/g, REDACTED],
  // AWS access key ids (long-term and temporary).
  [/(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/g, REDACTED],
  // AWS secret access keys next to their name: env, ini, JSON (`"SecretAccessKey": "…"`).
  [/((?:aws_?)?secret_?access_?key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{16,}/gi, `$1${REDACTED}`],
  // HTTP authorization headers, whatever the scheme; keeps the header and scheme names.
  [
    /(\bauthorization["']?\s*[:=]\s*["']?(?:(?:token|bearer|basic|digest)\s+)?)[^\s"',;]+/gi,
    `$1${REDACTED}`
  ],
  [/(\bbearer\s+)[A-Za-z0-9\-._~+/]{8,}=*/gi, `$1${REDACTED}`],
  // npm automation/publish tokens and `.npmrc` credentials.
  [/npm_[A-Za-z0-9]{30,}/g, REDACTED],
  [/(_auth(?:Token)?\s*=\s*|_password\s*=\s*)[^\s"']+/gi, `$1${REDACTED}`],
  // Slack bot, user, app and refresh tokens.
  [/xox[abposre]-[A-Za-z0-9-]{10,}/g, REDACTED],
  // JSON web tokens (OIDC tokens show up in CI logs), only at the start of a base64url run.
  [/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED],
  // Credentials in URLs: `https://user:pass@host`, `https://token@host`. The user-info run
  // cannot contain `/`, so it never spans the `scheme://` of another match.
  [/\b([A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/)[^\s/?#@"'<>()[\]{}]+@/g, `$1${REDACTED}@`]
]

/**
 * Masks token-like strings (GitHub, AWS, npm, Slack, JWT, authorization headers, PEM private
 * keys, credentials in URLs) and every masked value of at least `MIN_MASKED_VALUE_LENGTH`
 * characters (multi-line values also line by line) with `***`. Text only; use the formatters
 * below for text that will be shown.
 */
export function redactSecrets(text: string, maskedValues: readonly string[] = []): string {
  let result = redactMaskedValues(text, maskedValues)
  result = redactPrivateKeys(result)
  for (const [pattern, replacement] of SECRET_PATTERNS)
    result = result.replace(pattern, replacement)
  return result
}

function redactMaskedValues(text: string, maskedValues: readonly string[]): string {
  const values = new Set<string>()
  for (const value of maskedValues) {
    for (const candidate of [value, ...value.split(/\r?\n/)]) {
      if (candidate.length >= MIN_MASKED_VALUE_LENGTH) values.add(candidate)
    }
  }
  if (values.size === 0) return text
  // Longest first, so a value that contains another is masked whole.
  const alternatives = [...values].sort((a, b) => b.length - a.length).map(escapeRegExp)
  return text.replace(new RegExp(alternatives.join('|'), 'g'), REDACTED)
}

function escapeRegExp(literal: string): string {
  return literal.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')
}

const PEM_BEGIN = '-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY[A-Z ]{0,10}-----'
const PEM_END = '-----END[A-Z0-9 ]{0,40}PRIVATE KEY[A-Z ]{0,10}-----'

/**
 * Replaces each private-key block, BEGIN to END line, by `***`; a block with no END line is
 * key material to the end of the text. One forward scan: each END search starts after its
 * BEGIN, and the next BEGIN search after that END.
 */
function redactPrivateKeys(text: string): string {
  const begin = new RegExp(PEM_BEGIN, 'g')
  const end = new RegExp(PEM_END, 'g')
  let result = ''
  let from = 0
  for (;;) {
    begin.lastIndex = from
    const opening = begin.exec(text)
    if (opening === null) return result + text.slice(from)
    result += text.slice(from, opening.index) + REDACTED
    end.lastIndex = opening.index + opening[0].length
    const closing = end.exec(text)
    if (closing === null) return result
    from = closing.index + closing[0].length
  }
}

// ---------------------------------------------------------------------------------------------
// Comments and markers

/**
 * Marker text this project hides in comments and state (`<!-- AUTOLOOP:STATUS -->`,
 * `autoloop-ci-gate:` markers). Matched case-insensitively, after invisible characters are gone.
 */
const MARKER = /autoloop(?:-ci-gate)?:/gi

/** Removes every `<!-- … -->` (also `<!-->`, `<!--->`); an unterminated one runs to the end. */
export function removeHtmlComments(text: string): string {
  let result = ''
  let from = 0
  for (;;) {
    const open = text.indexOf('<!--', from)
    if (open === -1) return result + text.slice(from)
    result += text.slice(from, open) + ' '
    // HTML ends a comment at the first `-->`, even one that overlaps the opener's dashes.
    const close = text.indexOf('-->', open + 2)
    if (close === -1) return result
    from = close + 3
  }
}

/** Removes HTML comments, then marker text (`AUTOLOOP:` in any case). */
export function removeMarkers(text: string): string {
  return removeHtmlComments(text).replace(MARKER, ' ')
}

/** Normalise, redact, then drop HTML comments and markers: the start of every formatter. */
function prepare(text: string, options: UntrustedTextOptions | undefined): string {
  const masked = (options?.maskedValues ?? []).map(normaliseText)
  return removeMarkers(redactSecrets(normaliseText(text), masked))
}

// ---------------------------------------------------------------------------------------------
// Markdown outside a fence

const ZWJ = '\u200D'
/** Characters that start markdown syntax anywhere in a line and that CI text must not use. */
const INLINE_ESCAPED = new Set(['\\', '`', '[', ']', '|'])
/** Characters that start a block (heading, quote, list, rule, fence) at the start of a line. */
const LINE_START_ESCAPED = new Set(['#', '>', '+', '-', '*', '=', '_', '~'])
const ENTITY_LIKE = /#?[A-Za-z0-9]{1,32};/y
const ORDERED_LIST_MARKER = /[0-9]{1,9}[.)]/y

/**
 * Prepared text as markdown pieces: each piece is one source character, escaped as needed, so
 * a cut between pieces never splits an escape, a surrogate pair, or `@` from its joiner.
 * - `@` gets a zero-width joiner after it: GitHub only mentions `@` + letter or digit;
 * - `#1` and `GH-1` get one after `#` / `GH`, so GitHub does not link them as references;
 * - `<` becomes `&lt;` (no raw HTML), `&` before something entity-like becomes `&amp;` (so
 *   `@&#117;ser` cannot decode into a mention);
 * - `\`, backticks, brackets and `|` are backslash-escaped (no code spans, links, images or
 *   table cells), as are block markers at the start of a line.
 */
function markdownPieces(text: string): string[] {
  const pieces: string[] = []
  let atLineStart = true
  let indent = 0
  let i = 0
  while (i < text.length) {
    const ch = String.fromCodePoint(text.codePointAt(i) ?? 0)
    if (ch === '\n') {
      pieces.push(ch)
      atLineStart = true
      indent = 0
      i += 1
      continue
    }
    const startsLine = atLineStart && !(ch === ' ' && indent < 3)
    if (atLineStart) {
      if (!startsLine) {
        pieces.push(ch)
        indent += 1
        i += 1
        continue
      }
      atLineStart = false
      ORDERED_LIST_MARKER.lastIndex = i
      const listMarker = ORDERED_LIST_MARKER.exec(text)
      if (listMarker !== null) {
        for (const digit of listMarker[0].slice(0, -1)) pieces.push(digit)
        pieces.push(`\\${listMarker[0].slice(-1)}`)
        i += listMarker[0].length
        continue
      }
    }
    let piece = ch
    let consumed = ch.length
    if (INLINE_ESCAPED.has(ch)) piece = `\\${ch}`
    else if (ch === '<') piece = '&lt;'
    else if (ch === '&' && isEntityAt(text, i + 1)) piece = '&amp;'
    else if (ch === '@') piece = ch + ZWJ
    else if (ch === '#' && isDigit(text[i + 1] ?? '')) piece = ch + ZWJ
    else if ((ch === 'G' || ch === 'g') && isGhReference(text, i)) {
      piece = ch + (text[i + 1] ?? '') + ZWJ
      consumed = 2
    }
    pieces.push(startsLine && LINE_START_ESCAPED.has(ch) ? `\\${piece}` : piece)
    i += consumed
  }
  return pieces
}

function isDigit(ch: string): boolean {
  return ch >= '0' && ch <= '9'
}

function isEntityAt(text: string, index: number): boolean {
  ENTITY_LIKE.lastIndex = index
  return ENTITY_LIKE.test(text)
}

/** `GH-` followed by a digit, any case: GitHub links `GH-123` to issue 123. */
function isGhReference(text: string, index: number): boolean {
  const h = text[index + 1]
  return (h === 'H' || h === 'h') && text[index + 2] === '-' && isDigit(text[index + 3] ?? '')
}

/**
 * For untrusted text shown as markdown outside a fence (line breaks kept): prepared (redacted,
 * no HTML comments or markers), then mentions and issue references broken, raw HTML and
 * entities escaped, and markdown syntax escaped so the text renders as itself.
 */
export function neutralise(text: string, options?: UntrustedTextOptions): string {
  return markdownPieces(prepare(text, options)).join('')
}

/**
 * One line of neutralised markdown, at most `max` characters: whitespace runs (line breaks
 * included) become one space, `|` is escaped, and a cut text ends with `…`.
 */
export function oneLine(text: string, max: number, options?: UntrustedTextOptions): string {
  return boundedMarkdown(singleLine(prepare(text, options)), max)
}

/** Stands in for `|` where a table must never see one. */
const PIPE_SUBSTITUTE = '¦'

/**
 * A table cell value: like `oneLine`, but with no `|` at all (replaced by `¦`), not even
 * escaped, since the autoloop scheduler splits state-file rows on every `|`.
 */
export function tableCell(text: string, max: number, options?: UntrustedTextOptions): string {
  const line = singleLine(prepare(text, options)).replaceAll('|', PIPE_SUBSTITUTE)
  return boundedMarkdown(line, max)
}

/**
 * Untrusted text as one inline code span, shown verbatim (mentions, references and HTML do not
 * render in code): prepared, made one line, bounded to `max` characters of content, delimited
 * by a backtick run longer than any inside. Not for table cells (a `|` splits cells even in
 * code); use `tableCell` there.
 */
export function inlineCode(text: string, max: number, options?: UntrustedTextOptions): string {
  const content = cut(singleLine(prepare(text, options)), max)
  if (content === '') return '(empty)'
  const delimiter = '`'.repeat(longestRun(content, '`') + 1)
  // CommonMark strips one space on each side, which keeps a backtick at either end apart from
  // the delimiter.
  const padding = content.startsWith('`') || content.endsWith('`') ? ' ' : ''
  return `${delimiter}${padding}${content}${padding}${delimiter}`
}

/**
 * Untrusted text in a fenced code block it cannot break out of: prepared (redacted, no HTML
 * comments or markers; mentions do not ping inside a fence), bounded to `maxLines` lines and
 * `maxChars` characters (a cut line ends with `…`), fenced by a backtick run longer than any
 * inside, and followed by `… (N more lines)` when lines were left out.
 */
export function fence(text: string, options: FenceOptions = {}): string {
  const maxLines = positiveInteger(options.maxLines ?? DEFAULT_FENCE_MAX_LINES, 'maxLines')
  const maxChars = positiveInteger(options.maxChars ?? DEFAULT_FENCE_MAX_CHARS, 'maxChars')
  const lines = prepare(text, options).trimEnd().split('\n')
  if (lines.length === 1 && lines[0] === '') lines.pop()
  const shown: string[] = []
  let budget = maxChars
  for (const line of lines) {
    if (shown.length === maxLines || budget <= 0) break
    if (line.length <= budget) {
      shown.push(line)
      budget -= line.length + 1
    } else {
      shown.push(cut(line, budget))
      budget = 0
    }
  }
  const content = shown.join('\n')
  const delimiter = '`'.repeat(Math.max(3, longestRun(content, '`') + 1))
  const block =
    content === '' ? `${delimiter}\n${delimiter}` : `${delimiter}\n${content}\n${delimiter}`
  const omitted = lines.length - shown.length
  return omitted > 0 ? `${block}\n… (${omitted} more line${omitted === 1 ? '' : 's'})` : block
}

/**
 * Untrusted text for the action's own log: redacted, and unable to issue workflow commands
 * (`::command::` lines, `##[command]`), which the runner would otherwise obey.
 */
export function forLog(text: string, options?: UntrustedTextOptions): string {
  const masked = (options?.maskedValues ?? []).map(normaliseText)
  return redactSecrets(normaliseText(text), masked)
    .replace(/^([ \t]*):(?=:)/gm, `$1:${ZWJ}`)
    .replaceAll('##[', `##${ZWJ}[`)
}

// ---------------------------------------------------------------------------------------------
// Helpers

function singleLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/** `text` if at most `max` characters, else its start (no half surrogate pair) and `…`. */
export function cut(text: string, max: number): string {
  positiveInteger(max, 'max')
  if (text.length <= max) return text
  let end = max - 1
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end -= 1
  return `${text.slice(0, end)}…`
}

/**
 * Each source character yields at least one output character and looks at most this far
 * ahead, so the pieces of the first `max + MARKDOWN_LOOKAHEAD` characters decide a bounded line.
 */
const MARKDOWN_LOOKAHEAD = 40

function boundedMarkdown(line: string, max: number): string {
  return boundPieces(markdownPieces(line.slice(0, max + MARKDOWN_LOOKAHEAD)), max)
}

/** Joins pieces; if they exceed `max` characters, keeps whole pieces and ends with `…`. */
function boundPieces(pieces: readonly string[], max: number): string {
  positiveInteger(max, 'max')
  let total = 0
  for (const piece of pieces) total += piece.length
  if (total <= max) return pieces.join('')
  let result = ''
  for (const piece of pieces) {
    if (result.length + piece.length > max - 1) break
    result += piece
  }
  return `${result}…`
}

function longestRun(text: string, ch: string): number {
  let longest = 0
  let current = 0
  for (const c of text) {
    current = c === ch ? current + 1 : 0
    if (current > longest) longest = current
  }
  return longest
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a whole number of at least 1, got ${value}`)
  }
  return value
}
