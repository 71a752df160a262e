/**
 * Failure details (docs/failure-details.md: "Failure details"): what a fixer needs of each failure, kept as the
 * tool printed it — the error or assertion message, expected and received values, the failing
 * location inside the project with its line number, the source line or code frame. Keys name a
 * failure and lose line numbers and values (noise); details keep them (facts).
 *
 * A parser keeps one bounded window of lines per failure: it opens the window where the
 * failure's block begins (`open`), passes the block's lines (`add`), and hands the window's
 * lines to the finding (`of`). The window keeps lines exactly, except that the checkout root is
 * removed from paths and stack frames inside dependencies and the runtime are skipped; it stops
 * at `DETAIL_LIMITS.lines` lines or `DETAIL_LIMITS.bytes` bytes, and a parser keeps windows for
 * its first `DETAIL_LIMITS.failures` failures only, so memory stays flat whatever the log holds.
 */
import { runnerCheckoutRoots } from './normalise.js'

export const DETAIL_LIMITS = {
  /** Lines kept per failure. */
  lines: 40,
  /** UTF-8 bytes kept per failure (whole lines only). */
  bytes: 4096,
  /** Failures per parser and log that keep details; later ones keep their key only. */
  failures: 200
} as const

/**
 * Checkout roots as they appear inside a line: GitHub's runners (Linux, macOS, Windows, container
 * jobs, a self-hosted runner's `<runner>/_work/<repo>/<repo>/`) and `file://` URLs of them.
 * Removed from detail lines, so `/home/runner/work/app/app/src/a.ts:3` reads `src/a.ts:3`.
 */
const CHECKOUT_ROOT_IN_LINE = new RegExp(
  `(?:file:///?)?(?:${runnerCheckoutRoots('[\\\\/]', '[^\\\\/\\s]')})`,
  'g'
)

/**
 * Stack frames and frame-like lines inside dependencies or the language runtime: JavaScript
 * (`node_modules/`, `node:internal`), Python (`site-packages/`, the interpreter's lib), Go (the
 * toolchain's `src/`, and the `testing.`/`runtime.` functions of a goroutine dump), Rust (the
 * standard library, the cargo registry), the JVM (`java.`, `jdk.`, JUnit's and the build tools'
 * own frames, assertion libraries), .NET (`System.`, the test frameworks), Go's module cache,
 * Ruby gems, PHP's vendor folder, Deno's runtime (`ext:cli/40_test.js`).
 */
const DEPENDENCY_FRAME =
  /node_modules[\\/]|\(node:[a-z]|\bnode:(?:internal|async_hooks|events|timers)|\(<anonymous>\)|[\\/](?:site|dist)-packages[\\/]|\/usr\/(?:local\/)?lib\/(?:python\d|go|node|ruby|jvm)|[\\/]go[\\/]src[\\/](?:testing|runtime|reflect|time|sync)[\\/]|\/rustc\/[0-9a-f]+\/|[\\/]\.cargo[\\/]registry[\\/]|[\\/]\.rustup[\\/]|^\s*at (?:[\w.-]+\/\/)?(?:java\.|javax\.|jdk\.|sun\.|org\.junit\.|junit\.|org\.hamcrest\.|org\.opentest4j\.|org\.assertj\.|org\.apache\.maven\.|org\.gradle\.|worker\.org\.gradle\.|kotlin\.|org\.testng\.|System\.|Xunit\.|NUnit\.|Microsoft\.VisualStudio\.|Microsoft\.TestPlatform\.)|[\\/]pkg[\\/]mod[\\/]|[\\/]gems[\\/]|[\\/]vendor[\\/](?:phpunit|bin)[\\/]|^(?:created by )?(?:testing|runtime|time|sync|reflect)\.|^\s+\d+: (?:<.{0,500} as )?(?:core|std|alloc|test|__rustc)::|^panic\(\{|^main\.main\(\)$|\b_testmain\.go:|\(ext:\w|^\s*at ext:\w/

/** What a window holds while it is filled. */
interface Window {
  lines: string[]
  bytes: number
  full: boolean
}

/** A detail line as kept: the checkout root removed; undefined for a dependency or runtime frame. */
export function detailLine(line: string): string | undefined {
  if (DEPENDENCY_FRAME.test(line)) return undefined
  const kept = line.replace(CHECKOUT_ROOT_IN_LINE, '')
  return kept.trimEnd()
}

/** Per-failure windows of one parser for one log (see the module comment). */
export class FailureDetails {
  private readonly windows = new Map<string, Window>()
  private current: Window | undefined

  /**
   * Opens the window of failure `id` (any string the parser uses to name the failure, usually
   * its key) and adds `lines` to it. A failure seen again (a summary repeating a block) keeps
   * what its first block gave, unless that block gave nothing.
   */
  open(id: string, ...lines: string[]): void {
    this.current = undefined
    const seen = this.windows.get(id)
    if (seen !== undefined) {
      // A window that got nothing yet (a runner named the test before its block) takes this one.
      if (seen.lines.length === 0) this.current = seen
      for (const line of seen.lines.length === 0 ? lines : []) this.add(line)
      return
    }
    if (this.windows.size >= DETAIL_LIMITS.failures) return
    const window: Window = { lines: [], bytes: 0, full: false }
    this.windows.set(id, window)
    this.current = window
    for (const line of lines) this.add(line)
  }

  /** Makes the window of failure `id` the open one again (opening it when there is none), to add more. */
  resume(id: string): void {
    const window = this.windows.get(id)
    if (window === undefined) this.open(id)
    else this.current = window
  }

  /** Adds a line to the open window; false when none is open or it is full. */
  add(line: string): boolean {
    const window = this.current
    if (window === undefined || window.full) return false
    const kept = detailLine(line)
    if (kept === undefined) return true
    // One blank line between parts, none at the start.
    const blank = kept.trim() === ''
    if (blank && (window.lines.length === 0 || window.lines.at(-1) === '')) return true
    const text = blank ? '' : kept
    const bytes = Buffer.byteLength(text, 'utf8') + 1
    if (window.lines.length >= DETAIL_LIMITS.lines || window.bytes + bytes > DETAIL_LIMITS.bytes) {
      window.full = true
      return false
    }
    window.lines.push(text)
    window.bytes += bytes
    return true
  }

  /**
   * Forgets the window of `id`: one opened before the parser could know whether a failure
   * follows (bun prints a test's error before its result line), when none did.
   */
  drop(id: string): void {
    const window = this.windows.get(id)
    if (window === undefined) return
    if (this.current === window) this.current = undefined
    this.windows.delete(id)
  }

  /** Ends the open window: later lines go nowhere until the next `open`. */
  close(): void {
    this.current = undefined
  }

  /** Whether a window is open and can take more lines. */
  get collecting(): boolean {
    return this.current !== undefined && !this.current.full
  }

  /** The lines kept for failure `id`, without trailing blank lines; undefined when none. */
  of(id: string): string[] | undefined {
    const window = this.windows.get(id)
    if (window === undefined) return undefined
    const lines = [...window.lines]
    while (lines.length > 0 && lines.at(-1) === '') lines.pop()
    return lines.length > 0 ? lines : undefined
  }
}
