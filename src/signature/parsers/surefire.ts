/**
 * Maven Surefire (and Failsafe). Surefire 3 prints `[ERROR] com.x.FooTest.method -- Time
 * elapsed: 0.171 s <<< FAILURE!`, older releases `[ERROR] method(com.x.FooTest)  Time elapsed:
 * 0.01 s  <<< ERROR!`; the class line `Tests run: …, Failures: 1 … <<< FAILURE! -- in
 * com.x.FooTest` counts only when no method of that class is named (a class that failed to
 * initialise). On GitHub `[ERROR]` can read `Error:`. Key: `surefire:<class>.<method>`.
 */
import { buildKey } from '../normalise.js'
import type { Finding, ToolParser } from '../types.js'
import { FindingSet } from './common.js'

const PREFIX = String.raw`^(?:\[ERROR\]|Error:)\s+`
const METHOD_NEW = new RegExp(
  `${PREFIX}(\\S.{0,1000}?)\\s+-+\\s+Time elapsed:.*<<< (?:FAILURE|ERROR)!`
)
const METHOD_OLD = new RegExp(
  `${PREFIX}([^\\s(]{1,500})\\(([\\w.$]{1,500})\\)\\s+Time elapsed:.*<<< (?:FAILURE|ERROR)!`
)
const CLASS_LINE = new RegExp(
  `${PREFIX}Tests run:.*<<< (?:FAILURE|ERROR)!.*?\\s(?:in\\s+)?([\\w.$]{1,500})\\s*$`
)

export const surefireGrepPatterns = ['<<< (FAILURE|ERROR)!']

export function createSurefireParser(): ToolParser {
  const methods = new FindingSet()
  const classes = new FindingSet()
  const classesWithMethods = new Set<string>()
  return {
    tool: 'surefire',
    push(line) {
      if (line.indexOf('<<< ') === -1) return
      if (line.indexOf('Tests run:') !== -1) {
        const cls = CLASS_LINE.exec(line)
        if (cls !== null) classes.add(buildKey('surefire', cls[1]), line)
        return
      }
      const modern = METHOD_NEW.exec(line)
      if (modern !== null) {
        const id = modern[1] ?? ''
        const dot = id.replace(/\(.*$/, '').lastIndexOf('.')
        classesWithMethods.add(dot === -1 ? id : id.slice(0, dot))
        methods.add(buildKey('surefire', id), line)
        return
      }
      const old = METHOD_OLD.exec(line)
      if (old !== null) {
        classesWithMethods.add(old[2] ?? '')
        methods.add(buildKey('surefire', `${old[2]}.${old[1]}`), line)
      }
    },
    finish(): Finding[] {
      const named = new Set([...classesWithMethods].map((cls) => buildKey('surefire', cls)))
      return [...methods.list(), ...classes.list().filter((finding) => !named.has(finding.key))]
    }
  }
}
