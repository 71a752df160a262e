/**
 * Test-side readers of the markdown this project writes, following the CommonMark rules that
 * matter for safety (fences, code spans, backslash escapes), written independently of the code
 * under test.
 */

export interface ParsedFence {
  delimiter: string
  content: string
  /** Whatever followed the closing fence line (e.g. the `… (N more lines)` note). */
  after: string
}

/**
 * Reads a markdown text that must start with a backtick fence: the closing line is the first
 * later line of at most three spaces and a backtick run at least as long as the opener.
 */
export function parseFence(markdown: string): ParsedFence {
  const lines = markdown.split('\n')
  const opener = /^(`{3,})$/.exec(lines[0] ?? '')
  if (opener === null) throw new Error(`not a backtick fence: ${JSON.stringify(lines[0])}`)
  const delimiter = opener[1] ?? ''
  for (let i = 1; i < lines.length; i += 1) {
    const run = /^ {0,3}(`+)[ \t]*$/.exec(lines[i] ?? '')
    if (run !== null && (run[1] ?? '').length >= delimiter.length) {
      return {
        delimiter,
        content: lines.slice(1, i).join('\n'),
        after: lines.slice(i + 1).join('\n')
      }
    }
  }
  throw new Error('fence never closed')
}

/** The markdown with every fenced block and inline code span removed: what renders as prose. */
export function proseOf(markdown: string): string {
  const out: string[] = []
  const lines = markdown.split('\n')
  let fenceLength = 0
  for (const line of lines) {
    if (fenceLength > 0) {
      const run = /^ {0,3}(`+)[ \t]*$/.exec(line)
      if (run !== null && (run[1] ?? '').length >= fenceLength) fenceLength = 0
      continue
    }
    const opener = /^ {0,3}(`{3,})[^`]*$/.exec(line)
    if (opener !== null) {
      fenceLength = (opener[1] ?? '').length
      continue
    }
    out.push(line)
  }
  if (fenceLength > 0) throw new Error('a fence was left open')
  return removeCodeSpans(out.join('\n'))
}

/** Removes inline code spans: a backtick run up to the next run of exactly the same length. */
function removeCodeSpans(text: string): string {
  let result = ''
  let i = 0
  while (i < text.length) {
    if (text[i] === '\\' && i + 1 < text.length) {
      result += text.slice(i, i + 2)
      i += 2
      continue
    }
    if (text[i] !== '`') {
      result += text[i]
      i += 1
      continue
    }
    let runEnd = i
    while (text[runEnd] === '`') runEnd += 1
    const length = runEnd - i
    let search = runEnd
    let close = -1
    while (search < text.length) {
      const next = text.indexOf('`', search)
      if (next === -1) break
      let end = next
      while (text[end] === '`') end += 1
      if (end - next === length) {
        close = end
        break
      }
      search = end
    }
    if (close === -1) {
      result += text.slice(i, runEnd)
      i = runEnd
    } else {
      result += ' '
      i = close
    }
  }
  return result
}

/** Positions of `ch` not preceded by an odd number of backslashes. */
export function unescaped(text: string, ch: string): number[] {
  const found: number[] = []
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] !== ch) continue
    let backslashes = 0
    for (let j = i - 1; j >= 0 && text[j] === '\\'; j -= 1) backslashes += 1
    if (backslashes % 2 === 0) found.push(i)
  }
  return found
}

/** What GitHub turns into a user or team mention: `@` directly followed by a letter or digit. */
export const MENTION = /@[A-Za-z0-9]/
/** What GitHub turns into an issue or pull-request reference. */
export const REFERENCE = /#[0-9]|GH-[0-9]/i

/** A lenient view of text as a status-comment finder might read it. */
export function looseView(text: string): string {
  return text.replace(/\p{Default_Ignorable_Code_Point}/gu, '').toLowerCase()
}
