#!/usr/bin/env node
// Vendors gh-aw's released runtime scripts, unmodified, for one tag of github/gh-aw-actions:
// the scripts on the gate's path (docs/gh-aw.md: "gh-aw conformance"), every local script they
// require, gh-aw's licence and a SOURCE file naming repository, tag, tag object and commit.
//
//   node scripts/vendor-gh-aw.mjs <path to a clone or bare mirror of gh-aw-actions> <tag> [out]
//
// writes vendor/gh-aw-actions/<tag>/ (or `out`), replacing it. Then run the conformance suite:
//   GH_AW_TAGS=<tag> npm run test:conformance
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, posix, resolve } from 'node:path'

/** The scripts a compiled autoloop workflow runs on the gate's path. */
const ENTRIES = [
  'setup/js/setup_globals.cjs',
  'setup/js/check_membership.cjs',
  'setup/js/check_command_position.cjs',
  'setup/js/safe_output_handler_manager.cjs',
  'setup/js/push_to_pull_request_branch.cjs',
  'setup/js/create_pull_request.cjs',
  'setup/js/extra_empty_commit.cjs',
  'setup/js/push_repo_memory.cjs',
  'setup/js/push_signed_commits.cjs',
  'setup/js/generate_git_patch.cjs',
  'setup/sh/clone_repo_memory_branch.sh'
]
const REPOSITORY = 'https://github.com/github/gh-aw-actions'
const REQUIRE = /require\(\s*["'`](\.\/[^"'`]+)["'`]\s*\)/g

function usage(message) {
  console.error(
    `${message}\nusage: node scripts/vendor-gh-aw.mjs <gh-aw-actions clone> <tag> [out]`
  )
  process.exit(2)
}

const [source, tag, outArg] = process.argv.slice(2)
if (!source || !tag) usage('Missing an argument.')
if (!/^v\d+\.\d+\.\d+$/.test(tag)) usage(`Tag ${tag} is not of the form vX.Y.Z.`)
const git = (...args) =>
  execFileSync('git', ['-C', resolve(source), ...args], { encoding: 'utf8', maxBuffer: 1 << 26 })

let tagObject
let commit
try {
  tagObject = git('rev-parse', `refs/tags/${tag}`).trim()
  commit = git('rev-parse', `refs/tags/${tag}^{commit}`).trim()
} catch {
  usage(`${source} has no tag ${tag} (is it a clone of github/gh-aw-actions with its tags?).`)
}
const exists = (path) => {
  try {
    git('cat-file', '-e', `${commit}:${path}`)
    return true
  } catch {
    return false
  }
}
for (const entry of ENTRIES) {
  if (!exists(entry)) usage(`${tag} has no ${entry}: the vendored list needs a look.`)
}

// The entries and every local script they require, transitively.
const files = new Set()
const todo = [...ENTRIES]
while (todo.length > 0) {
  const path = todo.pop()
  if (files.has(path)) continue
  files.add(path)
  if (!path.endsWith('.cjs')) continue
  for (const match of git('show', `${commit}:${path}`).matchAll(REQUIRE)) {
    const required = posix.join(posix.dirname(path), match[1])
    if (exists(required)) todo.push(required)
  }
}

const out = outArg
  ? resolve(outArg)
  : resolve(import.meta.dirname, '..', 'vendor', 'gh-aw-actions', tag)
rmSync(out, { recursive: true, force: true })
const sorted = [...files].sort()
for (const path of [...sorted, 'LICENSE']) {
  const target = join(out, path)
  mkdirSync(dirname(target), { recursive: true })
  writeFileSync(target, execFileSync('git', ['-C', resolve(source), 'show', `${commit}:${path}`]))
}
writeFileSync(
  join(out, 'SOURCE'),
  [
    `repository: ${REPOSITORY}`,
    `tag: ${tag}`,
    `tag object: ${tagObject}`,
    `commit: ${commit}`,
    'licence: MIT (LICENSE, copied from the tag)',
    'modified: no (each file is `git show <commit>:<path>`)',
    `files (${sorted.length}):`,
    ...sorted.map((path) => `  ${path}`),
    ''
  ].join('\n')
)
console.log(`vendored ${sorted.length} files of ${tag} (${commit}) into ${out}`)
