#!/usr/bin/env node
/**
 * Adds lockfile entries for platform-specific optional packages that the registry this
 * project is built against does not serve (@swc/core's and unrs-resolver's bindings for
 * other systems). npm leaves them out of package-lock.json when it cannot fetch their
 * metadata, and `npm ci` then refuses the lockfile as out of sync. An entry that names the
 * package's os, cpu and libc is enough: `npm ci` skips it on every other platform.
 *
 *   node scripts/lockfile-platform-stubs.mjs   # after any `npm install` that changed the lockfile
 */
import { readFileSync, writeFileSync } from 'node:fs'

const LOCKFILE = new URL('../package-lock.json', import.meta.url)
const PARENTS = ['node_modules/@swc/core', 'node_modules/unrs-resolver']

/** `core-linux-arm-gnueabihf` → os linux, cpu arm, libc glibc. */
function platformOf(name) {
  const [os, cpu, ...rest] = name
    .split('/')
    .at(-1)
    .replace(/^(core|resolver-binding)-/, '')
    .split('-')
  const variant = rest.join('-')
  const libc = variant.includes('musl') ? 'musl' : variant.includes('gnu') ? 'glibc' : undefined
  return { os, cpu, libc }
}

const lock = JSON.parse(readFileSync(LOCKFILE, 'utf8'))
let added = 0
for (const parentKey of PARENTS) {
  const parent = lock.packages[parentKey]
  if (!parent) continue
  for (const [name, version] of Object.entries(parent.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`
    if (lock.packages[key]) continue
    const { os, cpu, libc } = platformOf(name)
    lock.packages[key] = {
      version,
      cpu: [cpu],
      ...(parent.dev ? { dev: true } : {}),
      ...(libc ? { libc: [libc] } : {}),
      optional: true,
      os: [os]
    }
    added++
  }
}
const [root, ...rest] = Object.entries(lock.packages)
lock.packages = Object.fromEntries([root, ...rest.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))])
writeFileSync(LOCKFILE, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`lockfile: ${added} platform entries added`)
