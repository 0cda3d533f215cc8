import { createHash } from "node:crypto";
import { idsOf, pageOfChain, type Recommender, type RecommendRequest } from "../recommender.ts";

/** sfc32: a small, fast, well-distributed PRNG with a 128-bit state; numbers in [0, 1). */
export function sfc32(seed: Uint32Array): () => number {
  let a = seed[0] ?? 0;
  let b = seed[1] ?? 0;
  let c = seed[2] ?? 0;
  let d = seed[3] ?? 1;
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

/** A 128-bit seed from text (SHA-256). */
export function seedOf(text: string): Uint32Array {
  const digest = Uint8Array.from(createHash("sha256").update(text).digest());
  return new Uint32Array(digest.buffer, 0, 4);
}

/**
 * Fisher-Yates, lazily: yields the shuffled order one element at a time, so a page needs only as
 * many random draws as the items it walks. The prefix is the same as a full shuffle's.
 */
export function* shuffled(base: Int32Array, random: () => number): Generator<number> {
  const a = Int32Array.from(base);
  for (let i = 0; i < a.length; i++) {
    const j = i + Math.floor(random() * (a.length - i));
    const t = a[i] as number;
    a[i] = a[j] as number;
    a[j] = t;
    yield a[i] as number;
  }
}

/**
 * The seed of a request: the experiment and the participant's session, so the order is fixed for the
 * session (a reload shows the same order, the next page continues it without repeats) and differs
 * between sessions. On the watch page the current video is part of it: each video has its own
 * related order.
 */
export const randomSeedText = (
  r: Pick<RecommendRequest, "experimentId" | "sessionId" | "surface" | "current">,
) => `${r.experimentId}:${r.sessionId}:${r.surface}:${r.current?.id ?? ""}`;

/**
 * Built-in `random`: a shuffle of the pool (by UUID, so pool positions do not matter) seeded per
 * session. Leaving out the excluded videos from a uniform shuffle of the pool is a uniform shuffle of
 * the rest: each of the `eligible` videos lands at any position with probability 1 / eligible.
 */
export function createRandomRecommender(): Recommender {
  return {
    key: "random",
    propensity: (eligible) => (eligible > 0 ? 1 / eligible : null),
    async recommend(request) {
      const order = shuffled(request.pool.byId, sfc32(seedOf(randomSeedText(request))));
      return idsOf(request.pool, pageOfChain(request, [order]));
    },
  };
}
