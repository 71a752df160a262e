/**
 * The plain example workflows (examples/*.yml) parse as YAML, pass the action only inputs
 * that action.yml declares, and grant each command what the doctor's permission table says.
 */
import { describe, expect, it } from '@jest/globals'
import { readFileSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import {
  ACCESS_RANK,
  COMMAND_PERMISSIONS,
  grantedAccess
} from '../../src/core/doctor/permissions.js'
import { ACTION, declaredInputs, inputNameProblems, readYaml } from './workflow-rules.js'

interface PlainWorkflow {
  permissions?: unknown
  jobs: Record<
    string,
    { permissions?: unknown; steps?: { uses?: string; with?: Record<string, unknown> }[] }
  >
}

/** What a job that runs a command grants (its own permissions, else the workflow's) short of the table. */
function permissionShortfalls(workflow: PlainWorkflow): string[] {
  const short: string[] = []
  for (const [name, job] of Object.entries(workflow.jobs)) {
    for (const step of job.steps ?? []) {
      if (!step.uses?.startsWith(`${ACTION}@`)) continue
      const command = String(step.with?.command ?? 'gate') as keyof typeof COMMAND_PERMISSIONS
      const granted = job.permissions ?? workflow.permissions
      for (const [scope, access] of Object.entries(COMMAND_PERMISSIONS[command]))
        if ((ACCESS_RANK[grantedAccess(granted, scope)] ?? 0) < (ACCESS_RANK[access] ?? 0))
          short.push(`jobs.${name} runs ${command}: ${scope}: ${access}`)
    }
  }
  return short
}

const ROOT = resolve(import.meta.dirname, '../..')
const EXAMPLES = join(ROOT, 'examples')
const declared = declaredInputs(readFileSync(join(ROOT, 'action.yml'), 'utf8'))
const files = readdirSync(EXAMPLES).filter((name) => name.endsWith('.yml'))

describe('plain example workflows', () => {
  it('are there to check', () => {
    expect(files.length).toBeGreaterThan(0)
  })

  it.each(files)('%s parses and uses only declared inputs', (file) => {
    const workflow = readYaml(readFileSync(join(EXAMPLES, file), 'utf8'))
    expect(inputNameProblems(workflow, declared)).toEqual([])
  })

  it.each(files)('%s grants each command what the doctor requires', (file) => {
    const workflow = readYaml(readFileSync(join(EXAMPLES, file), 'utf8')) as PlainWorkflow
    expect(permissionShortfalls(workflow)).toEqual([])
  })

  it('a permission taken away is found', () => {
    const text = readFileSync(join(EXAMPLES, 'autoloop-reconcile.yml'), 'utf8')
    const broken = readYaml(text.replace(/^ {2}pull-requests: read.*\n/m, '')) as PlainWorkflow
    expect(permissionShortfalls(broken)).toEqual([
      'jobs.reconcile runs reconcile: pull-requests: read'
    ])
  })

  it('a misspelt input is found', () => {
    const text = readFileSync(join(EXAMPLES, 'autoloop-reset.yml'), 'utf8')
    const broken = readYaml(text.replace('reason: ', 'reasons: '))
    expect(inputNameProblems(broken, declared)).toEqual([
      expect.stringMatching(/`reasons` is not an input of the action/)
    ])
  })

  it('a workflow with no step of the action is found, not passed unchecked', () => {
    expect(inputNameProblems({ jobs: { build: { steps: [{ run: 'make' }] } } }, declared)).toEqual([
      expect.stringContaining('no step uses autoloop/autoloop-ci-gate')
    ])
  })
})
