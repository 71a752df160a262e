/**
 * `autoloop-ci-gate doctor` from a shell: a checkout given with --dir, the lines or one JSON
 * object, the exit code, bad arguments, and the API asked when there is one.
 */
import { describe, expect, it } from '@jest/globals'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { PassThrough } from 'node:stream'
import { runDoctorCli } from '../../src/cli/doctor.js'
import type { DoctorApi } from '../../src/ports.js'
import { tempDir } from '../helpers/temp-dir.js'
import {
  PUBLISHED,
  describeWithAutoloop,
  filesOf,
  installed
} from '../core/doctor/autoloop-files.js'

function collect() {
  const stream = new PassThrough()
  let text = ''
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()))
  return { stream, text: () => text }
}

async function cli(args: string[], api: DoctorApi | null = null) {
  const stdout = collect()
  const stderr = collect()
  const code = await runDoctorCli(args, {
    stdout: stdout.stream,
    stderr: stderr.stream,
    cwd: '/',
    connect: () => api
  })
  return { code, stdout: stdout.text(), stderr: stderr.text() }
}

/** An API over in-memory files of the default branch `main`, recording what it was asked. */
function memoryApi(files: Record<string, string>, branches: string[]) {
  const asked: string[] = []
  const api: DoctorApi = {
    async defaultBranch() {
      asked.push('default branch')
      return 'main'
    },
    async branchHead(branch) {
      asked.push(`head ${branch}`)
      return branches.includes(branch) ? 'f'.repeat(40) : null
    },
    async getFile(branch, path) {
      asked.push(`file ${branch}:${path}`)
      return files[path] === undefined ? null : { text: files[path] }
    },
    async listDir(branch, path) {
      asked.push(`list ${branch}:${path}`)
      const prefix = `${path}/`
      return Object.keys(files)
        .filter((p) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/'))
        .map((p) => p.slice(prefix.length))
    }
  }
  return { api, asked }
}

describeWithAutoloop('autoloop-ci-gate doctor', () => {
  it('prints one line per check, each not ok with its fix, and exits 1 on a failure', async () => {
    const run = await cli(['--dir', PUBLISHED])
    expect(run.code).toBe(1)
    const lines = run.stdout.trim().split('\n')
    expect(lines).toHaveLength(14)
    const parsed = lines.map((line) => /^(ok|warn|fail) +([a-z-]+) +(.*)$/.exec(line))
    expect(parsed.every((m) => m !== null)).toBe(true)
    for (const m of parsed) expect(m?.[3]?.includes('Fix: ')).toBe(m?.[1] !== 'ok')
    expect(parsed.filter((m) => m?.[1] === 'fail').map((m) => m?.[2])).toEqual([
      'ci-gate',
      'ci-reconcile',
      'handover'
    ])
  })

  it('--json prints one object', async () => {
    const run = await cli(['--dir', PUBLISHED, '--json'])
    expect(run.code).toBe(1)
    const report = JSON.parse(run.stdout) as {
      status: string
      checks: { id: string; level: string }[]
    }
    expect(report.status).toBe('fail')
    expect(report.checks.find((c) => c.id === 'state-branch')?.level).toBe('warn')
  })

  it('reads the files through the API when the folder has none, and asks for the state branch', async () => {
    const setup = filesOf(installed(PUBLISHED))
    const files = Object.fromEntries(
      [setup.workflow, setup.lock, ...setup.others].flatMap((f) => (f ? [[f.path, f.text]] : []))
    )
    const { api, asked } = memoryApi(files, ['memory/autoloop'])
    const run = await cli(['--dir', tempDir(), '--json'], api)
    expect(run.code).toBe(0)
    const report = JSON.parse(run.stdout) as { status: string; source: string }
    expect(report).toMatchObject({ status: 'ok', source: 'contents API at main' })
    expect(asked).toEqual([
      'default branch',
      'list main:.github/workflows',
      'file main:.github/workflows/autoloop.md',
      'file main:.github/workflows/autoloop.lock.yml',
      'file main:.github/workflows/autoloop-settle.yml',
      'file main:.github/workflows/tests.yml',
      'head memory/autoloop'
    ])
  })

  it('with a checkout, lists the default branch once to find the settle workflow there', async () => {
    const setup = filesOf(installed(PUBLISHED))
    const dir = tempDir()
    for (const file of [setup.workflow, setup.lock, ...setup.others]) {
      if (!file) continue
      mkdirSync(dirname(join(dir, file.path)), { recursive: true })
      writeFileSync(join(dir, file.path), file.text)
    }
    const settle = '.github/workflows/autoloop-settle.yml'
    const onMain = Object.fromEntries(
      [setup.workflow, setup.lock, ...setup.others].flatMap((f) => (f ? [[f.path, f.text]] : []))
    )
    const { api, asked } = memoryApi(onMain, ['memory/autoloop'])
    const ok = await cli(['--dir', dir, '--json'], api)
    expect(ok.code).toBe(0)
    expect(asked.filter((a) => a.startsWith('list'))).toEqual(['list main:.github/workflows'])
    expect(asked.filter((a) => a.startsWith('file'))).toEqual([])

    delete onMain[settle]
    const missing = await cli(['--dir', dir, '--json'], memoryApi(onMain, ['memory/autoloop']).api)
    expect(missing.code).toBe(1)
    const report = JSON.parse(missing.stdout) as { checks: { id: string; level: string }[] }
    expect(report.checks.filter((c) => c.level !== 'ok')).toEqual([
      expect.objectContaining({ id: 'settle-workflow', level: 'fail' })
    ])
  })
})

describe('autoloop-ci-gate doctor arguments', () => {
  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--state-branch', 'a..b'], /--state-branch "a\.\.b" is not a branch name/]
  ])('%j is refused with exit code 2', async (args, message) => {
    const run = await cli(args)
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(message)
    expect(run.stdout).toBe('')
  })

  it('--help prints the usage', async () => {
    const run = await cli(['--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^usage: autoloop-ci-gate doctor/)
  })

  it('a folder without workflows, offline: one failed check, exit code 1', async () => {
    const run = await cli(['--dir', tempDir(), '--json'])
    expect(run.code).toBe(1)
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 'fail',
      checks: [{ id: 'workflow', level: 'fail' }]
    })
  })

  it('an API that fails: exit code 2 with the cause', async () => {
    const { api } = memoryApi({}, [])
    api.listDir = async () => {
      throw new Error('HTTP 500')
    }
    const run = await cli(['--dir', tempDir()], api)
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/could not read the repository: HTTP 500/)
  })
})
