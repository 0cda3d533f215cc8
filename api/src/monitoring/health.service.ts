import { randomUUID } from "node:crypto";
import { FEED_DEFAULT_LIMIT } from "@feedlab/schemas";
import type { ServiceDeps } from "../deps.ts";
import { experimentExists } from "../experiments/queries/experiments.queries.ts";
import { notFound, unprocessable, validationFailed } from "../http/errors.ts";
import { firstParticipantOf } from "../participants/queries/users.queries.ts";
import type { RecommenderRecord } from "../recommenders/builtins.ts";
import type { RecommenderCatalog } from "../recommenders/catalog.ts";
import { checkConfig } from "../recommenders/external-http/config.ts";
import { storedHeaders, unmaskHeaders } from "../recommenders/external-http/header-secrets.ts";
import type { Pool } from "../recommenders/pool.ts";
import type { ProbeResult, Recommender, Surface } from "../recommenders/recommender.ts";
import { quantile } from "./latency.ts";
import { callRecords, sumCalls, windowStart } from "./queries.ts";
import type { MonitoringRecorder } from "./recorder.ts";

export interface HealthDeps extends ServiceDeps {
  readonly catalog: RecommenderCatalog;
  readonly instance: (key: string) => Promise<Recommender | undefined>;
  readonly build: (record: RecommenderRecord) => Recommender;
  readonly pools: { get(experimentId: string): Promise<Pool> };
  readonly monitoring: Pick<MonitoringRecorder, "flush">;
}

/**
 * Recommender health (api.md): per recommender, the pages it served over the last 24 hours, its
 * failures by the spec's failure-table kind, empty results and latency; and the "Test" call, one
 * real request with a sample participant that changes nothing and is not counted.
 */
export function createHealthService({ db, now, catalog, instance, build, pools, monitoring }: HealthDeps) {
  async function assertExperiment(id: string) {
    if (!(await experimentExists(db, id)))
      throw unprocessable("unknown_experiment", "No experiment has this id.", { field: "experiment_id" });
  }

  return {
    async health(key: string, experimentId?: string) {
      if (!(await catalog.get(key))) throw notFound("recommender");
      await monitoring.flush();
      const since = windowStart(now());
      const rows = await callRecords(
        db,
        { recommender: key, ...(experimentId ? { experiment_id: experimentId } : {}) },
        since,
      );
      const sums = sumCalls(rows);
      const last = rows.findLast((r) => r.last_failure !== null);
      return {
        key,
        since: since.toISOString(),
        calls: sums.calls,
        failures: sums.failures,
        empty_results: sums.empty_results,
        latency_ms: { p50: quantile(sums.latency, 0.5), p95: quantile(sums.latency, 0.95) },
        last_failure: last ? { at: last.minute, message: last.last_failure } : null,
      };
    },

    /**
     * One real call of recommender `key` (or of an unsaved `config`, to try a service before
     * registering it; its masked header values stand for those stored under `key`) as the experiment's first participant would make it (a made-up participant
     * when it has none), on the feed or on the watch page of the pool's first video.
     */
    async test(
      key: string,
      body: { experiment_id: string; surface: Surface; config?: Record<string, unknown> },
    ): Promise<ProbeResult> {
      await assertExperiment(body.experiment_id);
      let recommender: Recommender | undefined;
      if (body.config !== undefined) {
        // The console's form sends masked header values back: they stand for the stored ones.
        const stored = await catalog.get(key);
        const unmasked = unmaskHeaders(
          body.config.headers,
          stored?.kind === "external_http" ? storedHeaders(stored.config) : {},
        );
        if (!unmasked.ok) throw validationFailed(unmasked.problems);
        const config = "headers" in body.config ? { ...body.config, headers: unmasked.headers } : body.config;
        const checked = checkConfig(config);
        if (!checked.ok) throw validationFailed(checked.problems);
        recommender = build({
          key,
          kind: "external_http",
          label: key,
          description: "",
          category: "external",
          supports_feed: true,
          supports_watch: true,
          config: checked.config as unknown as Record<string, unknown>,
          created_at: null,
          updated_at: null,
        });
      } else {
        recommender = await instance(key);
        if (!recommender) throw notFound("recommender");
      }
      const pool = await pools.get(body.experiment_id);
      const first = pool.videos[0];
      if (body.surface === "watch" && !first)
        throw unprocessable(
          "empty_pool",
          "The experiment has no videos: the watch page needs one to test with.",
          {
            field: "experiment_id",
          },
        );
      const participantId = await firstParticipantOf(db, body.experiment_id);
      const participant = participantId === undefined ? undefined : { id: participantId };
      const request = {
        surface: body.surface,
        experimentId: body.experiment_id,
        userId: participant?.id ?? randomUUID(),
        sessionId: randomUUID(),
        pool,
        current: body.surface === "watch" && first ? { id: first.id, index: 0 } : null,
        limit: FEED_DEFAULT_LIMIT + 1,
        offset: 0,
        excluded: new Uint8Array(pool.size),
        watched: [],
        params: {},
      };
      if (recommender.probe) return recommender.probe(request);
      const started = performance.now();
      const ids = await recommender.recommend(request);
      const kept = ids.filter((id) => pool.indexById.has(id)).length;
      return {
        ok: true,
        status: null,
        latency_ms: Math.round(performance.now() - started),
        returned: ids.length,
        kept,
        dropped: { invalid: 0, outside_pool: ids.length - kept },
        failure: null,
        message: null,
        response: ids,
        request: {
          user_id: request.userId,
          experiment_id: request.experimentId,
          limit: request.limit,
          offset: request.offset,
          current_video_id: request.current?.id ?? null,
        },
      };
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
