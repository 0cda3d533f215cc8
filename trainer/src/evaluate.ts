import type { AlsModel } from "./als/als.ts";
import type { Interactions } from "./data.ts";
import type { ComputePool } from "./parallel/pool.ts";
import { shuffledRange } from "./random.ts";
import { topByDot } from "./rank.ts";
import { type Csr, csrFromTriplets } from "./sparse.ts";

/** The cut-off of the offline metrics (recall@10, NDCG@10). */
const EVAL_K = 10;

/**
 * A leave-last-out split: for each test participant, their latest interaction (by `last_at`) is held
 * out; everything else is training data.
 */
export interface Split {
  /** Participants x videos training weights: all interactions except the held-out ones. */
  readonly train: Csr;
  /** Test participants and, at the same position, the video held out for each. */
  readonly testUsers: Int32Array;
  readonly testItems: Int32Array;
  /** Participants who could be tested (at least two interactions, latest one recommendable). */
  readonly eligible: number;
}

/**
 * Splits leave-last-out. A participant is eligible with at least two interactions whose latest one is a
 * candidate (a video of the pool: anything else could never be recommended). Ties of `last_at` go to
 * the higher video index, so the split is deterministic. When more than `maxTestUsers` are eligible,
 * a seeded sample of them is tested (and only theirs are held out).
 */
export function leaveLastOut(
  data: Interactions,
  options: { readonly candidates: Uint8Array; readonly maxTestUsers: number; readonly seed: number },
): Split {
  const { users, user, item, time } = data;
  const count = new Int32Array(users);
  const latest = new Int32Array(users).fill(-1);
  for (let q = 0; q < user.length; q++) {
    const u = user[q] as number;
    count[u] = (count[u] as number) + 1;
    const best = latest[u] as number;
    if (
      best < 0 ||
      (time[q] as number) > (time[best] as number) ||
      ((time[q] as number) === (time[best] as number) && (item[q] as number) > (item[best] as number))
    )
      latest[u] = q;
  }
  const eligible: number[] = [];
  for (let u = 0; u < users; u++) {
    const q = latest[u] as number;
    if ((count[u] as number) >= 2 && options.candidates[item[q] as number] === 1) eligible.push(u);
  }
  let tested = eligible;
  if (eligible.length > options.maxTestUsers) {
    const order = shuffledRange(eligible.length, options.seed);
    tested = Array.from(order.subarray(0, options.maxTestUsers), (i) => eligible[i] as number).sort(
      (a, b) => a - b,
    );
  }
  const heldOut = new Uint8Array(user.length);
  const testUsers = Int32Array.from(tested);
  const testItems = Int32Array.from(tested, (u) => {
    const q = latest[u] as number;
    heldOut[q] = 1;
    return item[q] as number;
  });
  const keep = user.length - tested.length;
  const rowOf = new Int32Array(keep);
  const colOf = new Int32Array(keep);
  const weights = new Float32Array(keep);
  let at = 0;
  for (let q = 0; q < user.length; q++) {
    if (heldOut[q] === 1) continue;
    rowOf[at] = user[q] as number;
    colOf[at] = item[q] as number;
    weights[at] = data.weight[q] as number;
    at++;
  }
  return {
    train: csrFromTriplets(users, data.items, rowOf, colOf, weights),
    testUsers,
    testItems,
    eligible: eligible.length,
  };
}

export interface RankingMetrics {
  /** Share of test participants whose held-out video is in their top 10. */
  readonly recall: number;
  /** Mean of 1 / log2(rank + 1) of the held-out video when in the top 10 (one relevant video: IDCG = 1). */
  readonly ndcg: number;
}

/**
 * Recall@K and NDCG@K of ranked lists (one row of K per test participant, -1 padded) against one
 * held-out video each. Zero test participants give NaN.
 */
export function rankingMetrics(ranked: Int32Array, K: number, truth: Int32Array): RankingMetrics {
  const n = truth.length;
  let hits = 0;
  let dcg = 0;
  for (let t = 0; t < n; t++) {
    for (let r = 0; r < K; r++) {
      if (ranked[t * K + r] === truth[t]) {
        hits++;
        dcg += 1 / Math.log2(r + 2);
        break;
      }
    }
  }
  return { recall: hits / n, ndcg: dcg / n };
}

/**
 * The popularity baseline on the same split: videos by the number of training participants who
 * interacted with them (ties to the lower index), each participant's training videos and
 * non-candidates left out.
 */
export function popularityLists(
  train: Csr,
  testUsers: Int32Array,
  candidates: Uint8Array,
  K: number,
): Int32Array {
  const support = new Int32Array(train.cols);
  for (let q = 0; q < train.indices.length; q++)
    support[train.indices[q] as number] = (support[train.indices[q] as number] as number) + 1;
  const order = Array.from({ length: train.cols }, (_, i) => i)
    .filter((i) => candidates[i] === 1)
    .sort((a, b) => (support[b] as number) - (support[a] as number) || a - b);
  const out = new Int32Array(testUsers.length * K).fill(-1);
  const seen = new Uint8Array(train.cols);
  testUsers.forEach((u, t) => {
    const lo = train.indptr[u] as number;
    const hi = train.indptr[u + 1] as number;
    for (let q = lo; q < hi; q++) seen[train.indices[q] as number] = 1;
    let r = 0;
    for (const i of order) {
      if (r >= K) break;
      if (seen[i] === 1) continue;
      out[t * K + r++] = i;
    }
    for (let q = lo; q < hi; q++) seen[train.indices[q] as number] = 0;
  });
  return out;
}

export interface Evaluation {
  readonly recall_at_10: number;
  readonly ndcg_at_10: number;
  readonly baseline_recall_at_10: number;
  readonly baseline_ndcg_at_10: number;
  readonly test_users: number;
}

/**
 * Offline evaluation of a model trained on `split.train`: each test participant's top 10 (training
 * videos and non-candidates left out) against the held-out video, and the popularity baseline on
 * the same split.
 */
export async function evaluate(
  model: AlsModel,
  split: Split,
  candidates: Uint8Array,
  pool: ComputePool,
): Promise<Evaluation> {
  const lists = await topByDot(pool, {
    Q: model.userFactors,
    T: model.itemFactors,
    targets: model.items,
    k: model.factors,
    K: EVAL_K,
    queries: split.testUsers,
    exclude: split.train,
    mask: candidates,
  });
  const ours = rankingMetrics(lists.indices, EVAL_K, split.testItems);
  const base = rankingMetrics(
    popularityLists(split.train, split.testUsers, candidates, EVAL_K),
    EVAL_K,
    split.testItems,
  );
  return {
    recall_at_10: ours.recall,
    ndcg_at_10: ours.ndcg,
    baseline_recall_at_10: base.recall,
    baseline_ndcg_at_10: base.ndcg,
    test_users: split.testUsers.length,
  };
}
