/**
 * action.yml, the input parser, the outputs and the README name the same inputs and outputs.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { INPUT_NAMES } from '../src/inputs.js'
import { OUTPUT_NAMES } from '../src/outputs.js'

const ROOT = resolve(import.meta.dirname, '..')
const actionYml = readFileSync(join(ROOT, 'action.yml'), 'utf8')
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')

function keysUnder(section: string): string[] {
  const body = actionYml.split(new RegExp(`^${section}:$`, 'm'))[1]?.split(/^\S/m)[0] ?? ''
  return [...body.matchAll(/^ {2}([a-z][a-z-]*):/gm)].map((m) => m[1] ?? '')
}

function readmeTableNames(heading: string): string[] {
  const section = readme.split(`## ${heading}\n`)[1]?.split(/\n## /)[0] ?? ''
  return [...section.matchAll(/^\| (`[^|]+) \|/gm)].flatMap((m) =>
    [...(m[1] ?? '').matchAll(/`([a-z-]+)`/g)].map((n) => n[1] ?? '')
  )
}

describe('documentation and interface agree', () => {
  it('action.yml declares exactly the inputs the parser reads', () => {
    expect(keysUnder('inputs').sort()).toEqual([...INPUT_NAMES].sort())
  })
  it('action.yml declares exactly the outputs the action sets', () => {
    expect(keysUnder('outputs').sort()).toEqual([...OUTPUT_NAMES].sort())
  })
  it('the README documents every input and output', () => {
    expect(readmeTableNames('Inputs').sort()).toEqual([...INPUT_NAMES].sort())
    expect(readmeTableNames('Outputs').sort()).toEqual([...OUTPUT_NAMES].sort())
  })
  it('the README opens with the demo and the test command, and .ci/run runs that test command', () => {
    const opening = readme.split('\n').slice(0, 6).join('\n')
    expect(opening).toContain('npm run demo')
    expect(opening).toContain('npm test')
    const ciRun = readFileSync(join(ROOT, '.ci/run'), 'utf8')
    expect(ciRun).toContain('npm ci')
    expect(ciRun.trim().split('\n').at(-1)).toBe('npm test')
  })
})
