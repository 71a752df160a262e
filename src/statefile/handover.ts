/**
 * The files a gh-aw workflow hands to the gate job (docs/gh-aw.md: "The files the workflow hands
 * to the gate"), validated with zod. Pure: the caller reads the file; a file that is not what it
 * should be is an error that names the file and the field, raised before anything is written.
 *
 * - The selection: the autoloop scheduler's `/tmp/gh-aw/autoloop.json`, copied into the agent
 *   artifact by a post-step. `selected` names the program the agent worked on (null: none).
 * - The iteration file: what the agent measured, `{"metric": 0.87, "improved": true,
 *   "change": "one line"}` (and optionally `"program"`, and `"error"` when the evaluation
 *   itself failed), written by the agent. Both files pass through a folder the agent can
 *   write, so they are untrusted: names are checked, text is made safe where it is shown.
 */
import { z } from 'zod'
import { ActionError } from '../core/errors.js'
import { PROGRAM_NAME_PATTERN } from '../core/schema.js'

const positiveNumber = z.number().int().positive()

const SelectionSchema = z.object({
  // Absent when the scheduler found no program at all (it then writes `no_programs: true`).
  selected: z
    .string()
    .regex(PROGRAM_NAME_PATTERN, 'must be a program name such as my-program')
    .nullable()
    .optional(),
  selected_issue: positiveNumber.nullable().optional(),
  existing_pr: positiveNumber.nullable().optional(),
  head_branch: z.string().nullable().optional()
})

interface Selection {
  /** The program the agent worked on; null when the scheduler selected none. */
  program: string | null
  issue: number | undefined
  pr: number | undefined
  branch: string | undefined
}

const IterationFileSchema = z
  .object({
    program: z.string().regex(PROGRAM_NAME_PATTERN, 'must be a program name').optional(),
    metric: z.number().finite().nullable(),
    improved: z.boolean(),
    change: z
      .string()
      .trim()
      .min(1, 'must describe the change in one line')
      .max(500, 'must be one line of at most 500 characters'),
    /** The evaluation itself failed: the iteration is recorded as an error. */
    error: z.string().trim().min(1).max(500).optional()
  })
  .strict()
  .refine((file) => !file.improved || file.metric !== null, {
    message: 'must be a number when `improved` is true',
    path: ['metric']
  })

export type IterationReport = z.infer<typeof IterationFileSchema>

const ITERATION_EXAMPLE =
  '{"metric": 0.8731, "improved": true, "change": "cache parsed ranges"} (docs/gh-aw.md: "The files the workflow hands to the gate")'

function parseJson(text: string, path: string, what: string, fix: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new ActionError(
      `The ${what} ${path} is not JSON (${error instanceof Error ? error.message : String(error)})`,
      { fix }
    )
  }
}

function fieldProblem(error: z.ZodError): string {
  const issue = error.issues[0]
  const field = issue?.path.join('.') || '(the whole file)'
  const message =
    issue?.code === 'unrecognized_keys'
      ? `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => `\`${key}\``).join(', ')}`
      : `field \`${field}\` ${issue?.message ?? 'is invalid'}`
  return message
}

export function parseSelection(text: string, path: string): Selection {
  const fix =
    'hand over the scheduler\'s /tmp/gh-aw/autoloop.json unchanged (the post-step in README "gh-aw autoloop"), or pass `program`'
  const parsed = SelectionSchema.safeParse(parseJson(text, path, 'selection file', fix))
  if (!parsed.success)
    throw new ActionError(
      `The selection file ${path} is not valid: ${fieldProblem(parsed.error)}`,
      {
        fix
      }
    )
  const selection = parsed.data
  const program = selection.selected ?? null
  if (program !== null && selection.head_branch && selection.head_branch !== `autoloop/${program}`)
    throw new ActionError(
      `The selection file ${path} is not valid: field \`head_branch\` is "${selection.head_branch}", not autoloop/${program}`,
      { fix }
    )
  return {
    program,
    issue: selection.selected_issue ?? undefined,
    pr: selection.existing_pr ?? undefined,
    branch: selection.head_branch ?? undefined
  }
}

export function parseIterationFile(text: string, path: string, program: string): IterationReport {
  const fix = `the agent writes ${ITERATION_EXAMPLE}`
  const parsed = IterationFileSchema.safeParse(parseJson(text, path, 'iteration file', fix))
  if (!parsed.success)
    throw new ActionError(
      `The iteration file ${path} is not valid: ${fieldProblem(parsed.error)}`,
      {
        fix
      }
    )
  if (parsed.data.program !== undefined && parsed.data.program !== program)
    throw new ActionError(
      `The iteration file ${path} is not valid: field \`program\` is "${parsed.data.program}", but the gate is gating ${program}`,
      { fix: 'write the iteration file for the program the agent worked on, in the same run' }
    )
  return parsed.data
}
