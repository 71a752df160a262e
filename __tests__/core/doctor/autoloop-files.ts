/**
 * autoloop's own workflow and the lock files real gh-aw compiled, read where they live: beside
 * this repository in `../shared/autoloop/` (autoloop has no licence file, so they are never
 * copied in). `438782ff/` is autoloop's `main` with its lock compiled by gh-aw v0.65.6;
 * `pr64-3db4328b/` the same workflow recompiled for autoloop PR #64 (a gh-aw build that names no
 * release). Tests that need them use `describeWithAutoloop`, which skips with the reason when
 * the folder is absent.
 *
 * `installed` applies the CI gate to them as a maintainer following the README would: the
 * example's keys merged into autoloop.md, and what `gh aw compile` makes of those keys applied
 * to the real lock (the custom jobs copied as written, the agent job waiting for ci_reconcile,
 * the post-step appended to the agent job, `GH_AW_ALLOWED_BOTS` on pre-activation's membership
 * step, `fallback_as_pull_request` in the safe-output handler configuration). Broken variants
 * are edits of that.
 */
import { describe } from '@jest/globals'
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseDocument, type Document } from 'yaml'
import type { RepoFile, SetupFiles } from '../../../src/core/doctor/model.js'
import { splitFrontmatter } from '../../../src/core/doctor/setup.js'

export const ROOT = resolve(import.meta.dirname, '../../..')
export const AUTOLOOP = resolve(ROOT, '../shared/autoloop')
export const PUBLISHED = join(AUTOLOOP, '438782ff')
export const PR64 = join(AUTOLOOP, 'pr64-3db4328b')
const EXAMPLE = join(ROOT, 'examples/gh-aw/autoloop.md')
export const SETTLE_EXAMPLE = join(ROOT, 'examples/autoloop-settle.yml')
const WORKFLOWS = '.github/workflows'

const present = existsSync(join(PUBLISHED, WORKFLOWS, 'autoloop.lock.yml'))

/** `describe` when autoloop's files are beside the repository, else skipped with the reason. */
export function describeWithAutoloop(name: string, body: () => void): void {
  if (present) describe(name, body)
  else
    describe.skip(
      `${name} (skipped: ${AUTOLOOP} is absent; these tests read autoloop's files there and never copy them in)`,
      body
    )
}

function read(folder: string, name: string): RepoFile {
  const path = `${WORKFLOWS}/${name}`
  return { path, text: readFileSync(join(folder, path), 'utf8') }
}

/** A folder's files as the doctor reads them from a checkout. */
export function realFiles(
  folder: string,
  others = [join(PUBLISHED, WORKFLOWS, 'tests.yml')]
): SetupFiles {
  return {
    source: `local: ${folder}`,
    workflow: read(folder, 'autoloop.md'),
    lock: read(folder, 'autoloop.lock.yml'),
    others: others.map((path) => ({
      path: `${WORKFLOWS}/${path.split('/').pop()}`,
      text: readFileSync(path, 'utf8')
    })),
    skipped: 0
  }
}

/** A workflow set up with the gate, to edit: the frontmatter, the body, the lock, other workflows. */
export interface Installed {
  md: Document
  body: string
  lock: Document
  others: Map<string, Document>
}

/** A full commit SHA standing for a release of the action. */
export const PINNED = 'autoloop/autoloop-ci-gate@0123456789abcdef0123456789abcdef01234567'

function exampleFrontmatter(): Document {
  const split = splitFrontmatter(readFileSync(EXAMPLE, 'utf8'))
  if (!split) throw new Error('the example has no frontmatter')
  const doc = parseDocument(split.frontmatter)
  for (const job of ['ci_gate', 'ci_reconcile']) {
    const jobSteps = doc.getIn(['jobs', job, 'steps']) as { items: unknown[] }
    jobSteps.items.forEach((_, i) => {
      const uses = String(doc.getIn(['jobs', job, 'steps', i, 'uses']))
      if (uses.startsWith('autoloop/autoloop-ci-gate@'))
        doc.setIn(['jobs', job, 'steps', i, 'uses'], PINNED)
    })
  }
  return doc
}

/** autoloop's workflow in `folder` with the CI gate added, and its lock as gh-aw would compile it. */
export function installed(folder: string): Installed {
  const real = splitFrontmatter(read(folder, 'autoloop.md').text)
  if (!real) throw new Error('autoloop.md has no frontmatter')
  const example = exampleFrontmatter()
  const exampleBody = splitFrontmatter(readFileSync(EXAMPLE, 'utf8'))?.body ?? ''
  const md = parseDocument(real.frontmatter)
  md.setIn(['on', 'bots'], example.getIn(['on', 'bots']))
  for (const output of ['create-pull-request', 'push-to-pull-request-branch'])
    md.setIn(
      ['safe-outputs', output, 'github-token-for-extra-empty-commit'],
      example.getIn(['safe-outputs', output, 'github-token-for-extra-empty-commit'])
    )
  const fallback = ['safe-outputs', 'push-to-pull-request-branch', 'fallback-as-pull-request']
  md.setIn(fallback, example.getIn(fallback))
  md.set('post-steps', example.get('post-steps'))
  md.set('jobs', example.get('jobs'))

  const lock = parseDocument(read(folder, 'autoloop.lock.yml').text)
  const jobs = example.toJS().jobs as Record<string, unknown>
  for (const [name, job] of Object.entries(jobs)) lock.setIn(['jobs', name], lock.createNode(job))
  lock.setIn(['jobs', 'agent', 'needs'], lock.createNode(['activation', 'ci_reconcile']))
  const agentSteps = lock.getIn(['jobs', 'agent', 'steps']) as { items: unknown[] }
  agentSteps.items.push(lock.createNode((example.toJS()['post-steps'] as unknown[])[0]))
  const pre = lock.getIn(['jobs', 'pre_activation', 'steps']) as { items: unknown[] }
  pre.items.forEach((_, i) => {
    if (
      lock.getIn(['jobs', 'pre_activation', 'steps', i, 'env', 'GH_AW_REQUIRED_ROLES']) !==
      undefined
    )
      lock.setIn(
        ['jobs', 'pre_activation', 'steps', i, 'env', 'GH_AW_ALLOWED_BOTS'],
        (example.toJS().on as { bots: string[] }).bots.join(',')
      )
  })
  editHandlerConfig(lock, (config) => {
    ;(config.push_to_pull_request_branch as Record<string, unknown>).fallback_as_pull_request =
      example.getIn(fallback)
  })
  const tests = parseDocument(read(PUBLISHED, 'tests.yml').text)
  // The example's settle workflow, listing autoloop's CI workflow by its name.
  const settle = parseDocument(readFileSync(SETTLE_EXAMPLE, 'utf8'))
  settle.setIn(['on', 'workflow_run', 'workflows'], settle.createNode([tests.get('name')]))
  return {
    md,
    body: `${real.body}\n${exampleBody}`,
    lock,
    others: new Map([
      ['tests.yml', tests],
      ['autoloop-settle.yml', settle]
    ])
  }
}

/** Edits the JSON of GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG in the lock's safe_outputs job. */
export function editHandlerConfig(
  lock: Document,
  edit: (config: Record<string, unknown>) => void
): void {
  const steps = lock.getIn(['jobs', 'safe_outputs', 'steps']) as { items: unknown[] }
  steps.items.forEach((_, i) => {
    const path = ['jobs', 'safe_outputs', 'steps', i, 'env', 'GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG']
    const raw = lock.getIn(path)
    if (typeof raw !== 'string') return
    const config = JSON.parse(raw) as Record<string, unknown>
    edit(config)
    lock.setIn(path, JSON.stringify(config))
  })
}

/** The index of the first step of a job whose `key` (a path) satisfies `test`. */
export function stepIndex(
  doc: Document,
  job: string,
  test: (step: Record<string, unknown>) => boolean
): number {
  const steps = doc.getIn(['jobs', job, 'steps']) as { items: unknown[] } | undefined
  const index = (steps?.items ?? []).findIndex((_, i) =>
    test((doc.getIn(['jobs', job, 'steps', i]) as { toJSON(): Record<string, unknown> }).toJSON())
  )
  if (index < 0) throw new Error(`no such step in jobs.${job}`)
  return index
}

/** The path of env `name` (default `marker`) in the step of `jobs.<job>` that sets env `marker`. */
export function lockEnvPath(
  doc: Document,
  job: string,
  marker: string,
  name: string = marker
): (string | number)[] {
  const step = stepIndex(
    doc,
    job,
    (s) => !!(s.env as Record<string, unknown> | undefined)?.[marker]
  )
  return ['jobs', job, 'steps', step, 'env', name]
}

/** The files of an installed workflow, as the doctor reads them. */
export function filesOf(setup: Installed, options: { lock?: boolean } = {}): SetupFiles {
  const yaml = (doc: Document) => doc.toString({ lineWidth: 0 })
  return {
    source: 'test',
    workflow: {
      path: `${WORKFLOWS}/autoloop.md`,
      text: `---\n${yaml(setup.md)}---\n${setup.body}`
    },
    lock:
      options.lock === false
        ? null
        : { path: `${WORKFLOWS}/autoloop.lock.yml`, text: yaml(setup.lock) },
    others: [...setup.others].map(([name, doc]) => ({
      path: `${WORKFLOWS}/${name}`,
      text: yaml(doc)
    })),
    skipped: 0
  }
}
