/**
 * `command: doctor` and reconcile's fail-soft doctor, in-process against the fake GitHub API:
 * the workflow files read from the checkout or, without one, through the contents API at the
 * default branch; the outputs, the job summary and the step's failure; the requests sent.
 */
import { expect, it } from '@jest/globals'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { FakeGitHub } from '../../__fixtures__/fake-github/index.js'
import type { SetupFiles } from '../../src/core/doctor/model.js'
import { withFake } from '../helpers/fake-run.js'
import { runInProcess } from '../helpers/in-process.js'
import { tempDir } from '../helpers/temp-dir.js'
import { STATE_BRANCH } from '../app/commands/lifecycle-helpers.js'
import {
  PUBLISHED,
  describeWithAutoloop,
  filesOf,
  installed,
  realFiles
} from '../core/doctor/autoloop-files.js'

interface DoctorJson {
  status: string
  source: string
  checks: { id: string; level: string; message: string; fix: string | null }[]
}

/** The files as a branch's contents. */
function contentsOf(files: SetupFiles): Record<string, string> {
  const all = [files.workflow, files.lock, ...files.others].filter((f) => f !== null)
  return Object.fromEntries(all.map((f) => [f.path, f.text]))
}

/** A checkout holding the files. */
function checkout(files: SetupFiles): string {
  const dir = tempDir('autoloop-checkout-')
  for (const [path, text] of Object.entries(contentsOf(files))) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  return dir
}

const levelsOf = (json: string | undefined) =>
  Object.fromEntries((JSON.parse(json ?? '{}') as DoctorJson).checks.map((c) => [c.id, c.level]))

const contentsReads = (fake: FakeGitHub) =>
  fake.requests.filter((r) => r.route === 'GET /repos/{owner}/{repo}/contents/{path}')

describeWithAutoloop('doctor, in-process against the fake API', () => {
  it('reads the default branch through the contents API when the job has no checkout', async () => {
    const scenario = {
      contents: {
        main: contentsOf(filesOf(installed(PUBLISHED))),
        [STATE_BRANCH]: { 'perf.md': '# perf\n' }
      }
    }
    await withFake(scenario, async (fake) => {
      const run = await runInProcess(fake, { inputs: { command: 'doctor' } })
      expect(run.exitCode).toBe(0)
      expect(run.outputs.status).toBe('ok')
      const report = JSON.parse(run.outputs.doctor ?? '') as DoctorJson
      expect(report.source).toBe('contents API at main')
      expect(report.checks.every((c) => c.level === 'ok')).toBe(true)
      expect(report.checks).toHaveLength(14)
      expect(run.summary).toContain('## autoloop-ci-gate: doctor')
      expect(run.summary).toMatch(/^\| ✅ +\| ci_gate job +\|/m)
      // The folder, then autoloop.md, its lock and the other workflows (the settle workflow
      // is found on the default branch by that listing); the state branch.
      expect(
        contentsReads(fake).map((r) => decodeURIComponent(r.path.split('/contents/')[1] ?? ''))
      ).toEqual([
        '.github/workflows',
        '.github/workflows/autoloop.md',
        '.github/workflows/autoloop.lock.yml',
        '.github/workflows/autoloop-settle.yml',
        '.github/workflows/tests.yml'
      ])
      expect(fake.writeRequests()).toEqual([])
      expect(
        fake.requests.some((r) =>
          decodeURIComponent(r.path).endsWith(`/git/ref/heads/${STATE_BRANCH}`)
        )
      ).toBe(true)
    })
  })

  it('fails the step on autoloop as published, naming the failed checks; warns that the state branch is missing', async () => {
    await withFake({ contents: { main: {} } }, async (fake) => {
      const run = await runInProcess(fake, {
        inputs: { command: 'doctor' },
        cwd: checkout(realFiles(PUBLISHED))
      })
      expect(run.exitCode).toBe(1)
      expect(run.outputs.status).toBe('fail')
      expect(run.errors.join('\n')).toContain('ci-gate, ci-reconcile, handover')
      expect(levelsOf(run.outputs.doctor)).toMatchObject({
        'ci-gate': 'fail',
        'ci-workflow': 'ok',
        'state-branch': 'warn'
      })
      // The checkout answered: nothing was read through the contents API.
      expect(contentsReads(fake)).toEqual([])
    })
  })

  it('says there is nothing to check, and fails, in a repository without the autoloop workflow', async () => {
    await withFake({}, async (fake) => {
      const run = await runInProcess(fake, { inputs: { command: 'doctor' } })
      expect(run.exitCode).toBe(1)
      expect(levelsOf(run.outputs.doctor)).toEqual({ workflow: 'fail' })
    })
  })
})

describeWithAutoloop('reconcile runs the doctor fail-soft', () => {
  it('puts the failed checks in its summary and the doctor output, at no API cost', async () => {
    const cost = async (cwd: string | undefined) =>
      withFake(
        { contents: { [STATE_BRANCH]: { 'notes.txt': 'not a program\n' } } },
        async (fake) => {
          const run = await runInProcess(fake, {
            inputs: { command: 'reconcile' },
            ...(cwd ? { cwd } : {})
          })
          expect(run.exitCode).toBe(0)
          expect(run.outputs.status).toBe('reconciled')
          return { run, requests: fake.rateLimit.requestsSent }
        }
      )
    const plain = await cost(undefined)
    expect(plain.run.summary).not.toContain('Setup (doctor)')
    expect(plain.run.outputs.doctor).toBe('')
    const checked = await cost(checkout(realFiles(PUBLISHED)))
    expect(checked.requests).toBe(plain.requests)
    expect(checked.run.summary).toContain('### Setup (doctor): fail')
    expect(checked.run.summary).toMatch(/^\| ❌ +\| ci_gate job +\|/m)
    expect(checked.run.summary).not.toMatch(/^\| ✅/m)
    expect(levelsOf(checked.run.outputs.doctor)).toMatchObject({
      'ci-gate': 'fail',
      // Reconcile read the state branch with git: it exists.
      'state-branch': 'ok'
    })
  })

  it('reconciles when the doctor cannot run', async () => {
    const cwd = tempDir('autoloop-checkout-')
    // A folder where the workflow file should be: reading it fails.
    mkdirSync(join(cwd, '.github/workflows/autoloop.md'), { recursive: true })
    await withFake(
      { contents: { [STATE_BRANCH]: { 'notes.txt': 'not a program\n' } } },
      async (fake) => {
        const run = await runInProcess(fake, { inputs: { command: 'reconcile' }, cwd })
        expect(run.exitCode).toBe(0)
        expect(run.outputs.status).toBe('reconciled')
        expect(run.summary).toMatch(
          /The doctor could not run: cannot read \.github\/workflows\/autoloop\.md .*EISDIR/
        )
        expect(run.outputs.doctor).toBe('')
      }
    )
  })
})
