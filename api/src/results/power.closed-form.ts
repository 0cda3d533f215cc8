/**
 * The closed form of a power analysis for a difference of two rates whose events come in clusters
 * (a participant's impressions or plays): the normal approximation for two proportions, inflated by
 * the design effect (Donner and Klar, "Design and Analysis of Cluster Randomization Trials", 2000,
 * chapter 5). docs/power.md has the formulas and a table checked by hand.
 */

/** Φ, the standard normal distribution function (Abramowitz and Stegun 26.2.17, error < 7.5e-8). */
export function normalCdf(z: number): number {
  const t = 1 / (1 + 0.2316419 * Math.abs(z));
  const poly =
    t * (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
  const tail = 0.3989422804014327 * Math.exp(-0.5 * z * z) * poly;
  return z >= 0 ? 1 - tail : tail;
}

/** Φ⁻¹, the standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (p <= 0) return Number.NEGATIVE_INFINITY;
  if (p >= 1) return Number.POSITIVE_INFINITY;
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  const low = 0.02425;
  if (p < low || p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(p < low ? p : 1 - p));
    const x =
      (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) /
      ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
    return p < low ? x : -x;
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) /
    (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1)
  );
}

/** What the closed form needs: the two rates, the test and the clustering. */
export interface Design {
  /** The control arm's rate p1. */
  readonly baseline: number;
  /** p2 - p1, positive. */
  readonly effect: number;
  /** Two-sided significance level. */
  readonly alpha: number;
  /** Mean denominator units (impressions, plays) per participant, M. */
  readonly perParticipant: number;
  /** Variance inflation of the clustering (designEffect). */
  readonly designEffect: number;
}

/** 1 + (M - 1) icc: clusters of equal size M (Kish). */
export const designEffect = (perParticipant: number, icc: number): number => 1 + (perParticipant - 1) * icc;

/**
 * 1 + ((1 + CV²) M - 1) icc: clusters of unequal sizes with mean M and coefficient of variation CV
 * (Eldridge, Ashby and Kerry, Int J Epidemiol 2006, eq. 6).
 */
export const unequalDesignEffect = (perParticipant: number, cv: number, icc: number): number =>
  1 + ((1 + cv * cv) * perParticipant - 1) * icc;

/** The variance of one denominator unit's difference, inflated: (p1 q1 + p2 q2) DE. */
function unitVariance(d: Design): number {
  const p1 = d.baseline;
  const p2 = d.baseline + d.effect;
  return (p1 * (1 - p1) + p2 * (1 - p2)) * d.designEffect;
}

/**
 * Participants per arm for the power asked:
 * ceil((z_{1-α/2} + z_power)² (p1 q1 + p2 q2) / effect² · DE / M), at least 2 (the clustered
 * interval needs two participants an arm).
 */
export function closedFormPerArm(d: Design, power: number): number {
  const z = normalQuantile(1 - d.alpha / 2) + normalQuantile(power);
  const n = Math.ceil(((z * z * unitVariance(d)) / (d.effect * d.effect)) * (1 / d.perParticipant) - 1e-9);
  return Math.max(2, n);
}

/** The power with n participants per arm, both tails: Φ(e/se - z) + Φ(-e/se - z). */
export function closedFormPower(d: Design, n: number): number {
  const se = Math.sqrt(unitVariance(d) / (d.perParticipant * n));
  const z = normalQuantile(1 - d.alpha / 2);
  if (se === 0) return 1;
  return normalCdf(d.effect / se - z) + normalCdf(-d.effect / se - z);
}

/** The closed form's power at about `points` sizes from 2 to `upTo` participants per arm, for the plot. */
export function powerCurve(
  d: Design,
  upTo: number,
  points = 40,
): { participants_per_arm: number; power: number }[] {
  const sizes = new Set<number>();
  for (let i = 0; i <= points; i++) sizes.add(Math.max(2, Math.round((upTo * i) / points)));
  return [...sizes].map((n) => ({ participants_per_arm: n, power: closedFormPower(d, n) }));
}
