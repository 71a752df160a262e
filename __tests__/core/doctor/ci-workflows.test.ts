/**
 * Which workflows run CI for an iteration: autoloop's own test workflow with its `on:` edited
 * into each trigger a repository might have, and GitHub's branch-filter rule.
 */
import { describe, expect, it } from '@jest/globals'
import { parseDocument } from 'yaml'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ciWorkflowVerdicts, filterMatches } from '../../../src/core/doctor/ci-workflows.js'
import type { ParsedFile } from '../../../src/core/doctor/setup.js'
import { PUBLISHED, describeWithAutoloop } from './autoloop-files.js'

describe("GitHub's branch filters", () => {
  it.each<[string[], string, boolean]>([
    [['autoloop/**'], 'autoloop/perf', true],
    [['autoloop/*'], 'autoloop/perf', true],
    [['autoloop/*'], 'autoloop/a/b', false],
    [['main'], 'autoloop/perf', false],
    [['**', '!autoloop/**'], 'autoloop/perf', false],
    [['!autoloop/**', '**'], 'autoloop/perf', true],
    [['autoloop/[a-z]*'], 'autoloop/perf', true],
    [['autoloop/[0-9]*'], 'autoloop/perf', false],
    [['releases?/**'], 'release/1', true],
    [['ma+in'], 'maaain', true],
    [['auto.loop/*'], 'autoXloop/perf', false]
  ])('%j on %s: %s', (patterns, name, expected) => {
    expect(filterMatches(patterns, name)).toBe(expected)
  })
})

describeWithAutoloop("autoloop's tests.yml with other triggers", () => {
  const text = readFileSync(join(PUBLISHED, '.github/workflows/tests.yml'), 'utf8')

  function withOn(on: unknown): ParsedFile {
    const doc = parseDocument(text)
    doc.set('on', doc.createNode(on))
    return { path: 'tests.yml', doc: doc.toJS() as Record<string, unknown>, error: null }
  }

  it.each<[string, unknown, string | null, 'runs' | 'limited' | 'never' | null]>([
    ['as published (push to main, pull_request)', undefined, 'main', 'runs'],
    ['push to every branch', 'push', null, 'runs'],
    ['a list of events', ['push', 'pull_request'], null, 'runs'],
    ['push with tags only', { push: { tags: ['v*'] } }, null, null],
    ['push ignoring autoloop/**', { push: { 'branches-ignore': ['autoloop/**'] } }, null, null],
    ['push ignoring other branches', { push: { 'branches-ignore': ['gh-pages'] } }, null, 'runs'],
    [
      'push to autoloop/** ignoring docs',
      { push: { branches: ['autoloop/**'], 'paths-ignore': ['docs/**'] } },
      null,
      'never'
    ],
    [
      'push to autoloop/** under src/',
      { push: { branches: ['autoloop/**'], paths: ['src/**'] } },
      null,
      'never'
    ],
    ['pull_request opened only', { pull_request: { types: ['opened'] } }, null, null],
    [
      'pull_request into the default branch',
      { pull_request: { branches: ['trunk'] } },
      'trunk',
      'runs'
    ],
    ['pull_request into another branch', { pull_request: { branches: ['trunk'] } }, 'main', null],
    [
      'pull_request, default branch unknown',
      { pull_request: { branches: ['main'] } },
      null,
      'runs'
    ],
    [
      'pull_request ignoring docs',
      { pull_request: { 'paths-ignore': ['docs/**'] } },
      null,
      'limited'
    ],
    ['schedule only', { schedule: [{ cron: '0 0 * * *' }] }, null, null]
  ])('%s', (_name, on, defaultBranch, expected) => {
    const workflow = on === undefined ? withOn(parseDocument(text).toJS().on) : withOn(on)
    const verdicts = ciWorkflowVerdicts([workflow], defaultBranch)
    expect(verdicts[0]?.kind ?? null).toBe(expected)
  })

  it('a file that is not YAML is left out', () => {
    expect(
      ciWorkflowVerdicts([{ path: 'x.yml', doc: null, error: 'is not valid YAML' }], null)
    ).toEqual([])
  })
})
