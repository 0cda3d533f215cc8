import {
  ErrorBody,
  RecommenderHealth,
  RecommenderHealthQuery,
  RecommenderKeyParams,
  RecommenderTestRequest,
  RecommenderTestResult,
} from "@feedlab/schemas";
import { route } from "../http/route.ts";
import type { HealthService } from "./health.service.ts";

const error = (description: string) => ({ description, schema: ErrorBody });

/** Recommender health and the "Test" call (api.md: Recommender health). */
export function healthRoutes({ health }: { health: HealthService }) {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/recommenders/{key}/health",
      tag: "recommenders",
      summary: "A recommender's health over the last 24 hours",
      description:
        "calls: pages it served, feed and watch (a built-in's too). failures by the spec's failure table: refused (connection refused, DNS error, connection dropped), timeout, http_5xx, invalid_json, not_a_list, no_valid_ids (every value an invalid UUID), outside_pool (every id outside the pool), blocked_address (the host is, or resolves to, a link-local or cloud metadata address: no connection was made), and other (another non-2xx status, a response over the size limit). empty_results: first pages with nothing left to show (a failure serves one). latency_ms: p50 and p95 of the recommender's answer, within 10% (log-spaced histogram). last_failure: the newest failure's minute and message. Each API process writes its sums every 5 seconds; the process answering writes its own first. `experiment_id` narrows it to one experiment.",
      access: "admin",
      role: "researcher",
      params: RecommenderKeyParams,
      query: RecommenderHealthQuery,
      responses: {
        200: { description: "The recommender's health", schema: RecommenderHealth },
        404: error("No recommender with that key"),
      },
      handler: async (ctx, { params, query }) => {
        ctx.body = await health.health(params.key, query.experiment_id);
      },
    }),
    route({
      method: "post",
      path: "/api/v1/admin/recommenders/{key}/test",
      tag: "recommenders",
      summary: "Try a recommender: one real call with a sample request",
      description:
        "Calls the recommender as the experiment's first participant would (a made-up participant when it has none), on the feed or on the watch page of the pool's first video, asking for 21 ids. Answers what came back (its JSON, or its first 4,096 bytes as text when the body is longer), how many values the path located (`returned`), how many pool videos were kept, and why others were dropped (not a UUID; outside the experiment's pool). It never changes anything and is not counted in the health. With `config`, tries that external_http config instead of the stored one, so a service can be tried before it is registered (the key then need not exist).",
      access: "admin",
      role: "researcher",
      params: RecommenderKeyParams,
      body: RecommenderTestRequest,
      responses: {
        200: { description: "The call's outcome", schema: RecommenderTestResult },
        404: error("No recommender with that key (and no config given)"),
        422: error(
          "unknown_experiment; empty_pool (the watch page needs a video); validation_failed for a bad config",
        ),
      },
      handler: async (ctx, { params, body }) => {
        ctx.body = await health.test(params.key, body);
      },
    }),
  ];
}
