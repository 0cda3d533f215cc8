/**
 * How alike the arms are on a covariate (api.md `GET .../balance`, docs/assignment.md): the standardised
 * mean difference of the largest pair of arms. For a numeric covariate, the difference of means over the
 * pooled standard deviation, sqrt((s1² + s2²) / 2); for a categorical one, the largest such difference
 * over the levels' indicators, (p1 - p2) / sqrt((p1 (1 - p1) + p2 (1 - p2)) / 2). 0.1 is the usual line
 * between balanced and not.
 */

/** Per arm, how many participants carry each level. */
export type Levels = ReadonlyMap<string, number>;

const pairs = <T>(items: readonly T[]): [T, T][] =>
  items.flatMap((a, i) => items.slice(i + 1).map((b): [T, T] => [a, b]));

/** The largest SMD between two arms of a categorical covariate; null with fewer than two arms with data. */
export function categoricalSmd(arms: readonly Levels[]): number | null {
  const withData = arms.filter((l) => [...l.values()].some((n) => n > 0));
  if (withData.length < 2) return null;
  const levels = new Set(withData.flatMap((l) => [...l.keys()]));
  const total = (l: Levels) => [...l.values()].reduce((s, n) => s + n, 0);
  let max = 0;
  for (const [a, b] of pairs(withData))
    for (const level of levels) {
      const p1 = (a.get(level) ?? 0) / total(a);
      const p2 = (b.get(level) ?? 0) / total(b);
      const sd = Math.sqrt((p1 * (1 - p1) + p2 * (1 - p2)) / 2);
      if (sd > 0) max = Math.max(max, Math.abs(p1 - p2) / sd);
    }
  return max;
}

/** The largest SMD between two arms of a numeric covariate; null with fewer than two arms with data. */
export function numericSmd(arms: readonly (readonly number[])[]): number | null {
  const withData = arms.filter((v) => v.length > 0);
  if (withData.length < 2) return null;
  const mean = (v: readonly number[]) => v.reduce((s, x) => s + x, 0) / v.length;
  const variance = (v: readonly number[]) => {
    if (v.length < 2) return 0;
    const m = mean(v);
    return v.reduce((s, x) => s + (x - m) ** 2, 0) / (v.length - 1);
  };
  let max = 0;
  for (const [a, b] of pairs(withData)) {
    const sd = Math.sqrt((variance(a) + variance(b)) / 2);
    const d = Math.abs(mean(a) - mean(b));
    // Arms without any spread and different values have no finite SMD; they show in the means.
    if (sd > 0) max = Math.max(max, d / sd);
  }
  return max;
}
