import { randomUUID } from "node:crypto";
import {
  createTrainer,
  DEFAULT_TRAINING_CONFIG,
  type Leadership,
  type Trainer,
  type TrainerOptions,
} from "@feedlab/trainer";
import type { Runtime } from "../main.ts";
import { metadataIndexOf } from "../recommenders/builtins/metadata-similarity.ts";

/**
 * The trainer of a process: scheduled and requested runs, only while `leadership` says this process
 * leads. Its metadata similarity is the similarity built-in's (the pool's TF-IDF index), and a new
 * model is announced on the change bus, so every API process drops the learned rankings it cached.
 * `overrides` lets tests set the clock, the interval or the training config.
 */
export function createAppTrainer(
  rt: Runtime,
  leadership: Pick<Leadership, "isLeader">,
  overrides: Partial<TrainerOptions> = {},
): Trainer {
  return createTrainer({
    db: rt.db,
    logger: rt.log.child({ role: "trainer" }),
    now: () => new Date(),
    newId: randomUUID,
    isLeader: () => leadership.isLeader(),
    intervalMs: rt.config.trainIntervalSeconds * 1000,
    config: DEFAULT_TRAINING_CONFIG,
    metadata: async (experimentId) => {
      const pool = await rt.recommenders.pools.get(experimentId);
      const index = metadataIndexOf(pool);
      return { externalIds: pool.videos.map((v) => v.external_id), neighbours: (i) => index.neighbours(i) };
    },
    onModel: (experimentId) => rt.changes.publish({ type: "model", experiment_id: experimentId }),
    ...overrides,
  });
}

/** Roles `trainer` and `all`: the process's trainer, checking its queue and schedule every 2 s. */
export function startTraining(rt: Runtime, leadership: Leadership): Trainer {
  const trainer = createAppTrainer(rt, leadership);
  trainer.start();
  return trainer;
}
