/**
 * A plain line splitter, one callback per line, kept as the reference the extractor's block
 * splitter (`LineBlockSplitter`) is checked against: both must see the same lines for any
 * chunking of the same bytes.
 */
import { TextDecoder } from 'node:util'
import {
  DEFAULT_MAX_LINE_LENGTH,
  DEFAULT_MAX_LOG_BYTES,
  type LineReaderOptions
} from '../../../src/core/signature/lines.js'

/**
 * Splits UTF-8 bytes into lines (without the `\n`). Chunks may end anywhere, inside a line or
 * inside a multi-byte character; invalid bytes decode to U+FFFD.
 */
export class LineSplitter {
  private readonly decoder = new TextDecoder('utf-8')
  private readonly maxBytes: number
  private readonly maxLineLength: number
  private carry = ''
  /** The current line already reached the length cap: drop the rest of it. */
  private cutting = false
  private ended = false
  bytesRead = 0
  truncated = false

  constructor(
    private readonly onLine: (line: string) => void,
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
    this.writeText(this.decoder.decode(bytes, { stream: true }))
    return !this.truncated
  }

  private writeText(text: string): void {
    let start = 0
    if (this.carry.length > 0 || this.cutting) {
      const newline = text.indexOf('\n')
      if (newline === -1) {
        this.append(text, 0)
        return
      }
      this.append(text, 0, newline)
      this.emit()
      start = newline + 1
    }
    const max = this.maxLineLength
    const onLine = this.onLine
    for (;;) {
      const newline = text.indexOf('\n', start)
      if (newline === -1) break
      onLine(newline - start > max ? text.slice(start, start + max) : text.slice(start, newline))
      start = newline + 1
    }
    if (start < text.length) this.append(text, start)
  }

  /** Ends the stream: emits the last line unless the byte cap cut it. */
  end(): void {
    if (this.ended) return
    this.ended = true
    if (this.truncated) {
      this.carry = ''
      return
    }
    this.append(this.decoder.decode(), 0)
    if (this.carry.length > 0 || this.cutting) this.emit()
  }

  private append(text: string, from: number, to = text.length): void {
    if (this.cutting || from >= to) return
    const room = this.maxLineLength - this.carry.length
    if (to - from > room) {
      to = from + room
      this.cutting = true
    }
    this.carry = this.carry.length === 0 ? text.slice(from, to) : this.carry + text.slice(from, to)
  }

  private emit(): void {
    const line = this.carry
    this.carry = ''
    this.cutting = false
    this.onLine(line)
  }
}
