/**
 * The metric's maths (docs/commands.md: "record"), pure: which of two values is better, whether
 * one reaches the target, in the program's Metric Direction (`higher` or `lower`), and the
 * delta an Iteration History entry shows.
 */

/** The program's Metric Direction: which way a metric improves. */
export type MetricDirection = 'higher' | 'lower'

function decimalsOf(value: number): number {
  const text = String(Math.abs(value))
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text)
  if (!match) return 0
  const fraction = match[2]?.length ?? 0
  const exponent = Number(match[3] ?? 0)
  return Math.max(0, fraction - exponent)
}

/**
 * `next − previous`, signed, with as many decimals as the more precise of the two (at most
 * 12): `+0.0119`, `-0.12`; an exact zero is `0`.
 */
export function formatDelta(next: number, previous: number): string {
  const decimals = Math.min(12, Math.max(decimalsOf(next), decimalsOf(previous)))
  const delta = next - previous
  const magnitude = Math.abs(delta).toFixed(decimals)
  if (Number(magnitude) === 0) return '0'
  return `${delta < 0 ? '-' : '+'}${magnitude}`
}

/** Whether `candidate` is better than `reference` in the metric's direction. */
export function isBetter(
  candidate: number,
  reference: number | null,
  direction: MetricDirection
): boolean {
  if (reference === null) return true
  return direction === 'lower' ? candidate < reference : candidate > reference
}

/** Whether `metric` reaches `target` in the metric's direction (`higher`: `≥`; `lower`: `≤`). */
export function reachesTarget(metric: number, target: number, direction: MetricDirection): boolean {
  return direction === 'lower' ? metric <= target : metric >= target
}
