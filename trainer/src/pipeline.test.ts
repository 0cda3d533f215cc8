import { describe, expect, it } from "vitest";
import type { TrainingSource } from "./extract.ts";
import { DEFAULT_TRAINING_CONFIG, runPipeline, type TrainingConfig } from "./pipeline.ts";
import { plantedInteractions } from "./planted.ts";
import { csrFromTriplets } from "./sparse.ts";

/** Planted clusters as a run's training source (no co-views: the factors must find the clusters). */
function plantedSource(): TrainingSource & { itemCluster: Int32Array; userCluster: Int32Array } {
  const data = plantedInteractions({
    users: 300,
    items: 80,
    interactions: 3000,
    clusters: 4,
    inCluster: 0.8,
    seed: 5,
  });
  return {
    userIds: Array.from({ length: data.users }, (_, u) => `u${u}`),
    videoIds: Array.from({ length: data.items }, (_, i) => `v${i}`),
    interactions: data,
    pool: new Uint8Array(data.items).fill(1),
    coViews: csrFromTriplets(
      data.items,
      data.items,
      new Int32Array(0),
      new Int32Array(0),
      new Float32Array(0),
    ),
    itemCluster: data.itemCluster,
    userCluster: data.userCluster,
  };
}

describe("training pipeline", () => {
  const source = plantedSource();
  const config = (workers: number): TrainingConfig => ({
    ...DEFAULT_TRAINING_CONFIG,
    recommendations: 20,
    workers,
    parallelMinInteractions: 0,
  });

  it("relates each video to videos of its own planted cluster", async () => {
    const { neighbours } = await runPipeline(source, config(0), { timings: {} });
    let same = 0;
    let total = 0;
    for (let i = 0; i < 80; i++) {
      const lo = neighbours.indptr[i] as number;
      for (let q = lo; q < Math.min(lo + 10, neighbours.indptr[i + 1] as number); q++) {
        total++;
        if (source.itemCluster[neighbours.indices[q] as number] === source.itemCluster[i]) same++;
      }
    }
    expect(total).toBe(800);
    expect(same / total).toBeGreaterThan(0.9);
  });

  it("gives the same output with two worker threads as in one thread, with a timing for every step", async () => {
    const timings: Record<string, number> = {};
    const one = await runPipeline(source, config(0), { timings: {} });
    const two = await runPipeline(source, config(2), { timings });
    expect(one.workers).toBe(0);
    expect(two.workers).toBe(2);
    expect(Array.from(two.recommendations.indices)).toEqual(Array.from(one.recommendations.indices));
    expect(Array.from(two.recommendations.scores)).toEqual(Array.from(one.recommendations.scores));
    expect(Array.from(two.neighbours.indices)).toEqual(Array.from(one.neighbours.indices));
    expect(two.evaluation).toEqual(one.evaluation);
    expect(Object.keys(timings)).toEqual([
      "split",
      "train_evaluation_model",
      "evaluate",
      "train",
      "recommend",
      "similarity",
    ]);
  });

  it("never recommends a participant's own videos or videos outside the pool", async () => {
    const pool = new Uint8Array(80).fill(1);
    pool[0] = 0;
    const { recommendations } = await runPipeline({ ...source, pool }, config(0), { timings: {} });
    const seen = new Set<string>();
    for (let q = 0; q < source.interactions.user.length; q++)
      seen.add(`${source.interactions.user[q]}:${source.interactions.item[q]}`);
    for (let u = 0; u < 300; u++) {
      for (let r = 0; r < recommendations.K; r++) {
        const i = recommendations.indices[u * recommendations.K + r] as number;
        expect(i).not.toBe(0);
        expect(seen.has(`${u}:${i}`)).toBe(false);
      }
    }
  });
});
