/**
 * The package scripts the README promises (`npm run test:unit -- <file>` runs that file only),
 * and what coverage leaves out.
 */
import { describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import ts from 'typescript'
import { TYPE_ONLY_MODULES } from '../jest.config.js'

/** The test files a package script would run, with these arguments after `--`. */
function listed(script: string, args: readonly string[]): string[] {
  const out = execFileSync('npm', ['run', '--silent', script, '--', '--listTests', ...args], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '--experimental-vm-modules' }
  })
  return out
    .split('\n')
    .filter((line) => line.endsWith('.ts'))
    .map((line) => relative(process.cwd(), line))
}

describe('test scripts', () => {
  it.each([
    ['test:unit', '__tests__/adapters/process.test.ts'],
    ['test:integration', '__tests__/integration/doctor.int.test.ts'],
    ['test:reliability', '__tests__/hostile/hostile-ci-text.test.ts']
  ])('npm run %s -- <file> runs that file only', (script, file) => {
    expect(listed(script, [file])).toEqual([file])
  })

  it('npm run test:unit without a file runs every unit test and no integration test', () => {
    const files = listed('test:unit', [])
    expect(files.length).toBeGreaterThan(50)
    expect(files.filter((file) => file.startsWith('__tests__/integration/'))).toEqual([])
  })
})

describe('coverage scope', () => {
  it.each(TYPE_ONLY_MODULES)('%s, left out of coverage, compiles to no code', (path) => {
    const { outputText } = ts.transpileModule(readFileSync(path, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 }
    })
    expect(outputText.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '').trim()).toMatch(/^(export \{\};)?$/)
  })
})
