/**
 * How long the fix-command runner takes to give the step back when its time is up, with a
 * child that would run on (README: "As a plain step"): real processes, real time.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fixCommandRunner } from '../../src/adapters/fix-command.js'

const quiet = {
  debug() {},
  info() {},
  warning() {},
  error() {},
  group: <T>(_title: string, body: () => Promise<T>) => body()
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return (
      !existsSync(`/proc/${pid}/stat`) || !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
    )
  } catch {
    return false
  }
}

export async function runFixCommandBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'autoloop-bench-fix-'))
  const cases = [
    [
      'a child sleeping 4 s (`sleep 4 & wait`)',
      `sh -c 'echo $$ > "${dir}/1"; exec sleep 4' & wait`,
      5_000
    ],
    [
      'a child ignoring SIGTERM (grace 1 s)',
      `sh -c 'trap "" TERM; echo $$ > "${dir}/2"; while :; do sleep 0.1; done' & wait`,
      1_000
    ]
  ] as const
  const rows = [
    '| fix command | timeout | returned after | its child afterwards |',
    '| --- | --- | --- | --- |'
  ]
  try {
    for (const [i, [name, command, graceMs]] of cases.entries()) {
      const run = fixCommandRunner({
        cwd: dir,
        env: { PATH: process.env.PATH ?? '' },
        log: quiet,
        graceMs
      })
      const started = performance.now()
      await run(command, {}, 500)
      const seconds = (performance.now() - started) / 1000
      const pid = Number(readFileSync(join(dir, String(i + 1)), 'utf8'))
      rows.push(
        `| ${name} | 0.5 s | ${seconds.toFixed(2)} s | ${alive(pid) ? 'still running' : 'gone'} |`
      )
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return rows.join('\n')
}
