import type { Logger } from "pino";
import type { ServiceDeps } from "../deps.ts";
import type { Metrics } from "../system/metrics.ts";
import { createLearnedModelRecommender } from "./builtins/learned-model.recommender.ts";
import { createPopularityRecommender } from "./builtins/popularity.recommender.ts";
import { createRandomRecommender } from "./builtins/random.recommender.ts";
import { createRecencyRecommender } from "./builtins/recency.recommender.ts";
import { createSimilarityRecommender } from "./builtins/similarity.recommender.ts";
import type { ChangeBus } from "./changes.ts";
import { createDispatcher } from "./dispatcher.ts";
import type { ExternalHttpClient } from "./external-http/client.ts";
import { createExternalHttpRecommender } from "./external-http/external-http.recommender.ts";
import { createPoolCache } from "./pool.ts";
import { createReadModels } from "./read-models.ts";
import type { Recommender } from "./recommender.ts";
import { createRecommenderRegistry } from "./registry.service.ts";

export interface RecommenderServicesDeps extends ServiceDeps {
  readonly bus: ChangeBus;
  readonly log: Logger;
  readonly metrics: Metrics["recommenders"];
  /** The outbound HTTP client of external_http recommenders (constructed by the composition root). */
  readonly externalHttp: ExternalHttpClient;
}

/**
 * Wires the recommendation side: the registry (records), the pool cache and read models, the five
 * built-ins, the external_http factory, and the dispatcher that serves pages through them all.
 */
export function createRecommenderServices(deps: RecommenderServicesDeps) {
  const { db, bus, log, metrics, externalHttp } = deps;
  const registry = createRecommenderRegistry(deps);
  const pools = createPoolCache({ db, bus });
  const readModels = createReadModels({ db, bus });
  const builtins = new Map<string, Recommender>(
    [
      createRandomRecommender(),
      createPopularityRecommender(readModels),
      createRecencyRecommender(),
      createSimilarityRecommender(readModels),
      createLearnedModelRecommender(readModels),
    ].map((r) => [r.key, r]),
  );
  const external = {
    call: (recommender: string, seconds: number) => {
      metrics.externalCalls.inc({ recommender });
      metrics.externalLatency.observe({ recommender }, seconds);
    },
    failure: (recommender: string, kind: string) => metrics.externalFailures.inc({ recommender, kind }),
  };
  const dispatcher = createDispatcher({
    catalog: registry,
    pools,
    readModels,
    builtins,
    build: (record) =>
      createExternalHttpRecommender(record, {
        client: externalHttp,
        log: log.child({ component: "external_http" }),
        metrics: external,
      }),
    duration: metrics.served,
  });
  return { registry, pools, readModels, dispatcher };
}

export type RecommenderServices = ReturnType<typeof createRecommenderServices>;
