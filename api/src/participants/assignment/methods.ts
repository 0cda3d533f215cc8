import type { Random } from "../../system/random.ts";

/**
 * The assignment methods of api.md "Assignment (wave 4)" as pure functions of what the balance counts
 * (docs/assignment.md explains each). Every method returns the arm and the probability that it gave
 * this participant that arm at this moment, which analyses weight by.
 */

/** An arm as a method sees it. `open`: neither full nor paused. */
export interface ArmLoad {
  readonly id: string;
  readonly weight: number;
  readonly counted: number;
  readonly open: boolean;
}

export interface Decision {
  readonly armId: string;
  /** The chance the method gave this arm now. */
  readonly probability: number;
}

const openArms = (arms: readonly ArmLoad[]) => arms.filter((a) => a.open && a.weight > 0);

/**
 * Balanced by weight: the arm whose share of the counted participants lags its weight most, i.e. the
 * smallest (counted + 1) / weight; ties go to the earlier arm. Over n joins each arm ends within one
 * participant of n * weight / total weight. Deterministic: probability 1.
 */
export function balanced(arms: readonly ArmLoad[]): Decision | null {
  let best: ArmLoad | null = null;
  for (const a of openArms(arms))
    if (best === null || (a.counted + 1) / a.weight < (best.counted + 1) / best.weight) best = a;
  return best === null ? null : { armId: best.id, probability: 1 };
}

/** The slots of a new permuted block: each open arm `blockSize / sum of weights * weight` times. */
function newBlock(arms: readonly ArmLoad[], blockSize: number): string[] {
  const all = arms.filter((a) => a.weight > 0);
  const sum = all.reduce((s, a) => s + a.weight, 0);
  const per = Math.max(1, Math.round(blockSize / sum));
  return openArms(arms).flatMap((a) => Array.from({ length: per * Math.round(a.weight) }, () => a.id));
}

/**
 * The slots the next newcomer draws from: what is left of the block for the open arms, or a new block
 * when none is (empty when every arm is closed).
 */
export function slotsNow(
  arms: readonly ArmLoad[],
  remaining: readonly string[] | null,
  blockSize: number,
): string[] {
  const open = new Set(openArms(arms).map((a) => a.id));
  if (open.size === 0) return [];
  const slots = (remaining ?? []).filter((id) => open.has(id));
  return slots.length > 0 ? slots : newBlock(arms, blockSize);
}

/**
 * Permuted blocks: `remaining` are the slots left in the current block (arm ids, each once per slot).
 * The participant takes a slot drawn at random, so within a block the next arm cannot be told from the
 * previous ones (beyond what the block has left); slots of arms that closed drop out, and a block with
 * none left starts anew. Probability: the arm's slots over the block's slots left, before the draw.
 */
export function blocked(
  arms: readonly ArmLoad[],
  remaining: readonly string[] | null,
  blockSize: number,
  random: Random,
): { decision: Decision; remaining: string[] } | null {
  const slots = slotsNow(arms, remaining, blockSize);
  if (slots.length === 0) return null;
  const i = Math.floor(random.next() * slots.length);
  const armId = slots[i] as string;
  const probability = slots.filter((s) => s === armId).length / slots.length;
  return { decision: { armId, probability }, remaining: [...slots.slice(0, i), ...slots.slice(i + 1)] };
}

/** A covariate's counts: per arm, how many counted participants carry each level. */
export type LevelCounts = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** The level a missing value is (api.md: "a missing value is its own level"). */
export const MISSING_LEVEL = "";

/**
 * Pocock-Simon minimisation: for each open arm, the imbalance the participant would leave if assigned
 * there: over the covariates, the range across open arms of the weighted counts of the participant's
 * level (count / weight). The arms that leave the least are preferred: together they get
 * `randomElement` (shared evenly), the others split the rest; when every arm ties, each is as likely.
 */
export function minimisation(
  arms: readonly ArmLoad[],
  covariates: readonly LevelCounts[],
  levels: readonly string[],
  randomElement: number,
  random: Random,
): Decision | null {
  const open = openArms(arms);
  if (open.length === 0) return null;
  const imbalance = (candidate: ArmLoad): number => {
    let total = 0;
    for (const [c, counts] of covariates.entries()) {
      const level = levels[c] ?? MISSING_LEVEL;
      const loads = open.map(
        (a) => ((counts.get(a.id)?.get(level) ?? 0) + (a === candidate ? 1 : 0)) / a.weight,
      );
      total += Math.max(...loads) - Math.min(...loads);
    }
    return total;
  };
  const scores = open.map((a) => ({ arm: a, score: imbalance(a) }));
  const least = Math.min(...scores.map((s) => s.score));
  // A tolerance for the division by weights: equal imbalances can differ in their last bits.
  const preferred = scores.filter((s) => s.score - least < 1e-9).map((s) => s.arm);
  const probabilities = open.map((a) => {
    if (preferred.length === open.length) return 1 / open.length;
    return preferred.includes(a)
      ? randomElement / preferred.length
      : (1 - randomElement) / (open.length - preferred.length);
  });
  return draw(open, probabilities, random);
}

/** An arm's outcome so far for Thompson sampling: successes out of trials of the metric. */
export interface ArmOutcome {
  readonly id: string;
  readonly successes: number;
  readonly trials: number;
}

/** How many Beta draws estimate each arm's Thompson probability (api.md: 1,000). */
const THOMPSON_DRAWS = 1000;

/**
 * Each open arm's chance of being best under Beta(1 + successes, 1 + failures) posteriors, estimated
 * from `THOMPSON_DRAWS` joint draws, then lifted so none is below `floor` (p' = floor + (1 - n floor) p;
 * a floor above 1/n is taken as 1/n).
 */
export function thompsonProbabilities(
  outcomes: readonly ArmOutcome[],
  floor: number,
  random: Random,
): number[] {
  const n = outcomes.length;
  if (n === 0) return [];
  const wins = new Array<number>(n).fill(0);
  for (let d = 0; d < THOMPSON_DRAWS; d++) {
    let best = 0;
    let bestValue = -1;
    for (const [i, o] of outcomes.entries()) {
      const a = 1 + Math.max(0, o.successes);
      const b = 1 + Math.max(0, o.trials - o.successes);
      const v = random.beta(a / (a + b), a + b);
      if (v > bestValue) {
        bestValue = v;
        best = i;
      }
    }
    wins[best] = (wins[best] ?? 0) + 1;
  }
  const f = Math.min(floor, 1 / n);
  return wins.map((w) => f + (1 - n * f) * (w / THOMPSON_DRAWS));
}

/**
 * Adaptive (Thompson sampling): balanced, at probability 1/arms, until every open arm counts `burnIn`
 * participants; then the arm drawn from the Thompson probabilities after the floor.
 */
export function adaptive(
  arms: readonly ArmLoad[],
  outcomes: ReadonlyMap<string, ArmOutcome>,
  options: { burnIn: number; floor: number },
  draws: Random,
  choice: Random,
): Decision | null {
  const open = openArms(arms);
  if (open.length === 0) return null;
  if (open.some((a) => a.counted < options.burnIn)) {
    // Adaptive uses weights only through the floor (api.md): the burn-in evens the counts.
    const picked = balanced(open.map((a) => ({ ...a, weight: 1 })));
    return picked && { armId: picked.armId, probability: 1 / open.length };
  }
  const probabilities = thompsonProbabilities(
    open.map((a) => outcomes.get(a.id) ?? { id: a.id, successes: 0, trials: 0 }),
    options.floor,
    draws,
  );
  return draw(open, probabilities, choice);
}

/** One arm drawn in proportion to its probability, with that probability. */
function draw(arms: readonly ArmLoad[], probabilities: readonly number[], random: Random): Decision {
  let x = random.next();
  for (const [i, a] of arms.entries()) {
    const p = probabilities[i] ?? 0;
    if (x < p) return { armId: a.id, probability: p };
    x -= p;
  }
  // Rounding can leave x a hair above the last share: the last arm with a chance takes it.
  const last = probabilities.findLastIndex((p) => p > 0);
  return { armId: (arms[last] as ArmLoad).id, probability: probabilities[last] as number };
}
