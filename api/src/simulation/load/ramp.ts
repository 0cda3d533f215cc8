import { failuresOf, type LoadSummary } from "./summary.ts";

/**
 * `feedlab simulate --ramp` (docs/deploy.md, "How many participants"): levels of participants, each a
 * load run of its own, raised until the deployment misses its targets, then narrowed between the last
 * level it held and the first it missed. A level is held when every endpoint's p99 is within the
 * target, no answer is a 5xx (or any other error the single run reports), and every acknowledged event
 * is in the export.
 */
export interface RampPlan {
  /** The first level's participants. */
  readonly from: number;
  /** Each level's participants are the last held level's times this, until one is missed. */
  readonly factor: number;
  /** No level above this. */
  readonly max: number;
  /** Levels tried between the last held and the first missed one (halving the gap each time). */
  readonly refinements: number;
  /** The p99 of every endpoint must be at most this (ms). */
  readonly p99Ms: number;
}

export const RAMP_DEFAULTS: RampPlan = { from: 10, factor: 2, max: 20_000, refinements: 2, p99Ms: 250 };

/** One level's outcome, as the ramp's report and JSON line give it. */
export interface RampLevel {
  readonly participants: number;
  readonly held: boolean;
  /** The slowest endpoint's p99 (ms), and which it was. */
  readonly p99_ms: number | null;
  readonly slowest: string | null;
  readonly requests_per_s: number;
  readonly errors_5xx: number;
  readonly events_missing: number;
  readonly lag_ms_p99: number | null;
  /** Why the level was missed; empty when held. */
  readonly missed: readonly string[];
}

/** Judges one level's run against the plan's targets. */
export function judgeLevel(s: LoadSummary, plan: Pick<RampPlan, "p99Ms">): RampLevel {
  let slowest: string | null = null;
  let p99: number | null = null;
  for (const [endpoint, p] of Object.entries(s.latency_ms))
    if (p99 === null || p.p99 > p99) [slowest, p99] = [endpoint, p.p99];
  const missed = [...failuresOf(s)];
  if (p99 !== null && p99 > plan.p99Ms)
    missed.unshift(`p99 of ${slowest} ${p99.toFixed(0)} ms, over ${plan.p99Ms} ms`);
  return {
    participants: s.participants,
    held: missed.length === 0,
    p99_ms: p99,
    slowest,
    requests_per_s: s.requests_per_s,
    errors_5xx: s.errors_5xx,
    events_missing: s.events_missing,
    lag_ms_p99: s.lag_ms_p99,
    missed,
  };
}

/**
 * The next level to run after `levels`, or null when the ramp is done: raised by the factor while
 * every level held (up to `max`); after a miss, halfway between the highest held and the lowest missed
 * level, `refinements` times at most and while they are more than 10% apart. A miss of the first level
 * ends the ramp.
 */
export function nextLevel(levels: readonly RampLevel[], plan: RampPlan): number | null {
  if (levels.length === 0) return Math.min(plan.from, plan.max);
  const held = levels.filter((l) => l.held).map((l) => l.participants);
  const missed = levels.filter((l) => !l.held).map((l) => l.participants);
  const high = held.length > 0 ? Math.max(...held) : null;
  if (high === null) return null;
  if (missed.length === 0) {
    if (high >= plan.max) return null;
    return Math.min(plan.max, Math.max(high + 1, Math.ceil(high * plan.factor)));
  }
  const low = Math.min(...missed);
  const refined = levels.length - 1 - levels.findIndex((l) => !l.held);
  if (refined >= plan.refinements || low - high <= Math.max(1, Math.ceil(high * 0.1))) return null;
  return Math.floor((high + low) / 2);
}

/** The highest level held, or null when none was. */
export const levelHeld = (levels: readonly RampLevel[]): number | null => {
  const held = levels.filter((l) => l.held).map((l) => l.participants);
  return held.length > 0 ? Math.max(...held) : null;
};
