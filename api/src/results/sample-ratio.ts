import jStat from "jstat";

// jStat computes the chi-square distribution through its regularized incomplete gamma function.
export const chisquareCdf = (x: number, df: number): number => jStat.chisquare.cdf(x, df);

/** The p-value below which assignment is flagged: the usual sample-ratio-mismatch alarm level. */
const SRM_ALPHA = 0.001;

/**
 * Pearson's chi-square goodness-of-fit test of observed group sizes against the shares their
 * weights ask for (a sample-ratio-mismatch check; Fabijan et al., "Diagnosing Sample Ratio Mismatch
 * in Online Controlled Experiments", KDD 2019). Null with fewer than two groups or no participant.
 */
export function sampleRatioTest(groups: readonly { readonly weight: number; readonly count: number }[]): {
  chi_square: number | null;
  p_value: number | null;
  mismatch: boolean;
} {
  const n = groups.reduce((s, g) => s + g.count, 0);
  const weights = groups.reduce((s, g) => s + g.weight, 0);
  if (groups.length < 2 || n === 0 || !(weights > 0))
    return { chi_square: null, p_value: null, mismatch: false };
  let chi = 0;
  for (const g of groups) {
    const expected = (n * g.weight) / weights;
    chi += (g.count - expected) ** 2 / expected;
  }
  const p = 1 - chisquareCdf(chi, groups.length - 1);
  return { chi_square: chi, p_value: p, mismatch: p < SRM_ALPHA };
}
