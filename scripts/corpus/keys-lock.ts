/**
 * The key lock (README: "Failure signatures"): the signature every corpus class and every
 * quoted tuning fixture gives, recorded with the signature scheme version that produced it, in
 * `__fixtures__/signature-keys.lock.json`. A test compares the keys of today's parsers with it, so
 * a change to the keys cannot land without raising `SIGNATURE_SCHEME_VERSION`: a hash stored in
 * a ledger under the old scheme then never equals a new one.
 *
 * `npx tsx scripts/corpus/keys-lock.ts` writes the lock. It refuses when the keys changed but
 * the version did not. The held-out fixtures are left out: their keys are measured, never
 * pinned (BENCHMARKS.md).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SIGNATURE_SCHEME_VERSION } from '../../src/core/signature/signature.js'
import { CORPUS_DIR, signatureOfText } from './measure.js'

export const KEYS_LOCK_PATH = join(CORPUS_DIR, '..', 'signature-keys.lock.json')

export interface KeysLock {
  /** The `SIGNATURE_SCHEME_VERSION` the signatures were produced under. */
  scheme: number
  /** Class id (`quoted/<id>` for a quoted fixture) → its full signature. */
  signatures: Record<string, string>
}

interface Manifest {
  classes: { id: string; files?: string[]; file?: string; set?: string }[]
}

function readManifest(file: string): Manifest {
  const path = join(CORPUS_DIR, file)
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Manifest) : { classes: [] }
}

/**
 * Today's signature of every class: that of its first file (the corpus test holds every other
 * file and noisy variant to it).
 */
export function currentSignatures(): Record<string, string> {
  const signatures: Record<string, string> = {}
  const read = (file: string) => signatureOfText(readFileSync(join(CORPUS_DIR, file), 'utf8'))
  for (const cls of readManifest('manifest.json').classes) {
    const first = cls.files?.[0]
    if (first && existsSync(join(CORPUS_DIR, first))) signatures[cls.id] = read(first)
  }
  for (const cls of readManifest(join('quoted', 'manifest.json')).classes) {
    if (cls.set === 'tuning' && cls.file) signatures[`quoted/${cls.id}`] = read(cls.file)
  }
  return signatures
}

/** The classes whose signature differs between `a` and `b`, or that only one of them has. */
export function changedClasses(
  a: Readonly<Record<string, string>>,
  b: Readonly<Record<string, string>>
): string[] {
  const ids = new Set([...Object.keys(a), ...Object.keys(b)])
  return [...ids].filter((id) => a[id] !== b[id]).sort()
}

export type LockVerdict =
  /** The lock holds today's signatures under today's scheme. */
  | { kind: 'current' }
  /** The lock is missing or from an older scheme: write it. */
  | { kind: 'write' }
  /** Classes were added or removed under the same scheme; no existing key changed: write it. */
  | { kind: 'write-classes'; classes: string[] }
  /** Existing keys changed under the same scheme: raise the version first. */
  | { kind: 'raise-version'; classes: string[] }

/**
 * What to do with `lock` given today's signatures under scheme `scheme`. A class that is new,
 * or gone, does not change any key a ledger may hold; a class whose signature changed does.
 */
export function lockVerdict(
  lock: KeysLock | null,
  current: Readonly<Record<string, string>>,
  scheme: number
): LockVerdict {
  if (!lock || lock.scheme !== scheme) return { kind: 'write' }
  const changed = changedClasses(lock.signatures, current)
  if (changed.length === 0) return { kind: 'current' }
  const altered = changed.filter((id) => id in lock.signatures && id in current)
  if (altered.length > 0) return { kind: 'raise-version', classes: altered }
  return { kind: 'write-classes', classes: changed }
}

export function readKeysLock(path: string = KEYS_LOCK_PATH): KeysLock | null {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as KeysLock) : null
}

export function formatKeysLock(lock: KeysLock): string {
  const signatures = Object.fromEntries(
    Object.entries(lock.signatures).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  )
  return `${JSON.stringify({ scheme: lock.scheme, signatures }, null, 2)}\n`
}

const invokedDirectly =
  process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]
if (invokedDirectly) {
  const current = currentSignatures()
  const verdict = lockVerdict(readKeysLock(), current, SIGNATURE_SCHEME_VERSION)
  if (verdict.kind === 'raise-version') {
    process.stderr.write(
      `The keys of ${verdict.classes.length} classes changed under signature scheme ` +
        `${SIGNATURE_SCHEME_VERSION} (${verdict.classes.join(', ')}).\nRaise ` +
        'SIGNATURE_SCHEME_VERSION in src/core/signature/signature.ts, say why in its comment, ' +
        'and run this again.\n'
    )
    process.exit(1)
  }
  if (verdict.kind !== 'current') {
    writeFileSync(
      KEYS_LOCK_PATH,
      formatKeysLock({ scheme: SIGNATURE_SCHEME_VERSION, signatures: current })
    )
  }
  process.stdout.write(
    `${KEYS_LOCK_PATH}: ${Object.keys(current).length} classes under scheme ${SIGNATURE_SCHEME_VERSION} (${verdict.kind})\n`
  )
}
