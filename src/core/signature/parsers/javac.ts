/**
 * javac, plain (`Foo.java:5: error: cannot find symbol`, also what Gradle shows) and through
 * Maven (`[ERROR] /abs/Foo.java:[3,25] cannot find symbol`), each optionally followed by a
 * `symbol:` line. Maven repeats its compile errors in the final `Failed to execute goal`
 * report; the keys are equal, so they count once. Warnings are not failures. Class names lose
 * their package (`java.lang.String` → `String`), which Maven's javac run prints and plain javac
 * does not.
 * Key: `javac:<masked message>:<symbol>:<path>`.
 */
import { buildKey, maskMessage, normalisePath, stripErrorMarker } from '../normalise.js'
import type { ToolParser } from '../types.js'
import { FailureDetails } from '../details.js'
import { FindingSet } from './common.js'

const MAVEN =
  /^(?:\[ERROR\]|Error:)\s+((?:[A-Za-z]:)?[^:\s][^:]{0,1000}\.java):\[\d+(?:,\d+)?\] (.*)$/
const PLAIN = /^((?:[A-Za-z]:)?[^:\s][^:]{0,1000}\.java):\d+: error: (.*)$/
const SYMBOL = /^(?:\[ERROR\]|Error:)?\s+symbol:\s+(.{1,200}?)\s*$/

export const javacGrepPatterns = ['\\.java:\\[[0-9]+(,[0-9]+)?\\] ', '\\.java:[0-9]+: error: ']

export function createJavacParser(): ToolParser {
  /** Per error: its line, the source line and caret, the `symbol:` and `location:` lines. */
  const details = new FailureDetails()
  const findings = new FindingSet(details)
  let pending: { path: string; message: string; line: string; waited: number } | undefined
  let errors = 0
  /** The `symbol:` line was read: a `location:` line may follow. */
  let afterSymbol = false
  const flush = (symbol?: string): void => {
    if (pending === undefined) return
    const key = buildKey('javac', pending.message, symbol, pending.path)
    findings.add(key, pending.line, false, String(errors - 1))
    pending = undefined
  }
  return {
    tool: 'javac',
    push(raw) {
      if (afterSymbol) {
        afterSymbol = false
        if (raw.indexOf('location:') !== -1) details.add(raw)
        details.close()
      }
      if (pending !== undefined) {
        if (raw.indexOf('symbol:') !== -1) {
          const symbol = SYMBOL.exec(raw)
          if (symbol !== null) {
            details.add(raw)
            flush(unqualify(symbol[1] ?? '').replace(/\s+/g, ' '))
            afterSymbol = true
            return true
          }
        }
        if (raw.indexOf('.java:') === -1) details.add(raw)
        // The source line and caret come between the error and its symbol line.
        pending.waited += 1
        if (pending.waited > 3 || raw.indexOf('.java:') !== -1) flush()
      }
      if (raw.indexOf('.java:') === -1) return pending !== undefined
      const line = stripErrorMarker(raw)
      const match = MAVEN.exec(line) ?? PLAIN.exec(line)
      if (match === null) return pending !== undefined
      pending = {
        path: normalisePath(match[1] ?? ''),
        message: maskMessage(unqualify(match[2] ?? ''), 80),
        line: raw,
        waited: 0
      }
      details.open(String(errors++), raw)
      return true
    },
    finish() {
      flush()
      return findings.list()
    }
  }
}

/**
 * Drops package qualifiers from class names: Maven's javac run prints `java.lang.String` where
 * plain javac prints `String`.
 */
function unqualify(text: string): string {
  return text.replace(/\b(?:[a-z_][\w$]{0,100}\.){1,20}(?=[A-Z])/g, '')
}
