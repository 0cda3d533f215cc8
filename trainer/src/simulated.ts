import type { Knex } from "knex";
import type { Logger } from "pino";
import { extractTrainingData } from "./extract.ts";
import { DEFAULT_TRAINING_CONFIG, runPipeline, type TrainingConfig } from "./pipeline.ts";
import { writeRecommendations } from "./runner.ts";

/**
 * The simulated participants' model: the default pipeline with fewer factors and a lighter penalty,
 * sized for a dry run's tens of participants with a few visits each (64 factors learn little from a
 * few hundred interactions), trained in the calling thread.
 */
const SIMULATED_TRAINING_CONFIG: TrainingConfig = Object.freeze({
  ...DEFAULT_TRAINING_CONFIG,
  als: Object.freeze({ ...DEFAULT_TRAINING_CONFIG.als, factors: 16, regularization: 2 }),
  workers: 0,
});

/** What a simulated model was trained on and wrote. */
export interface SimulatedModel {
  readonly users: number;
  readonly interactions: number;
  readonly recommendations: number;
}

/**
 * Trains the learned model of an experiment's simulated participants (issue 36) on their interactions
 * alone, and gives its rankings to them alone: their `recommendation_cache` rows are replaced, and
 * nothing of the real participants' model (their rows, the item similarity, the model runs the console
 * lists) is touched. So a dry run shows the loop from events to training to recommendations without
 * simulated data ever reaching a real participant. Real participants' co-views still shape it.
 */
export async function trainSimulatedModel(
  deps: {
    readonly db: Knex;
    readonly logger: Logger;
    readonly config?: TrainingConfig;
    readonly now: () => Date;
  },
  experimentId: string,
): Promise<SimulatedModel> {
  const source = await extractTrainingData(deps.db, experimentId, { simulated: true });
  const interactions = source.interactions.user.length;
  if (interactions === 0 || !source.pool.includes(1)) return { users: 0, interactions, recommendations: 0 };
  const result = await runPipeline(source, deps.config ?? SIMULATED_TRAINING_CONFIG, {
    logger: deps.logger,
    timings: {},
  });
  const recommendations = await deps.db.transaction((trx) =>
    writeRecommendations(trx, { experimentId, runId: null, simulated: true }, source, result, deps.now()),
  );
  return { users: source.interactions.users, interactions, recommendations };
}
