/**
 * The failure signature (README: "Failure signatures"): the sorted, de-duplicated set of
 * failure keys, in full and in a one-line form of at most 160 characters.
 */
import { createHash } from 'node:crypto'
import { buildKey } from './normalise.js'

/**
 * Version of the key and signature scheme, part of every signature hash. Raise it whenever a
 * parser or the normalisation changes the keys it produces: a hash stored under an older
 * scheme then never equals a new one, so an upgrade can never make two different failures
 * look like "no progress" (LUCI Analysis and Sentry version their grouping the same way).
 * Version 2: failure kinds in test keys, tool-parsed annotations.
 * Version 3: a Surefire test in error keyed by the exception's simple class name; a home path
 * cut before its first project folder, a temporary directory in a home cut as one; copies'
 * line prefixes removed before any parser.
 * `__fixtures__/signature-keys.lock.json` holds the keys of the current version, and a test fails
 * when they change under it (`npx tsx scripts/corpus/keys-lock.ts` rewrites it).
 */
export const SIGNATURE_SCHEME_VERSION = 3
/** The one-line form never exceeds this many characters. */
export const SHORT_SIGNATURE_MAX_LENGTH = 160
const SEPARATOR = '; '

export interface Signature {
  /** The keys, sorted (by UTF-16 code units) and de-duplicated. */
  keys: string[]
  /** All keys joined with `; `. */
  full: string
  /** At most 160 characters: whole leading keys, then ` +N more (hash <8 hex>)` if any were left out. */
  short: string
  /** SHA-256 (hex) of the scheme version and the sorted keys: equal sets, equal hashes. */
  hash: string
}

/** The first segment of the key of a required check that never reported (SPEC §3). */
const MISSING_REQUIRED = 'required-missing'

/** The key of a required check that never reported: `required-missing:<name>`. */
export function missingRequiredKey(name: string): string {
  return buildKey(MISSING_REQUIRED, name)
}

/** The names of the required checks that never reported, from a signature's keys. */
export function missingRequiredChecks(keys: readonly string[]): string[] {
  const prefix = `${MISSING_REQUIRED}:`
  return keys.filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length))
}

export function signatureOf(keys: readonly string[]): Signature {
  const sorted = [...new Set(keys)].sort(compareCodeUnits)
  const full = sorted.join(SEPARATOR)
  const hash = createHash('sha256')
    .update(`autoloop-ci-gate signature v${SIGNATURE_SCHEME_VERSION}\n${sorted.join('\n')}`)
    .digest('hex')
  return { keys: sorted, full, short: shortForm(sorted, full, hash), hash }
}

function shortForm(sorted: readonly string[], full: string, hash: string): string {
  if (full.length <= SHORT_SIGNATURE_MAX_LENGTH) return full
  let kept = 0
  let length = 0
  for (const key of sorted) {
    const added = (kept === 0 ? 0 : SEPARATOR.length) + key.length
    const rest = sorted.length - kept - 1
    const tail = rest === 0 ? 0 : moreSuffix(rest, hash).length + 1
    if (length + added + tail > SHORT_SIGNATURE_MAX_LENGTH) break
    length += added
    kept += 1
  }
  const head = sorted.slice(0, kept).join(SEPARATOR)
  const suffix = moreSuffix(sorted.length - kept, hash)
  return head === '' ? suffix : `${head} ${suffix}`
}

function moreSuffix(count: number, hash: string): string {
  return `+${count} more (hash ${hash.slice(0, 8)})`
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
