/**
 * A checkout's workflow folder as the doctor reads it, on a real folder: a missing folder is
 * no folder, a file that cannot be read is an error that carries its fix.
 */
import { describe, expect, it } from '@jest/globals'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { checkoutWorkflowFolder } from '../../src/adapters/workflow-folder.js'
import { ActionError } from '../../src/core/errors.js'
import { tempDir } from '../helpers/temp-dir.js'

describe('checkoutWorkflowFolder', () => {
  it('a checkout without .github/workflows/ has no folder', async () => {
    await expect(checkoutWorkflowFolder(tempDir('autoloop-checkout-')).names()).resolves.toBeNull()
  })

  it('lists the folder’s files and reads them as they are', async () => {
    const dir = tempDir('autoloop-checkout-')
    mkdirSync(join(dir, '.github/workflows'), { recursive: true })
    writeFileSync(join(dir, '.github/workflows/ci.yml'), 'on: push\n')
    writeFileSync(join(dir, '.github/workflows/autoloop.md'), '---\non: schedule\n---\n')
    const folder = checkoutWorkflowFolder(dir)
    expect(((await folder.names()) ?? []).sort()).toEqual(['autoloop.md', 'ci.yml'])
    await expect(folder.read('ci.yml')).resolves.toBe('on: push\n')
  })

  it('a listed file that cannot be read is an ActionError with its fix', async () => {
    const dir = tempDir('autoloop-checkout-')
    // A folder where the workflow file should be.
    mkdirSync(join(dir, '.github/workflows/autoloop.md'), { recursive: true })
    const folder = checkoutWorkflowFolder(dir)
    expect(await folder.names()).toEqual(['autoloop.md'])
    const error = await folder.read('autoloop.md').then(
      () => null,
      (thrown: unknown) => thrown
    )
    expect(error).toBeInstanceOf(ActionError)
    expect((error as ActionError).fix).toEqual(expect.any(String))
  })
})
