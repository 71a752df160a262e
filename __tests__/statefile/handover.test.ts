import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { ActionError } from '../../src/core/errors.js'
import { parseIterationFile, parseSelection } from '../../src/statefile/handover.js'
import { thrownBy } from './helpers.js'

const SELECTION_PATH = '/tmp/gh-aw/agent/autoloop.json'
const ITERATION_PATH = '/tmp/gh-aw/agent/autoloop-iteration.json'

/** The autoloop scheduler's own output (see __fixtures__/handover/README.md). */
const scheduled = (name: string): string =>
  readFileSync(new URL(`../../__fixtures__/handover/${name}.json`, import.meta.url), 'utf8')

const actionErrorOf = (act: () => unknown): ActionError => thrownBy(ActionError, act)

describe('parseSelection (the scheduler’s autoloop.json)', () => {
  it('a selected program: its name and branch', () => {
    expect(parseSelection(scheduled('selection-selected'), SELECTION_PATH)).toEqual({
      program: 'coverage',
      issue: undefined,
      pr: undefined,
      branch: 'autoloop/coverage'
    })
  })

  it('a paused program forced by a dispatch is still the selection (the gate is the brake)', () => {
    expect(parseSelection(scheduled('selection-forced-paused'), SELECTION_PATH).program).toBe(
      'coverage'
    )
  })

  it('no program selected (a bootstrap): none', () => {
    expect(parseSelection(scheduled('selection-none'), SELECTION_PATH)).toEqual({
      program: null,
      issue: undefined,
      pr: undefined,
      branch: undefined
    })
  })

  it('no programs at all (the scheduler writes no "selected" key then): none', () => {
    const text = scheduled('selection-no-programs')
    expect(JSON.parse(text)).not.toHaveProperty('selected')
    expect(parseSelection(text, SELECTION_PATH).program).toBeNull()
  })

  it('takes the issue and pull request numbers when the scheduler found them', () => {
    // The selected file with the numbers an issue-based program with an open PR would have.
    const json = {
      ...JSON.parse(scheduled('selection-selected')),
      selected_issue: 12,
      existing_pr: 34
    }
    expect(parseSelection(JSON.stringify(json), SELECTION_PATH)).toMatchObject({
      issue: 12,
      pr: 34
    })
  })

  it('refuses a file that is not JSON, naming it', () => {
    const error = actionErrorOf(() => parseSelection('{"selected": "cov', SELECTION_PATH))
    expect(error.message).toMatch(
      /^The selection file \/tmp\/gh-aw\/agent\/autoloop\.json is not JSON \(/
    )
    expect(error.fix).toMatch(/hand over the scheduler's \/tmp\/gh-aw\/autoloop\.json unchanged/)
  })

  it.each([
    ['selected', { selected: '../etc' }, 'must be a program name such as my-program'],
    ['selected_issue', { selected: 'a', selected_issue: '12' }, ''],
    ['existing_pr', { selected: 'a', existing_pr: -3 }, ''],
    ['head_branch', { selected: 'a', head_branch: 7 }, '']
  ])('refuses a bad `%s`, naming the file and the field', (field, json, rule) => {
    const error = actionErrorOf(() => parseSelection(JSON.stringify(json), SELECTION_PATH))
    expect(error.message).toContain(
      `The selection file ${SELECTION_PATH} is not valid: field \`${field}\``
    )
    expect(error.message).toContain(rule)
  })

  it('refuses a file that is not an object, naming the whole file', () => {
    expect(actionErrorOf(() => parseSelection('[]', SELECTION_PATH)).message).toContain(
      'field `(the whole file)`'
    )
  })
})

describe('parseIterationFile (what the agent hands over)', () => {
  const valid = { metric: 0.8731, improved: true, change: 'cache parsed ranges' }
  const parse = (json: unknown, program = 'coverage') =>
    parseIterationFile(JSON.stringify(json), ITERATION_PATH, program)

  it('reads the metric, whether it improved and the change', () => {
    expect(parse(valid)).toEqual(valid)
    expect(parse({ ...valid, program: 'coverage' })).toEqual({ ...valid, program: 'coverage' })
    expect(parse({ metric: null, improved: false, change: 'tried a cache, slower' })).toEqual({
      metric: null,
      improved: false,
      change: 'tried a cache, slower'
    })
    expect(parse({ ...valid, change: '  padded  ' }).change).toBe('padded')
  })

  it.each([
    ['metric', { ...valid, metric: null }, 'must be a number when `improved` is true'],
    ['metric', { ...valid, metric: '0.87' }, 'field `metric`'],
    ['improved', { metric: 0.8, change: 'x' }, 'field `improved`'],
    ['change', { ...valid, change: '   ' }, 'must describe the change in one line'],
    ['change', { ...valid, change: 'x'.repeat(501) }, 'must be one line of at most 500 characters'],
    ['program', { ...valid, program: 'not a name' }, 'must be a program name']
  ])('refuses a bad `%s`, naming the file and the field', (field, json, rule) => {
    const error = actionErrorOf(() => parse(json))
    expect(error.message).toContain(
      `The iteration file ${ITERATION_PATH} is not valid: field \`${field}\``
    )
    expect(error.message).toContain(rule)
    expect(error.fix).toMatch(
      /the agent writes \{"metric": 0\.8731, "improved": true, "change": "cache parsed ranges"\}/
    )
  })

  it('refuses a metric JSON reads as infinite', () => {
    const text = '{"metric": 1e999, "improved": true, "change": "x"}'
    expect(
      actionErrorOf(() => parseIterationFile(text, ITERATION_PATH, 'coverage')).message
    ).toContain('field `metric`')
  })

  it('names unknown fields (a typo must not be read as a missing value)', () => {
    expect(actionErrorOf(() => parse({ ...valid, metrics: 1 })).message).toContain(
      `The iteration file ${ITERATION_PATH} is not valid: unknown field \`metrics\``
    )
    expect(actionErrorOf(() => parse({ ...valid, a: 1, b: 2 })).message).toContain(
      'unknown fields `a`, `b`'
    )
  })

  it('refuses a file written for another program', () => {
    const error = actionErrorOf(() => parse({ ...valid, program: 'perf' }))
    expect(error.message).toContain('field `program` is "perf", but the gate is gating coverage')
  })

  it('refuses a file that is not JSON, naming it', () => {
    const error = actionErrorOf(() => parseIterationFile('metric: 0.8', ITERATION_PATH, 'coverage'))
    expect(error.message).toMatch(
      /^The iteration file \/tmp\/gh-aw\/agent\/autoloop-iteration\.json is not JSON \(/
    )
  })
})
