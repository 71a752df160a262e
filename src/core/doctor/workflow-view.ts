/**
 * How the doctor's checks read a workflow (docs/commands.md: "doctor"): the compiled lock when
 * there is one, else autoloop.md's frontmatter; the steps that use this action, with their
 * command and inputs; and a rule's finding, which names a lock older than its workflow. Pure.
 */
import type { Finding } from './model.js'
import { finding, type CheckId } from './findings.js'
import { asMap, at, type ParsedSetup, type YamlMap } from './setup.js'

export const RECOMPILE = 'run `gh aw compile autoloop` and commit autoloop.lock.yml'

/** Lock or frontmatter: the document a job check reads. */
export interface View {
  doc: YamlMap
  file: string
  compiled: boolean
}

export function views(setup: ParsedSetup): { main: View | null; frontmatter: View | null } {
  const frontmatter = setup.workflow?.doc
    ? { doc: setup.workflow.doc, file: 'autoloop.md', compiled: false }
    : null
  const lock = setup.lock?.doc
    ? { doc: setup.lock.doc, file: 'autoloop.lock.yml', compiled: true }
    : null
  return { main: lock ?? frontmatter, frontmatter }
}

export interface ActionStep {
  job: string
  jobDoc: YamlMap
  step: YamlMap
  index: number
  command: string
  uses: string
}

/** `owner/autoloop-ci-gate@ref` (any owner, a fork too), or the repository's own `./`. */
export function isActionUses(uses: string): boolean {
  return /(^|\/)autoloop-ci-gate(\/[^@\s]*)?@\S+$/.test(uses) || uses === './'
}

export function stepsOf(job: YamlMap): YamlMap[] {
  const steps = job.steps
  return Array.isArray(steps) ? steps.map((s) => asMap(s)).filter((s): s is YamlMap => !!s) : []
}

export function actionSteps(doc: YamlMap): ActionStep[] {
  const found: ActionStep[] = []
  for (const [job, value] of Object.entries(asMap(doc.jobs) ?? {})) {
    const jobDoc = asMap(value)
    if (!jobDoc) continue
    for (const [index, step] of stepsOf(jobDoc).entries()) {
      const uses = typeof step.uses === 'string' ? step.uses.trim() : ''
      if (!isActionUses(uses)) continue
      const command = String(at(step, 'with', 'command') ?? 'gate').trim() || 'gate'
      found.push({ job, jobDoc, step, index, command, uses })
    }
  }
  return found
}

export function input(step: ActionStep, name: string): string | undefined {
  const value = at(step.step, 'with', name)
  return value === undefined || value === null ? undefined : String(value).trim()
}

export function needsOf(job: YamlMap): string[] {
  const needs = job.needs
  if (typeof needs === 'string') return [needs]
  return Array.isArray(needs) ? needs.map(String) : []
}

/** `${{ a.b }}` and `${{a.b}}` are the same expression. */
export function sameExpression(a: string | undefined, b: string): boolean {
  const norm = (text: string) => text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, '${{ $1 }}').trim()
  return a !== undefined && norm(a) === norm(b)
}

/**
 * Runs a rule on the main view (the lock when there is one); when the lock breaks it but the
 * frontmatter keeps it, the lock is stale.
 */
export function judged(
  setup: ParsedSetup,
  rule: (view: View) => string[]
): { problems: string[]; stale: boolean; view: View | null } {
  const { main, frontmatter } = views(setup)
  if (!main) return { problems: [], stale: false, view: null }
  const problems = rule(main)
  const stale =
    problems.length > 0 && main.compiled && frontmatter !== null && rule(frontmatter).length === 0
  return { problems, stale, view: main }
}

export function staleMessage(problems: string[], view: View | null): string {
  return `${problems.join('; ')} in ${view?.file ?? 'the lock'}, though autoloop.md has it right: the lock is older than the workflow`
}

/** The finding of a rule read through `judged`: ok, broken in the lock only (compile it again), or broken. */
export function ruleFinding(
  id: CheckId,
  { problems, stale, view }: ReturnType<typeof judged>,
  ok: string,
  fix: string
): Finding {
  if (problems.length === 0) return finding(id, 'ok', ok)
  return stale
    ? finding(id, 'fail', staleMessage(problems, view), RECOMPILE)
    : finding(id, 'fail', problems.join('; '), fix)
}
