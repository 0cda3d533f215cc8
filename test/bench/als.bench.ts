// `node test/bench/run.ts als`: the learned model's training at scale, in this process, without a
// database: 1,000,000 synthetic interactions of 50,000 participants with 20,000 videos (planted
// clusters: each participant mostly watches one cluster's videos, Zipf-like popularity inside and
// across clusters), implicit ALS with 64 factors and 15 iterations on every core (worker threads).
// Goal (issue "The learned model"): training under 20 s and under 1.5 GB, with recall@10 well above
// the popularity baseline. Then what a run does besides: the same training on the leave-last-out
// training part and its evaluation (10,000 sampled participants), each participant's top 100, and
// item similarity (no co-views or metadata here: factors only).
// BENCH_USERS, BENCH_VIDEOS, BENCH_INTERACTIONS, BENCH_CLUSTERS, BENCH_WORKERS, BENCH_FACTORS,
// BENCH_ITERATIONS, BENCH_CG_STEPS override the sizes; BENCH_SIMD=0 uses the TypeScript kernels;
// BENCH_FULL=0 stops after the evaluation.

import {
  createComputePool,
  csrFromTriplets,
  DEFAULT_ALS_CONFIG,
  DEFAULT_SIMILARITY_CONFIG,
  defaultWorkers,
  evaluate,
  itemSimilarity,
  leaveLastOut,
  plantedInteractions,
  topByDot,
  train,
  weightMatrix,
} from "@feedlab/trainer";
import { createKernelMemory, instantiateKernels } from "@feedlab/trainer/parallel/simd.ts";
import type { Csr } from "@feedlab/trainer/sparse.ts";

export const name = "als";
export const description =
  "Implicit ALS on 1,000,000 interactions (50,000 participants, 20,000 videos, planted clusters), 64 factors, 15 iterations: seconds, peak memory, recall@10 and NDCG@10 against popularity (goal < 20 s, < 1.5 GB)";

const env = (key: string, fallback: number) => Number(process.env[key] ?? fallback);

/**
 * The training's floor: the multiply-adds its solver cannot avoid, in the same WebAssembly SIMD
 * kernels, with nothing else. Per half-iteration and row (participant, then video): the residual and
 * each conjugate-gradient step is one k x k product (matvec) and one pass over the row's interactions
 * (accum: a dot product and an update per interaction). Run on one thread over the same rows and
 * interactions, without the recurrences, the Gram matrices, the hand-over to worker threads or their
 * waits, and divided by the worker count (a perfect split of the work). Answers milliseconds.
 */
function kernelFloorMs(
  byUser: Csr,
  byItem: Csr,
  k: number,
  cgSteps: number,
  iterations: number,
  workers: number,
) {
  const f32 = 4;
  const rowsMax = Math.max(byUser.rows, byItem.rows);
  const nnz = byUser.indices.length;
  // Layout: factors (rowsMax x k), interactions' indices and confidences, G, two k-vectors.
  const bytes = (rowsMax * k + 2 * nnz + k * k + 2 * k) * f32;
  const memory = createKernelMemory(Math.ceil(bytes / 65_536) + 1);
  const K = instantiateKernels(memory);
  const factors = new Float32Array(memory.buffer, 0, rowsMax * k);
  for (let i = 0; i < factors.length; i++) factors[i] = ((i * 2_654_435_761) % 1000) / 10_000;
  const indices = new Int32Array(memory.buffer, factors.byteLength, nnz);
  const conf = new Float32Array(memory.buffer, indices.byteOffset + indices.byteLength, nnz);
  conf.fill(1.5);
  const G = new Float32Array(memory.buffer, conf.byteOffset + conf.byteLength, k * k);
  G.fill(0.001);
  const v = new Float32Array(memory.buffer, G.byteOffset + G.byteLength, k).fill(0.5);
  const out = new Float32Array(memory.buffer, v.byteOffset + v.byteLength, k);
  const half = (m: Csr) => {
    indices.set(m.indices);
    for (let row = 0; row < m.rows; row++) {
      const lo = m.indptr[row] as number;
      const hi = m.indptr[row + 1] as number;
      if (lo === hi) continue;
      for (let step = 0; step <= cgSteps; step++) {
        K.matvec(G.byteOffset, v.byteOffset, out.byteOffset, k);
        K.accum(
          0,
          indices.byteOffset,
          conf.byteOffset,
          lo,
          hi,
          v.byteOffset,
          out.byteOffset,
          k,
          step === 0 ? 1 : 0,
        );
      }
    }
  };
  const t = performance.now();
  for (let i = 0; i < iterations; i++) {
    half(byUser);
    half(byItem);
  }
  return (performance.now() - t) / workers;
}

export async function run(): Promise<Record<string, number | string>> {
  const users = env("BENCH_USERS", 50_000);
  const items = env("BENCH_VIDEOS", 20_000);
  const interactions = env("BENCH_INTERACTIONS", 1_000_000);
  const workers = env("BENCH_WORKERS", defaultWorkers());
  const config = {
    ...DEFAULT_ALS_CONFIG,
    factors: env("BENCH_FACTORS", 64),
    iterations: env("BENCH_ITERATIONS", 15),
    cgSteps: env("BENCH_CG_STEPS", DEFAULT_ALS_CONFIG.cgSteps),
  };
  const full = process.env.BENCH_FULL !== "0";
  const rssBefore = process.memoryUsage().rss;
  const seconds = (ms: number) => Math.round(ms / 10) / 100;

  let t = performance.now();
  const data = plantedInteractions({
    users,
    items,
    interactions,
    clusters: env("BENCH_CLUSTERS", 50),
    inCluster: 0.8,
    seed: 2026,
  });
  const generateMs = performance.now() - t;
  const candidates = new Uint8Array(items).fill(1);
  t = performance.now();
  const split = leaveLastOut(data, { candidates, maxTestUsers: 10_000, seed: config.seed });
  const splitMs = performance.now() - t;

  const pool = createComputePool(workers, { simd: process.env.BENCH_SIMD !== "0" });
  try {
    // The headline: ALS on all interactions.
    const all = weightMatrix(data);
    t = performance.now();
    const cpu = process.cpuUsage();
    const model = await train(all, config, { pool });
    const trainMs = performance.now() - t;
    const used = process.cpuUsage(cpu);
    const iterationMs = Object.entries(model.timings)
      .filter(([k]) => k.startsWith("als.iteration."))
      .map(([, ms]) => ms);
    // Offline evaluation: the same training on the leave-last-out training part, then recall and NDCG.
    t = performance.now();
    const heldOut = await train(split.train, config, { pool });
    const heldOutMs = performance.now() - t;
    t = performance.now();
    const result = await evaluate(heldOut, split, candidates, pool);
    const evaluateMs = performance.now() - t;
    const figures: Record<string, number | string> = {
      participants: users,
      videos: items,
      interactions: data.user.length,
      "factors x iterations": `${config.factors} x ${config.iterations}`,
      "worker threads": `${workers}${pool.simd ? " (WebAssembly SIMD kernels)" : " (TypeScript kernels)"}`,
      "generate data (s)": seconds(generateMs),
      "train (s)": seconds(trainMs),
      "train, CPU time of all threads (s)": seconds((used.user + used.system) / 1000),
      "per iteration (s), mean": seconds(iterationMs.reduce((a, b) => a + b, 0) / iterationMs.length),
      "per iteration (s), min / max": `${seconds(Math.min(...iterationMs))} / ${seconds(Math.max(...iterationMs))}`,
      "leave-last-out split (s)": seconds(splitMs),
      "train the held-out model (s)": seconds(heldOutMs),
      [`evaluate ${split.testUsers.length.toLocaleString("en")} participants (s)`]: seconds(evaluateMs),
      "recall@10": result.recall_at_10.toFixed(4),
      "recall@10, popularity": result.baseline_recall_at_10.toFixed(4),
      "NDCG@10": result.ndcg_at_10.toFixed(4),
      "NDCG@10, popularity": result.baseline_ndcg_at_10.toFixed(4),
    };
    if (full) {
      t = performance.now();
      await topByDot(pool, {
        Q: model.userFactors,
        T: model.itemFactors,
        targets: items,
        k: config.factors,
        K: 100,
        queries: Int32Array.from({ length: users }, (_, u) => u),
        exclude: all,
        mask: candidates,
      });
      figures["top 100 for every participant (s)"] = seconds(performance.now() - t);
      t = performance.now();
      const support = new Int32Array(items);
      for (const i of all.indices) support[i] = (support[i] as number) + 1;
      const noCoViews = csrFromTriplets(
        items,
        items,
        new Int32Array(0),
        new Int32Array(0),
        new Float32Array(0),
      );
      await itemSimilarity(
        {
          itemFactors: model.itemFactors,
          items,
          k: config.factors,
          support,
          coViews: noCoViews,
          mask: candidates,
        },
        DEFAULT_SIMILARITY_CONFIG,
        pool,
      );
      figures["item similarity, 50 per video (s)"] = seconds(performance.now() - t);
    }
    // Last, after the peak is read: its memory (about 20 MB) is not the training's.
    const peakRss = process.resourceUsage().maxRSS;
    const byItem = csrFromTriplets(data.items, data.users, data.item, data.user, data.weight);
    const floorMs = kernelFloorMs(all, byItem, config.factors, config.cgSteps, config.iterations, workers);
    figures["train floor: its kernels' multiply-adds alone, split over the workers (s)"] = seconds(floorMs);
    figures["train / floor"] = (trainMs / floorMs).toFixed(2);
    figures["RSS before (MB)"] = Math.round(rssBefore / 2 ** 20);
    figures["peak RSS (MB)"] = Math.round(peakRss / 1024);
    return figures;
  } finally {
    await pool.close();
  }
}
