import type { Video } from "@feedlab/schemas";
import type { Random } from "../system/random.ts";
import type { BehaviourOptions } from "./options.ts";

/**
 * What a simulated participant likes: a weight in [0, 1] per category and per tag of the pool. A
 * category or tag left out weighs 0. Maps, not records: a category may be called "constructor".
 */
export interface Taste {
  readonly categories: ReadonlyMap<string, number>;
  readonly tags: ReadonlyMap<string, number>;
}

/** The pool's videos as far as taste goes. */
type TasteVideo = Pick<Video, "category" | "tags">;

/** How many videos of the pool carry each category or tag, in the order first met (stable for a seed). */
function counts(values: Iterable<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const v of values) out.set(v, (out.get(v) ?? 0) + 1);
  return out;
}

/** Draws `k` distinct keys in proportion to their counts. */
function favourites(random: Random, byCount: ReadonlyMap<string, number>, k: number): string[] {
  const left = [...byCount.entries()];
  const out: string[] = [];
  while (out.length < k && left.length > 0) {
    const chosen = random.pickWeighted(left, ([, n]) => n);
    out.push(chosen[0]);
    left.splice(left.indexOf(chosen), 1);
  }
  return out;
}

/**
 * A taste drawn over the pool: favourite categories, larger ones more often (so a favourite has videos
 * to find), weighing 1, then 0.8, 0.6, ...; every other category a faint interest up to 0.15; favourite
 * tags between 0.6 and 1. Keys are visited in the pool's order, so the same pool and seed give one taste.
 */
export function drawTaste(random: Random, pool: readonly TasteVideo[], options: BehaviourOptions): Taste {
  const categoryCounts = counts(pool.flatMap((v) => (v.category ? [v.category] : [])));
  const tagCounts = counts(pool.flatMap((v) => v.tags));
  const categories = new Map<string, number>();
  favourites(random, categoryCounts, options.favouriteCategories).forEach((c, i) => {
    categories.set(c, Math.max(0.2, 1 - 0.2 * i));
  });
  for (const c of categoryCounts.keys()) {
    if (!categories.has(c)) categories.set(c, random.uniform(0, 0.15));
  }
  const tags = new Map<string, number>();
  for (const t of favourites(random, tagCounts, options.favouriteTags)) tags.set(t, random.uniform(0.6, 1));
  return { categories, tags };
}

/**
 * How well a video matches a taste, in [0, 1]: the category's weight and the best tag's weight, mixed by
 * `categoryWeight`. A video with only one of the two is judged on that one; a video with neither on
 * nothing, so it gets a middling 0.5 (no reason to like or avoid it).
 */
export function affinity(taste: Taste, video: TasteVideo, options: BehaviourOptions): number {
  const category = video.category ? (taste.categories.get(video.category) ?? 0) : null;
  const tag = video.tags.length > 0 ? Math.max(...video.tags.map((t) => taste.tags.get(t) ?? 0)) : null;
  if (category === null && tag === null) return 0.5;
  if (tag === null) return category ?? 0;
  if (category === null) return tag;
  return options.categoryWeight * category + (1 - options.categoryWeight) * tag;
}

const logit = (p: number) => Math.log(p / (1 - p));
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * The chance a card is clicked once looked at: the base rate moved by taste on the logit scale (so it
 * stays a probability), then divided by the position bias. Positions count from 0 at the top.
 */
export function clickProbability(match: number, position: number, options: BehaviourOptions): number {
  const base = Math.min(1 - 1e-6, Math.max(1e-6, options.baseClickRate));
  const p = sigmoid(logit(base) + options.tasteStrength * (match - 0.5));
  return p / (1 + options.positionDecay * Math.max(0, position));
}
