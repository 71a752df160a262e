import { describe, expect, it } from '@jest/globals'
import {
  HISTORY_HEADING,
  RANGE_SPAN,
  compactHistory,
  findHistoryEntry,
  isRecorded,
  parseRangeLine,
  prependHistoryEntry,
  recordedRuns,
  renderHistoryEntry,
  renderRangeLine,
  summariseEntry,
  type HistoryEntry
} from '../../../src/statefile/history.js'
import { readMachineState } from '../../../src/statefile/machine-state.js'
import { createStateFile } from '../../../src/statefile/template.js'
import { fixtureText, toCrlf } from '../../statefile/helpers.js'
import { readLikeScheduler } from '../../helpers/scheduler-rule.js'

const AT = Date.parse('2026-03-05T12:00:00Z')

function entry(iteration: number, extra: Partial<HistoryEntry> = {}): HistoryEntry {
  return {
    iteration,
    outcome: 'accepted',
    at: AT + iteration * 3_600_000,
    metric: 0.5 + iteration / 100,
    previousBest: 0.5 + (iteration - 1) / 100,
    change: `change number ${iteration} with some words to take up room in the file`,
    reason: null,
    commit: 'abcdef0123456789abcdef0123456789abcdef01',
    runUrl: `https://github.example/o/r/actions/runs/${1000 + iteration}`,
    runKey: String(1000 + iteration),
    fixAttempts: 0,
    ...extra
  }
}

function withEntries(text: string, count: number, from = 1): string {
  let result = text
  for (let i = from; i < from + count; i += 1) {
    const e = entry(i, { outcome: i % 5 === 0 ? 'error' : i % 2 === 0 ? 'rejected' : 'accepted' })
    result = prependHistoryEntry(result, { lines: renderHistoryEntry(e), runKey: e.runKey })
  }
  return result
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8')

describe('run keys', () => {
  it('a run recorded by an earlier version as <run id>.<run attempt> is the same run', () => {
    // The earlier form, as the previous version wrote it: run 1001, attempt 2.
    const text = prependHistoryEntry(createStateFile('perf'), {
      lines: renderHistoryEntry(entry(1, { runKey: '1001.2' })),
      runKey: '1001.2'
    })
    expect(isRecorded(text, '1001')).toBe(true)
    expect(isRecorded(text, '100')).toBe(false)
    expect(findHistoryEntry(text, '1001')).toContain('### Iteration 1 ')
    // Recording the same run again replaces its key instead of listing it twice.
    const again = prependHistoryEntry(text, { lines: renderHistoryEntry(entry(2)), runKey: '1001' })
    expect(recordedRuns(again)).toEqual(['1001'])
  })
})

describe('renderHistoryEntry', () => {
  it('has the date, outcome, metric with signed delta, change, commit, run link and fix attempts', () => {
    const lines = renderHistoryEntry(
      entry(18, { metric: 0.74, previousBest: 0.86, outcome: 'accepted', fixAttempts: 2 })
    )
    expect(lines[0]).toBe(
      '### Iteration 18 — 2026-03-06 06:00 UTC — [Run](https://github.example/o/r/actions/runs/1018)'
    )
    expect(lines).toContain('<!-- autoloop-ci-gate:iteration 1018 -->')
    expect(lines).toContain('- **Status**: ✅ Accepted')
    expect(lines).toContain('- **Metric**: 0.74 (previous best: 0.86, delta: -0.12)')
    expect(lines).toContain('- **Commit**: abcdef012345')
    expect(lines).toContain('- **CI fix attempts**: 2')
  })

  it('leaves out fix attempts when there were none, and a metric when there is none', () => {
    const lines = renderHistoryEntry(entry(3, { outcome: 'error', metric: null }))
    expect(lines.join('\n')).not.toContain('CI fix attempts')
    expect(lines.join('\n')).not.toContain('**Metric**')
    expect(lines).toContain('- **Status**: ⚠️ Error')
  })
})

describe('prependHistoryEntry', () => {
  it('puts the newest entry first, drops the template placeholder and lists the run', () => {
    const text = withEntries(createStateFile('perf'), 2)
    const history = text.slice(text.indexOf(HISTORY_HEADING))
    expect(history).not.toContain('No iterations yet')
    expect(history.indexOf('### Iteration 2 ')).toBeLessThan(history.indexOf('### Iteration 1 '))
    expect(recordedRuns(text)).toEqual(['1002', '1001'])
    expect(isRecorded(text, '1001')).toBe(true)
    expect(isRecorded(text, '1003')).toBe(false)
    expect(findHistoryEntry(text, '1001')).toMatch(
      /^### Iteration 1 [^]*\*\*Status\*\*: ✅ Accepted/
    )
  })

  it('keeps every byte outside the history section (fixture with a fenced ## line)', () => {
    const fixture = fixtureText()
    const text = withEntries(fixture, 1, 18)
    const cut = fixture.indexOf(HISTORY_HEADING)
    expect(text.slice(0, cut)).toBe(fixture.slice(0, cut))
    // The agent's entries, fenced `## ` line included, are still there after the new one.
    expect(text.endsWith(fixture.slice(fixture.indexOf('### Iteration 17')))).toBe(true)
    expect(text.indexOf('### Iteration 18')).toBeLessThan(text.indexOf('### Iteration 17'))
  })

  it('keeps CRLF line endings', () => {
    const text = withEntries(toCrlf(fixtureText()), 2, 18)
    expect(text.replace(/\r\n/g, '')).not.toContain('\n')
  })

  it('creates the section at the end of a file that has none', () => {
    const fixture = fixtureText()
    const noHistory = fixture.slice(0, fixture.indexOf(HISTORY_HEADING))
    const text = withEntries(noHistory, 1, 5)
    expect(text.startsWith(noHistory)).toBe(true)
    expect(text.slice(noHistory.length)).toMatch(/^## 📊 Iteration History\n/)
    expect(findHistoryEntry(text, '1005')).toContain('### Iteration 5')
  })

  it('keeps the last 30 recorded runs', () => {
    const text = withEntries(createStateFile('perf'), 35)
    expect(recordedRuns(text)).toHaveLength(30)
    expect(recordedRuns(text)[0]).toBe('1035')
  })
})

describe('range lines', () => {
  it('render and parse back', () => {
    const range = {
      from: 3,
      to: 17,
      entries: 15,
      accepted: 9,
      rejected: 5,
      error: 1,
      other: 0,
      best: 0.84
    }
    const line = renderRangeLine(range)
    expect(line).toBe('- Iterations 3–17: 9 accepted, 5 rejected, 1 error; best 0.84')
    expect(parseRangeLine(line)).toEqual(range)
    expect(
      renderRangeLine({
        ...range,
        from: 4,
        to: 4,
        entries: 1,
        accepted: 0,
        rejected: 1,
        error: 0,
        best: null
      })
    ).toBe('- Iteration 4: 1 rejected')
  })

  it('summarise an agent-written entry', () => {
    const fixture = fixtureText()
    const agentEntry = fixture.slice(
      fixture.indexOf('### Iteration 17'),
      fixture.indexOf('### Iteration 16')
    )
    expect(summariseEntry(agentEntry)).toMatchObject({
      from: 17,
      to: 17,
      accepted: 1,
      best: 0.8731
    })
  })
})

describe('compactHistory', () => {
  it('leaves a file under budget alone', () => {
    const text = withEntries(createStateFile('perf'), 3)
    expect(compactHistory(text, 30720, 'higher')).toEqual({
      text,
      collapsed: 0,
      bytes: bytes(text),
      fits: true
    })
  })

  it('collapses the oldest entries into range lines to fit, never touching other sections', () => {
    const full = withEntries(fixtureText(), 120, 18)
    const budget = 12_000
    expect(bytes(full)).toBeGreaterThan(budget)
    const result = compactHistory(full, budget, 'higher')
    expect(result.fits).toBe(true)
    expect(result.bytes).toBe(bytes(result.text))
    expect(result.bytes).toBeLessThanOrEqual(budget)
    expect(result.collapsed).toBeGreaterThan(0)
    const cut = full.indexOf(HISTORY_HEADING)
    expect(result.text.slice(0, cut)).toBe(full.slice(0, cut))
    expect(readMachineState(result.text)).toEqual(readMachineState(full))
    expect(readLikeScheduler(result.text).fields).toEqual(readLikeScheduler(full).fields)
    // The newest entry stays; range lines cover the collapsed ones, newest range first.
    expect(result.text).toContain('### Iteration 137 ')
    const ranges = result.text
      .split('\n')
      .map(parseRangeLine)
      .filter((range) => range !== null)
    expect(ranges.length).toBeGreaterThan(0)
    expect(ranges.reduce((sum, range) => sum + range.entries, 0)).toBe(result.collapsed)
    for (const range of ranges)
      expect((range.to ?? 0) - (range.from ?? 0) + 1).toBeLessThanOrEqual(RANGE_SPAN)
    expect(ranges[ranges.length - 1]?.from).toBe(16)
    // The collapsed entries are the oldest ones: every kept entry is newer than every range.
    const kept = [...result.text.matchAll(/^### Iteration (\d+) /gm)].map((m) => Number(m[1]))
    expect(Math.min(...kept)).toBeGreaterThan(Math.max(...ranges.map((r) => r.to ?? 0)))
    // Recorded runs survive collapsing (idempotency), and so does a second compaction.
    const newestCollapsed = Math.max(...ranges.map((r) => r.to ?? 0))
    expect(137 - newestCollapsed).toBeLessThan(30)
    expect(isRecorded(result.text, `${1000 + newestCollapsed}`)).toBe(true)
    expect(findHistoryEntry(result.text, `${1000 + newestCollapsed}`)).toBeNull()
    const again = compactHistory(withEntries(result.text, 5, 138), budget, 'higher')
    expect(again.fits).toBe(true)
    const rangesAgain = again.text
      .split('\n')
      .map(parseRangeLine)
      .filter((r) => r !== null)
    expect(rangesAgain.reduce((sum, r) => sum + r.entries, 0)).toBe(
      result.collapsed + again.collapsed
    )
  })

  it('counts outcomes and keeps the best accepted metric in the direction', () => {
    let text = createStateFile('perf')
    const metrics = [0.9, 0.7, 0.8, 0.6, 0.75]
    metrics.forEach((metric, i) => {
      const e = entry(i + 1, { metric, outcome: i === 4 ? 'rejected' : 'accepted' })
      text = prependHistoryEntry(text, { lines: renderHistoryEntry(e), runKey: e.runKey })
    })
    const lower = compactHistory(text, bytes(text) - 1000, 'lower')
    const higher = compactHistory(text, bytes(text) - 1000, 'higher')
    expect(lower.collapsed).toBe(4)
    const rangeOf = (t: string) =>
      t
        .split('\n')
        .map(parseRangeLine)
        .find((r) => r !== null)
    expect(rangeOf(lower.text)).toMatchObject({ from: 1, accepted: 4, rejected: 0, best: 0.6 })
    expect(rangeOf(higher.text)).toMatchObject({ from: 1, best: 0.9 })
  })

  it('says when even collapsing everything cannot fit the budget', () => {
    const text = withEntries(fixtureText(), 10, 18)
    const result = compactHistory(text, 1000, 'higher')
    expect(result.fits).toBe(false)
    expect(result.text).toContain('### Iteration 27 ')
    expect(result.text).not.toContain('### Iteration 26 ')
    expect(readMachineState(result.text)).toEqual(readMachineState(text))
  })
})
