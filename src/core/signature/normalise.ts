/**
 * Normalisation shared by the parsers: paths lose what depends on the machine, message text
 * loses what varies between runs, and keys are made safe for one-line contexts (a markdown
 * table cell, a pause reason): no `|`, no newline, no `#` before a digit, bounded length.
 */
import { createHash } from 'node:crypto'
import { redactSecrets, removeMarkers } from '../text/untrusted.js'

/** Longest key kept whole; a longer key is cut and ends with a hash of the whole key. */
export const MAX_KEY_LENGTH = 120
/** Longest masked message kept inside a key. */
const MAX_MESSAGE_LENGTH = 100

/**
 * The checkout roots of GitHub's runners, written once for the two places they are removed: at
 * the start of a path in a key (once `\` became `/`), and anywhere inside a detail line (either
 * separator; a folder name never holds whitespace there). `sep` matches a separator, `char` one
 * character of a folder name.
 */
export function runnerCheckoutRoots(sep: string, char: string): string {
  const name = `${char}+`
  const except = (...folders: string[]) => `(?!(?:${folders.join('|')})${sep})`
  return [
    // GitHub-hosted runners (Linux, macOS, Windows) and container jobs: <root>/<repo>/<repo>/
    `(?:${sep}home${sep}runner${sep}work|${sep}Users${sep}runner${sep}work|${sep}__w)${sep}${except('_temp')}${name}${sep}${name}${sep}`,
    `[A-Za-z]:${sep}a${sep}${except('_temp')}${name}${sep}${name}${sep}`,
    `${sep}github${sep}workspace${sep}`,
    // Self-hosted runners: <runner folder>/_work/<repo>/<repo>/ (the runner's default work
    // folder, e.g. /home/ci/actions-runner/_work/…, C:\actions-runner\_work\…).
    `(?:[A-Za-z]:)?(?:${sep}${name}){0,4}${sep}_work${sep}${except('_temp', '_actions', '_tool')}${name}${sep}${name}${sep}`
  ].join('|')
}

/** A home directory: macOS, Linux, root's, Windows (after `\\` became `/`). */
const HOME_DIR = String.raw`(?:\/Users\/[^/]+|\/home\/[^/]+|\/root|[A-Za-z]:\/Users\/[^/]+)`

/** The usual folders of checkouts in a home directory (`~/src/`, `~/code/`, `~/Documents/GitHub/`, …). */
const CHECKOUT_FOLDERS = String.raw`src|code|dev|devel|projects?|repos|git|github|work|workspace|ws|source\/repos|Developer|Documents(?:\/GitHub)?`
/**
 * Folders that group checkouts below a usual folder of checkouts: another usual folder
 * (`~/Documents/dev/`), a host (`~/dev/github/`, `~/code/github.com/<owner>/`) or a language
 * (`~/code/rust/`, `~/dev/kotlin/`).
 */
const GROUPING_FOLDERS = String.raw`${CHECKOUT_FOLDERS}|gitlab|bitbucket|GitHub|GitLab|(?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)\/[^/]+|kotlin|java|scala|go|golang|rust|python|ruby|php|js|javascript|typescript|node|nodejs|swift|c|cpp|csharp|dotnet|elixir|erlang|haskell|clojure|dart|flutter|android|ios|web|lua|zig|ocaml|julia`
/** The folders that start a project-relative path (see PROJECT_FOLDERS), by name. */
const PROJECT_FOLDER_NAMES =
  'src|test|tests|__tests__|spec|lib|pkg|cmd|internal|packages|crates|node_modules'

const CHECKOUT_ROOTS: readonly RegExp[] = [
  new RegExp(`^(?:${runnerCheckoutRoots('/', '[^/]')})`),
  // Other CI systems: GitLab (/builds/<group>/<project>/), Jenkins (<home>/workspace/<job>/, the
  // Docker image's /var/jenkins_home), Travis CI, Buildkite, Azure Pipelines (/home/vsts/work/<n>/s/).
  /^\/builds\/[^/]+\/[^/]+\//,
  /^(?:\/var\/lib\/jenkins|\/var\/jenkins_home|\/home\/jenkins(?:\/agent)?|[A-Za-z]:\/[Jj]enkins)\/workspace\/[^/]+\//,
  /^\/home\/travis\/build\/[^/]+\/[^/]+\//,
  /^\/var\/lib\/buildkite-agent\/builds\/[^/]+\/[^/]+\/[^/]+\//,
  /^\/home\/vsts\/work\/\d+\/s\//,
  // A container's working directory (Docker builds, Cloud Build, dev containers).
  /^\/(?:workspace|workspaces\/[^/]+|app|code|src|usr\/src\/app|opt\/app)\//,
  // A checkout in a home directory under a usual folder of checkouts: ~/src/<repo>/,
  // ~/code/<repo>/, ~/source/repos/<repo>/, ~/go/src/<host>/<owner>/<repo>/, … and under folders
  // that group checkouts below it: ~/dev/github/<repo>/, ~/code/rust/<repo>/,
  // ~/Documents/dev/kotlin/<repo>/. A folder after the grouping ones that starts a project path
  // (`lib/`, `src/`) says the last of them was the checkout (~/src/node/lib/). Dot folders
  // (caches, toolchains) and the runner's _temp are not checkouts.
  new RegExp(
    String.raw`^${HOME_DIR}\/(?:${CHECKOUT_FOLDERS}|go\/src\/[^/]+\/[^/]+)(?:(?:\/(?:${GROUPING_FOLDERS}))+\/(?!(?:${PROJECT_FOLDER_NAMES})\/)|\/)(?![._])[^/]+\/`
  )
]

/** Temporary directories: the runner's own, pytest's tmp_path, mktemp, macOS and Windows temp. */
const TEMP_ROOTS: readonly RegExp[] = [
  /^\/home\/runner\/work\/_temp\/(?:[^/]+\/)?/,
  /^\/tmp\/pytest-of-[^/]+\/pytest-\d+\/(?:[^/]+\/)?/,
  /^\/(?:private\/)?var\/folders\/[^/]+\/[^/]+\/T\/[^/]+\//,
  // `/tmp/<dir>/…`, or a file right in /tmp (`/tmp/foo.py`).
  /^\/tmp\/(?:[^/]+\/)?/,
  /^[A-Za-z]:\/Users\/[^/]+\/AppData\/Local\/Temp\/[^/]+\//
]

/**
 * Folder names that start a project-relative path inside an unknown absolute prefix: the usual
 * source and test folders, and `node_modules/`, which sits in the project's root.
 */
const PROJECT_FOLDERS = new RegExp(`\\/(?:${PROJECT_FOLDER_NAMES})\\/`)

/**
 * Folders that start a project path when they sit right in a checkout: the project folders
 * above, and the folders an application keeps at its root (a Django project's `core/`, a web
 * app's `app/`, a client and server pair). Deeper in a project they are common too, so they
 * only say where a checkout ends where its depth is otherwise unknown (see relativeToHome).
 */
const ROOT_FOLDER_NAMES = `${PROJECT_FOLDER_NAMES}|app|apps|core|client|server|api`
/**
 * `~/<group>/<repo>/<root folder>/…` inside a home directory that names no usual folder of
 * checkouts: a folder that starts a project path two folders down, below two that do not.
 */
const GROUP_AND_CHECKOUT = new RegExp(
  String.raw`^(?!(?:${PROJECT_FOLDER_NAMES})\/)[^/]+\/(?!(?:${PROJECT_FOLDER_NAMES})\/)[^/]+\/(?=(?:${ROOT_FOLDER_NAMES})\/)`
)

/**
 * A home directory with a folder below it that may hold a checkout: not a dot folder (caches,
 * toolchains). A temporary directory in a home is cut as a temporary directory instead.
 */
const HOME = new RegExp(String.raw`^${HOME_DIR}\/(?=[^._/][^/]*\/)`)

/**
 * Makes a file path relative and machine-independent: `\` becomes `/`, `file://` goes, and so
 * do the checkout roots of GitHub's runners (`/home/runner/work/<r>/<r>/`, `D:\a\<r>\<r>\`,
 * `/__w/<r>/<r>/`), of other CI systems (GitLab, Jenkins, Travis CI, Buildkite, Azure), of
 * containers (`/app/`, `/workspace/`) and of a checkout under a usual folder of checkouts in a
 * home directory (`/Users/dev/src/<r>/`, `C:\Users\dev\source\repos\<r>\`). Any other
 * absolute path (a temp dir, an unknown layout, another folder of a home directory) is cut
 * before its first project folder (`src/`, `tests/`, `__tests__/`, `lib/`, `node_modules/`, …),
 * or else loses its temp root (`/tmp/<dir>/`) or, in a home directory, its first folder
 * (`~/<r>/`); leading `./` or `../` go.
 */
export function normalisePath(path: string): string {
  let p = path.trim()
  if (p.startsWith('file://')) p = p.slice(7)
  if (p.indexOf('\\') !== -1) p = p.replaceAll('\\', '/')
  if (/^\/[A-Za-z]:\//.test(p)) p = p.slice(1)
  const absolute = p.startsWith('/') || /^[A-Za-z]:\//.test(p)
  if (absolute) p = relativeToCheckout(p)
  while (p.startsWith('./') || p.startsWith('../')) p = p.slice(p.indexOf('/') + 1)
  p = p.replace(/\/{2,}/g, '/')
  // pnpm's store layout: node_modules/.pnpm/<pkg>@<ver>/node_modules/<pkg> → node_modules/<pkg>
  p = p.replace(/node_modules\/\.pnpm\/[^/]+\/node_modules\//g, 'node_modules/')
  return p
}

function relativeToCheckout(path: string): string {
  for (const root of CHECKOUT_ROOTS) {
    const match = root.exec(path)
    if (match !== null) return path.slice(match[0].length)
  }
  // A temporary directory in a home directory (the runner's _temp, Windows' AppData\Local\Temp)
  // is no checkout: it is cut like any other temporary directory below.
  const home = TEMP_ROOTS.some((root) => root.test(path)) ? null : HOME.exec(path)
  if (home !== null) return relativeToHome(path.slice(home[0].length))
  const folder = PROJECT_FOLDERS.exec(path)
  if (folder !== null) return path.slice(folder.index + 1)
  for (const root of TEMP_ROOTS) {
    const match = root.exec(path)
    if (match !== null) return path.slice(match[0].length)
  }
  return path
}

/**
 * A path under a home directory whose folders name no usual folder of checkouts: how deep the
 * checkout lies is unknown (`~/<repo>/`, `~/DEV/<group>/<repo>/`). A folder that starts a
 * project path two folders down says the two were a group and its checkout
 * (`~/sites/closecall/core/views.py`); else the path is cut before its first project folder, as
 * any other unknown layout is, and only a path with none is taken as `~/<repo>/…`. A folder the
 * machine added is never kept in a key.
 */
function relativeToHome(rest: string): string {
  const checkout = GROUP_AND_CHECKOUT.exec(rest)
  if (checkout !== null) return rest.slice(checkout[0].length)
  const folder = PROJECT_FOLDERS.exec(`/${rest}`)
  return folder !== null ? rest.slice(folder.index) : rest.slice(rest.indexOf('/') + 1)
}

/**
 * A checkout's own folder before a relative path (`<repo>/client/apps/view.js`): a first folder
 * that starts no project path, before one that does. Dot folders (`.github/`) are the project's.
 */
const CHECKOUT_FOLDER = new RegExp(
  String.raw`^(?![.])(?!(?:${ROOT_FOLDER_NAMES})\/)[^/]+\/(?=(?:${ROOT_FOLDER_NAMES})\/)`
)

/**
 * `normalisePath` for a path where today's tool prints an absolute one (eslint's file line): a
 * relative path there was cut by hand, most often to start at the checkout's own folder (`<repo>/client/apps/view.js`), which
 * then goes, as a checkout root does. A path from `./` or `../` is kept as the tool wrote it.
 */
export function normaliseCutPath(path: string): string {
  const p = normalisePath(path)
  if (/^(?:[A-Za-z]:|\.{1,2})?[\\/]|^file:/.test(path.trim())) return p
  const folder = CHECKOUT_FOLDER.exec(p)
  return folder === null ? p : p.slice(folder[0].length)
}

/** Normalises every absolute path inside a message (a path starts after a space, quote or bracket). */
export function normalisePathsIn(text: string): string {
  return text.replace(/(?<![\w.~/\\-])(?:[A-Za-z]:[\\/]|\/)[^\s'"`:()]{1,500}/g, (path) =>
    normalisePath(path)
  )
}

/**
 * Masks, in this order, what varies between runs of the same failure inside message text:
 * URLs, e-mail addresses, UUIDs, dates and clock times, IP addresses and ports, durations,
 * hex addresses and long hex strings (SHAs), temp paths, seeds, and finally every standalone
 * number. Identifiers that contain digits (`test1`, `utf8`) are kept. Whitespace collapses and
 * the result is cut at `maxLength`.
 */
export function maskMessage(text: string, maxLength = MAX_MESSAGE_LENGTH): string {
  let t = text
  t = t.replace(/\b[a-z][a-z0-9+.-]{1,15}:\/\/[^\s'"`<>)\]]{1,2000}/gi, '<url>')
  t = t.replace(/\b[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}\b/g, '<email>')
  t = t.replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
  t = t.replace(
    /\b\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:[.,]\d{1,9})?)?(?:Z|[+-]\d\d:?\d\d)?)?\b/g,
    '<time>'
  )
  t = t.replace(/\b\d\d?:\d\d:\d\d(?:[.,]\d{1,9})?\b/g, '<time>')
  t = t.replace(/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g, '<ip>')
  t = t.replace(/\b(?:localhost|\[::1?\]):\d{1,5}\b/gi, '<host>')
  t = t.replace(
    /(?<![\w.])\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds?|m|min|mins|h)\b/g,
    '<duration>'
  )
  t = t.replace(/\b0x[0-9a-f]{1,32}\b/gi, '<hex>')
  t = t.replace(/\b(?=[0-9a-f]{0,127}\d)(?=[0-9a-f]{0,127}[a-f])[0-9a-f]{7,128}\b/gi, '<hex>')
  t = t.replace(/(?:\/tmp|\/var\/folders|\/home\/runner\/work\/_temp)\/[^\s'"`:)]{1,500}/g, '<tmp>')
  t = t.replace(/\b(seed|port|pid|worker|job|run)([\s=:#-]{1,3})\d+/gi, '$1$2N')
  t = t.replace(/(?<![\w.])[-+]?\d+(?:[.,]\d+)*(?![\w])/g, 'N')
  t = t.replace(/\s+/g, ' ').trim()
  return t.length > maxLength ? t.slice(0, maxLength).trimEnd() : t
}

/** The first quoted name in a message ('x', "x" or `x`) when it looks like an identifier. */
export function firstQuotedSymbol(message: string): string | undefined {
  const quoted = /(['"`‘’])([^'"`‘’\s]{1,80})['"`‘’]/g
  let match: RegExpExecArray | null
  while ((match = quoted.exec(message)) !== null) {
    const candidate = match[2] ?? ''
    if (/^[A-Za-z_$@][\w$.:@/-]*$/.test(candidate)) return candidate
  }
  return undefined
}

/** Strips a trailing duration such as ` (12 ms)`, ` [0.12ms]`, ` (8.518 s)`, ` 57ms`. */
export function stripTrailingDuration(text: string): string {
  return text
    .replace(/\s+[([]\s*[<>~]?\s*\d+(?:\.\d+)?\s*(?:ms|µs|us|ns|s|sec|m|min)\s*[)\]]\s*$/, '')
    .replace(/\s+\d+(?:\.\d+)?\s?(?:ms|s)\s*$/, '')
}

/**
 * Builds a key from its parts, joined with `:`. Empty parts are left out. Token-like strings
 * are redacted and marker text is removed first. The key is made
 * one-line safe: no control characters or newlines, `|` becomes `/`, `#` before a digit gets
 * a space (GitHub would render `#12` as an issue link), whitespace collapses, and a key
 * longer than MAX_KEY_LENGTH is cut and ends with `~` and 8 hex digits of the whole key's hash.
 */
export function buildKey(tool: string, ...parts: (string | undefined)[]): string {
  const kept = [tool, ...parts].filter((part): part is string => part !== undefined && part !== '')
  // Token-like strings and marker text go before the length cut, so a cut can never leave
  // part of a secret behind in a key.
  let key = removeMarkers(redactSecrets(kept.join(':')))
    // eslint-disable-next-line no-control-regex -- removing control characters is the point
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replaceAll('|', '/')
    .replace(/#(?=\d)/g, '# ')
    .replace(/\s+/g, ' ')
    .trim()
  if (key.length > MAX_KEY_LENGTH) {
    const hash = createHash('sha256').update(key).digest('hex').slice(0, 8)
    key = `${key.slice(0, MAX_KEY_LENGTH - 10).trimEnd()}~${hash}`
  }
  return key
}

/** Removes a `##[error]` marker or an `Error: ` / `[ERROR] ` prefix GitHub or Maven put in front. */
export function stripErrorMarker(line: string): string {
  if (line.startsWith('##[error]')) return line.slice(9)
  return line
}

/**
 * An exception or error type at the start of a failure's first error line: `TypeError: …`,
 * `AssertionError [ERR_ASSERTION]: …`, `java.lang.NullPointerException`, `System.Foo.BarException
 * : …` (.NET puts a blank before the colon), `App\Errors\LimitError: …`, Ruby's `ZeroDivisionError:`
 * on a line of its own, Gradle's `java.lang.AssertionError at FooTest.java:12`. Group 1 is the
 * type without its package or namespace.
 */
const ERROR_TYPE =
  /^(?:Uncaught |Caused by: |Unhandled exception\. )?(?:[A-Za-z_$][\w$]*[.\\])*((?:[A-Z][\w$]*?)?(?:Error|Exception|Failure|Fault|Exit|Interrupt)\w*)(?:\s\[[\w-]{1,60}\])?(?=\s?:|\s*$|\s+at\s)/
/** Types that report a failed assertion of the test itself, in the test frameworks we parse. */
const ASSERTION_TYPE =
  /^(?:Assert|Assertion|Expectation|ComparisonFailure$|EqualException$|Xunit|MultipleFailures|ExpectationFailed)/
/** A first error line that reads as a timeout of the test (jest, vitest, mocha, node, Go). */
const TIMEOUT =
  /\b(?:[Tt]imed? ?out\b|[Tt]imeout of \d|[Ee]xceeded timeout|[Tt]imeout exceeded|deadline exceeded)/

/**
 * The kind of a test failure, from the first line of its error, for the end of a test key: the
 * type of what was thrown without its package (`TypeError`, `NullPointerException`,
 * `ZeroDivisionError`), or `timeout`. A failed assertion of the test itself (`AssertionError`,
 * `expect(received).toBe(expected)`, `assert x == y`, `Failed asserting that …`) is the usual
 * case and has no kind: its key stays the plain test id. Never a value from the message, so
 * two runs of the same failure agree while a different failure of the same test does not.
 */
export function failureKind(firstErrorLine: string): string | undefined {
  const text = firstErrorLine.trim()
  if (text === '') return undefined
  const type = ERROR_TYPE.exec(text)
  if (type !== null) {
    const name = type[1] ?? ''
    if (ASSERTION_TYPE.test(name)) return undefined
    if (name === 'Error' && TIMEOUT.test(text)) return 'timeout'
    return name
  }
  return TIMEOUT.test(text) ? 'timeout' : undefined
}
