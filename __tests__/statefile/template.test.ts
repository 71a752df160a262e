import { describe, expect, it } from '@jest/globals'
import { readMachineState } from '../../src/statefile/machine-state.js'
import { createStateFile } from '../../src/statefile/template.js'
import { splitSections } from '../../src/core/text/lines.js'
import { expectSchedulerReads } from './helpers.js'

describe('a new file from the template', () => {
  it('has the title, the note and the sections in order', () => {
    const text = createStateFile('coverage')
    const layout = splitSections(text, 'ignore')
    expect(layout.title).toBe('Autoloop: coverage')
    expect(layout.preamble).toMatch(
      /^# Autoloop: coverage\n\n🤖 .*maintained by automation.*Maintainers may edit any section.*\n\n---\n\n$/
    )
    expect(layout.sections.map((s) => s.heading)).toEqual([
      '## ⚙️ Machine State',
      '## 📋 Program Info',
      '## 🎯 Current Priorities',
      '## 📚 Lessons Learned',
      '## 🚧 Foreclosed Avenues',
      '## 🔭 Future Directions',
      '## 📊 Iteration History'
    ])
    const reading = expectSchedulerReads(text, {
      last_run: null,
      iteration_count: '0',
      best_metric: null,
      target_metric: null,
      metric_direction: null,
      branch: '`autoloop/coverage`',
      pr: null,
      issue: null,
      paused: 'false',
      pause_reason: null,
      completed: 'false',
      completed_reason: null,
      consecutive_errors: '0',
      recent_statuses: null
    })
    expect(Object.keys(reading.fields)).toHaveLength(15)
    expect(reading.skipped).toBe(false)
    expect(readMachineState(text).branch).toBe('autoloop/coverage')
  })

  it('takes initial values and the line ending', () => {
    const text = createStateFile('perf.v2', {
      eol: '\r\n',
      machineState: { targetMetric: 0.95, metricDirection: 'lower', issue: 12 }
    })
    expect(text.replace(/\r\n/g, '')).not.toContain('\n')
    expectSchedulerReads(text, {
      target_metric: '0.95',
      metric_direction: 'lower',
      issue: '#12',
      branch: '`autoloop/perf.v2`'
    })
  })

  it('rejects a program name that could escape its file name', () => {
    expect(() => createStateFile('../x')).toThrow(/invalid program name/)
  })
})
