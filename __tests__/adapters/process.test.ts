/** The one git runner of the adapters (src/adapters/process.ts). */
import { describe, expect, it } from '@jest/globals'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { runGit } from '../../src/adapters/process.js'
import { blobVersion } from '../../src/adapters/store.js'

describe('runGit', () => {
  // git's own blob SHA is also the check of the stores' `blobVersion`.
  it('writes the input to stdin and returns stdout as bytes with exit code 0', async () => {
    const result = await runGit(['hash-object', '--stdin'], { cwd: tmpdir(), input: 'ü\n' })
    expect(result.code).toBe(0)
    expect(result.stdout.toString().trim()).toBe(blobVersion('ü\n'))
  })

  it('returns git’s own exit code when the command fails', async () => {
    const result = await runGit(['rev-parse', '--verify', 'no-such-ref'], { cwd: tmpdir() })
    expect(result.code).toBe(128)
    expect(result.stdout.length).toBe(0)
  })

  it('passes the given environment on, over the job’s', async () => {
    const result = await runGit(['var', 'GIT_AUTHOR_IDENT'], {
      cwd: tmpdir(),
      env: { GIT_AUTHOR_NAME: 'Loop', GIT_AUTHOR_EMAIL: 'loop@example.com' }
    })
    expect(result.stdout.toString()).toMatch(/^Loop <loop@example\.com> \d+ [+-]\d{4}\n$/)
  })

  it('returns code 1 and no output when git cannot be started', async () => {
    const result = await runGit(['status'], { cwd: join(tmpdir(), 'no-such-folder-for-git') })
    expect(result).toMatchObject({ code: 1, stdout: Buffer.alloc(0) })
  })
})
