import type { Db } from "@feedlab/sql";
import {
  createTrainer,
  DEFAULT_TRAINING_CONFIG,
  type Leadership,
  type Trainer,
  type TrainerOptions,
} from "@feedlab/trainer";
import type { Logger } from "pino";
import type { ChangeBus } from "../changes/change-bus.ts";
import type { Config } from "../config.ts";
import type { ServiceDeps } from "../deps.ts";

/** What a trainer needs of its process: the store, the log, the config and the change bus. */
export interface TrainerHost {
  readonly db: Db;
  readonly log: Logger;
  /** The process's clock and id generator. */
  readonly deps: Pick<ServiceDeps, "now" | "newId">;
  readonly config: Pick<Config, "trainIntervalSeconds">;
  readonly changes: Pick<ChangeBus, "publish">;
}

/**
 * The trainer of a process: scheduled and requested runs, only while `leadership` says this process
 * leads. A new model is announced on the change bus, so every API process drops the learned
 * rankings it cached.
 * `overrides` lets tests set the clock, the interval or the training config.
 */
export function createAppTrainer(
  rt: TrainerHost,
  leadership: Pick<Leadership, "isLeader">,
  overrides: Partial<TrainerOptions> = {},
): Trainer {
  return createTrainer({
    db: rt.db,
    logger: rt.log.child({ role: "trainer" }),
    now: rt.deps.now,
    newId: rt.deps.newId,
    isLeader: () => leadership.isLeader(),
    intervalMs: rt.config.trainIntervalSeconds * 1000,
    config: DEFAULT_TRAINING_CONFIG,
    onModel: (experimentId) => rt.changes.publish({ type: "model", experiment_id: experimentId }),
    ...overrides,
  });
}

/** Roles `trainer` and `all`: the process's trainer, checking its queue and schedule every 2 s. */
export function startTraining(rt: TrainerHost, leadership: Leadership): Trainer {
  const trainer = createAppTrainer(rt, leadership);
  trainer.start();
  return trainer;
}
