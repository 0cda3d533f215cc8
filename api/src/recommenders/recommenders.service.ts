import type { Logger } from "pino";
import type { ChangeBus } from "../changes/change-bus.ts";
import type { ServiceDeps } from "../deps.ts";
import { experimentIdsWithStatus } from "../experiments/queries/experiments.queries.ts";
import { armAlgorithmsOf } from "../groups/queries/groups.queries.ts";
import type { Metrics } from "../system/metrics.ts";
import { createLearnedModelRecommender } from "./builtins/learned-model.recommender.ts";
import { createPopularityRecommender } from "./builtins/popularity.recommender.ts";
import { createRandomRecommender } from "./builtins/random.recommender.ts";
import { createRecencyRecommender } from "./builtins/recency.recommender.ts";
import { createSimilarityRecommender } from "./builtins/similarity.recommender.ts";
import type { RecommenderRecord } from "./builtins.ts";
import { createCaches } from "./caches/index.ts";
import type { CallMonitor } from "./calls.ts";
import { createDispatcher } from "./dispatcher.ts";
import { type AddressPolicy, createAddressPolicy } from "./external-http/addresses.ts";
import type { ExternalHttpClient, FailureKind } from "./external-http/client.ts";
import { createExternalHttpRecommender } from "./external-http/external-http.recommender.ts";
import { createPoolCache } from "./pool.ts";
import type { Recommender } from "./recommender.ts";
import { createRecommenderRegistry } from "./registry.service.ts";

export interface RecommenderServicesDeps extends ServiceDeps {
  readonly bus: ChangeBus;
  readonly log: Logger;
  readonly metrics: Metrics["recommenders"];
  /** The outbound HTTP client of external_http recommenders (constructed by the composition root). */
  readonly externalHttp: ExternalHttpClient;
  /** Where pages served and external failures are summed for recommender health and monitoring. */
  readonly monitoring?: CallMonitor;
  /** Which addresses external recommenders may name and reach (the client enforces it on calls). */
  readonly addressPolicy?: AddressPolicy;
}

/**
 * Wires the recommendation side: the registry (records), the pool cache and the read models' caches, the five
 * built-ins, the external_http factory, and the dispatcher that serves pages through them all.
 */
export function createRecommenderServices(deps: RecommenderServicesDeps) {
  const { db, bus, log, metrics, externalHttp, monitoring } = deps;
  const addressPolicy = deps.addressPolicy ?? createAddressPolicy();
  const registry = createRecommenderRegistry({ ...deps, addressPolicy });
  const pools = createPoolCache({ db, bus });
  const caches = createCaches({ db, bus });
  const builtins = new Map<string, Recommender>(
    [
      createRandomRecommender(),
      createPopularityRecommender(caches),
      createRecencyRecommender(),
      createSimilarityRecommender(caches),
      createLearnedModelRecommender(caches),
    ].map((r) => [r.key, r]),
  );
  const external = {
    call: (recommender: string, seconds: number) => {
      metrics.externalCalls.inc({ recommender });
      metrics.externalLatency.observe({ recommender }, seconds);
    },
    failure: (
      recommender: string,
      kind: FailureKind,
      context: { experimentId: string; surface: string; message: string },
    ) => {
      metrics.externalFailures.inc({ recommender, kind });
      monitoring?.failure({ recommender, kind, ...context });
    },
  };
  const build = (record: RecommenderRecord) =>
    createExternalHttpRecommender(record, {
      client: externalHttp,
      log: log.child({ component: "external_http" }),
      metrics: external,
    });
  const dispatcher = createDispatcher({
    catalog: registry,
    pools,
    caches,
    builtins,
    build,
    duration: metrics.served,
    monitoring,
  });
  /**
   * Warms the recommenders of every running experiment's groups (their pools' neighbours), one
   * experiment after the other, in the background of a starting server: the first participants'
   * pages find them ready. Resolves with how many pools were warmed.
   */
  async function warmRunning(): Promise<number> {
    const rows = await armAlgorithmsOf(db, await experimentIdsWithStatus(db, "running"));
    let warmed = 0;
    for (const experimentId of new Set(rows.map((r) => r.experiment_id))) {
      const keys = new Set(
        rows
          .filter((r) => r.experiment_id === experimentId)
          .flatMap((r) => [r.algorithm_feed, r.algorithm_watch]),
      );
      const warmers = [...keys].flatMap((k) => builtins.get(k)?.warm ?? []);
      if (warmers.length === 0) continue;
      const pool = await pools.get(experimentId);
      for (const warm of warmers) await warm(pool);
      warmed++;
    }
    return warmed;
  }

  return { registry, pools, caches, dispatcher, build, warmRunning, addressPolicy };
}

export type RecommenderServices = ReturnType<typeof createRecommenderServices>;
