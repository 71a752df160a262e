// Builds the bundles the action and the CLI run (`dist/index.js`, `dist/cli/index.js`) with
// ncc. `node scripts/build-dist.mjs` replaces dist/; `--check` builds into a temporary folder
// and fails when the committed dist/ differs from it in any file (stale, missing or extra).
// The two bundles are built side by side, one ncc process each (ncc uses one core), without
// ncc's build cache: a cached build is no faster, and storing the cache writes 80 MB per bundle.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'

const root = resolve(import.meta.dirname, '..')
const nccCli = join(root, 'node_modules/@vercel/ncc/dist/ncc/cli.js')
const check = process.argv.includes('--check')

/** Runs `ncc build <args>`; resolves to what it printed, rejects with it when ncc fails. */
function ncc(...args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [nccCli, 'build', ...args, '--no-cache'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe']
    })
    let printed = ''
    child.stderr.on('data', (chunk) => (printed += chunk))
    child.on('error', reject)
    child.on('close', (code, signal) =>
      code === 0
        ? resolve(printed)
        : reject(
            new Error(`ncc build ${args[0]} failed (${signal ?? `exit ${code}`}):\n${printed}`)
          )
    )
  })
}

async function build(out) {
  const cli = `${out}-cli`
  const printed = await Promise.all([
    ncc('src/index.ts', '-o', out, '-t', '--source-map', '--license', 'licenses.txt'),
    ncc('src/cli.ts', '-o', cli, '-t', '--source-map')
  ])
  process.stderr.write(printed.join(''))
  renameSync(cli, join(out, 'cli'))
}

function files(dir) {
  const found = []
  const walk = (folder) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name)
      if (statSync(path).isDirectory()) walk(path)
      else found.push(relative(dir, path))
    }
  }
  walk(dir)
  return found.sort()
}

const temp = mkdtempSync(join(tmpdir(), 'autoloop-dist-'))
try {
  const out = join(temp, 'dist')
  await build(out)
  if (!check) {
    rmSync(join(root, 'dist'), { recursive: true, force: true })
    renameSync(out, join(root, 'dist'))
    console.log('dist/ rebuilt')
  } else {
    const committed = join(root, 'dist')
    const fresh = files(out)
    const present = files(committed)
    const problems = [
      ...fresh.filter((file) => !present.includes(file)).map((file) => `missing: dist/${file}`),
      ...present.filter((file) => !fresh.includes(file)).map((file) => `extra: dist/${file}`),
      ...fresh
        .filter((file) => present.includes(file))
        .filter(
          (file) => !readFileSync(join(out, file)).equals(readFileSync(join(committed, file)))
        )
        .map((file) => `stale: dist/${file}`)
    ]
    if (problems.length > 0) {
      console.error(
        `dist/ does not match a fresh build of src/:\n${problems.join('\n')}\nFix: run npm run build and commit dist/.`
      )
      process.exitCode = 1
    } else console.log(`dist/ matches a fresh build (${fresh.length} files)`)
  }
} finally {
  rmSync(temp, { recursive: true, force: true })
}
