/**
 * A new program state file from the autoloop template, for a program that has none yet: the
 * title, the automation note, Machine State with every row, and the human sections.
 */
import { MACHINE_STATE_HEADING, updateMachineState } from './machine-state.js'
import {
  EMPTY_CELL,
  MACHINE_STATE_FIELDS,
  MACHINE_STATE_FIELD_NAMES,
  assertProgramName,
  renderCell,
  type MachineStatePatch
} from '../core/schema.js'
import type { LineEnding } from '../core/text/lines.js'

interface NewStateFileOptions {
  eol?: LineEnding
  /** Values for the Machine State rows beyond the template's defaults. */
  machineState?: MachineStatePatch
}

/** A state file from the autoloop template, for a program that has none yet. */
export function createStateFile(program: string, options: NewStateFileOptions = {}): string {
  assertProgramName(program)
  const eol = options.eol ?? '\n'
  const defaults: MachineStatePatch = {
    lastRun: null,
    iterationCount: 0,
    bestMetric: null,
    targetMetric: null,
    metricDirection: null,
    branch: `autoloop/${program}`,
    pr: null,
    issue: null,
    paused: false,
    pauseReason: null,
    completed: false,
    completedReason: null,
    consecutiveErrors: 0,
    recentStatuses: null
  }
  const rows = MACHINE_STATE_FIELD_NAMES.map(
    (field) =>
      `| ${MACHINE_STATE_FIELDS[field].label} | ${renderCell(field, defaults[field] as never)} |`
  )
  const human = (heading: string, ...body: string[]): string[] => [
    '---',
    '',
    heading,
    '',
    ...body,
    ''
  ]
  const lines = [
    `# Autoloop: ${program}`,
    '',
    '🤖 *This file is maintained by automation (the autoloop agent and autoloop-ci-gate). Maintainers may edit any section.*',
    '',
    ...human(
      MACHINE_STATE_HEADING,
      `> 🤖 *The autoloop scheduler reads this table before every run: one row per field, ${EMPTY_CELL} for an empty value, never a pipe character or a line break inside a value.*`,
      '',
      '| Field | Value |',
      '|-------|-------|',
      ...rows
    ),
    ...human(
      '## 📋 Program Info',
      '*(Goal, metric and links: filled in by the agent on its first iteration.)*'
    ),
    ...human(
      '## 🎯 Current Priorities',
      '*(None set yet: maintainers, write here what the next iterations should focus on.)*'
    ),
    ...human('## 📚 Lessons Learned', '- *(none yet)*'),
    ...human('## 🚧 Foreclosed Avenues', '- *(none yet)*'),
    ...human('## 🔭 Future Directions', '- *(none yet)*'),
    ...human('## 📊 Iteration History', 'Newest first.', '', '*(No iterations yet.)*')
  ]
  const text = lines.join(eol)
  return options.machineState ? updateMachineState(text, options.machineState) : text
}
