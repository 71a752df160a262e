/**
 * What a settle run's event points at (README: "Settling on events"), on every payload GitHub
 * documents for the events settle knows (`@octokit/webhooks-examples`): only a completed run,
 * suite, check or a final status points at a commit; a fork's run, another event and a payload
 * of another shape point at nothing.
 */
import { describe, expect, it } from '@jest/globals'
import { createRequire } from 'node:module'
import { settleTargetOf } from '../../src/core/events.js'

interface Example {
  name: string
  examples: Record<string, unknown>[]
}
const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as Example[]

function payloadsOf(event: string): Record<string, unknown>[] {
  const found = examples.find((e) => e.name === event)
  if (!found) throw new Error(`no examples of ${event}`)
  return found.examples.map((e) => structuredClone(e))
}

/** The commit a documented payload names, by GitHub's field for it. */
function shaOf(event: string, payload: Record<string, unknown>): string {
  const field = {
    workflow_run: 'workflow_run',
    check_suite: 'check_suite',
    check_run: 'check_run'
  }[event]
  return field
    ? ((payload[field] as { head_sha: string }).head_sha as string)
    : (payload.sha as string)
}

/** A workflow run whose head is in another repository than the one the event is for (a fork). */
function fromAnotherRepository(event: string, payload: Record<string, unknown>): boolean {
  if (event !== 'workflow_run') return false
  const run = payload.workflow_run as { head_repository?: { full_name: string } }
  const repository = payload.repository as { full_name: string }
  return run.head_repository?.full_name !== repository.full_name
}

describe('settleTargetOf on GitHub documented payloads', () => {
  it.each(['workflow_run', 'check_suite', 'check_run'])(
    '%s: a completed one points at its head commit; every other action at nothing',
    (event) => {
      const payloads = payloadsOf(event)
      expect(payloads.length).toBeGreaterThan(1)
      for (const payload of payloads) {
        const target = settleTargetOf(event, payload)
        if (payload.action === 'completed' && !fromAnotherRepository(event, payload))
          expect(target).toMatchObject({ kind: 'commit', sha: shaOf(event, payload) })
        else expect(target.kind).toBe('ignored')
      }
    }
  )

  it('status: a final state points at its commit, a pending one at nothing', () => {
    for (const payload of payloadsOf('status')) {
      const target = settleTargetOf('status', payload)
      if (payload.state === 'pending') expect(target.kind).toBe('ignored')
      else expect(target).toMatchObject({ kind: 'commit', sha: payload.sha })
    }
    const [first] = payloadsOf('status')
    expect(settleTargetOf('status', { ...first, state: 'pending' }).kind).toBe('ignored')
  })

  it("workflow_run on a fork's commit points at nothing", () => {
    const payload = payloadsOf('workflow_run').find(
      (p) => p.action === 'completed' && !fromAnotherRepository('workflow_run', p)
    ) as {
      workflow_run: { head_repository: { full_name: string } }
      repository: { full_name: string }
    }
    expect(settleTargetOf('workflow_run', payload).kind).toBe('commit')
    payload.workflow_run.head_repository.full_name = `someone-else/${payload.repository.full_name.split('/')[1]}`
    expect(settleTargetOf('workflow_run', payload).kind).toBe('ignored')
  })

  it('workflow_dispatch: the program input, else every waiting attempt', () => {
    for (const payload of payloadsOf('workflow_dispatch')) {
      expect(settleTargetOf('workflow_dispatch', payload)).toMatchObject({
        kind: 'waiting',
        program: null
      })
      expect(
        settleTargetOf('workflow_dispatch', { ...payload, inputs: { program: 'speedup' } })
      ).toMatchObject({ kind: 'waiting', program: 'speedup' })
    }
  })

  it('schedule, or no event: every waiting attempt', () => {
    expect(settleTargetOf('schedule', {})).toMatchObject({ kind: 'waiting', program: null })
    expect(settleTargetOf(undefined, {})).toMatchObject({ kind: 'waiting', program: null })
  })

  it('another event, or a payload of another event, points at nothing', () => {
    const [issue] = payloadsOf('issues')
    expect(settleTargetOf('issues', issue).kind).toBe('ignored')
    const [push] = payloadsOf('push')
    for (const event of ['workflow_run', 'check_suite', 'check_run', 'status'])
      expect(settleTargetOf(event, push).kind).toBe('ignored')
    const completed = payloadsOf('workflow_run').find(
      (p) => p.action === 'completed' && !fromAnotherRepository('workflow_run', p)
    ) as {
      workflow_run: Record<string, unknown>
    }
    completed.workflow_run.head_sha = 'not a sha'
    expect(settleTargetOf('workflow_run', completed).kind).toBe('ignored')
  })
})
