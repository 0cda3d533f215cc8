import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

interface ProjectionProgress {
  /** Records in the log not yet applied, from the log head and the stored checkpoints. */
  lag(): Promise<number>;
  /** This process's projector counters. */
  stats(): { applied: number; deadLettered: number };
}

/** What the process's metrics read from the features they count (given by the composition root). */
export interface MetricSources {
  /** Parquet exports whose worker is running in this process (events/parquet.ts `runningExports`). */
  readonly runningExports: () => number;
}

/** Prometheus metrics of one process. */
export function createMetrics({ runningExports }: MetricSources) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "feedlab_" });
  const httpRequests = new Counter({
    name: "feedlab_http_requests_total",
    help: "HTTP requests by method, route template and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: "feedlab_http_request_duration_seconds",
    help: "HTTP request duration by method and route template",
    labelNames: ["method", "route"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const events = {
    accepted: new Counter({
      name: "feedlab_events_accepted_total",
      help: "Events accepted by intake, by type",
      labelNames: ["type"] as const,
      registers: [registry],
    }),
    rejected: new Counter({
      name: "feedlab_events_rejected_total",
      help: "Events rejected by intake, by rejection code",
      labelNames: ["code"] as const,
      registers: [registry],
    }),
  };
  const recommenders = {
    /** Recommendation requests served, by recommender key and page. */
    served: new Histogram({
      name: "feedlab_recommendation_duration_seconds",
      help: "Time to answer a feed or related page, by recommender key and surface (feed, watch)",
      labelNames: ["recommender", "surface"] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    externalCalls: new Counter({
      name: "feedlab_recommender_external_calls_total",
      help: "Calls to external_http recommenders, by recommender key",
      labelNames: ["recommender"] as const,
      registers: [registry],
    }),
    externalLatency: new Histogram({
      name: "feedlab_recommender_external_call_duration_seconds",
      help: "Duration of calls to external_http recommenders (failures included), by recommender key",
      labelNames: ["recommender"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 4, 5, 7.5, 10, 30],
      registers: [registry],
    }),
    externalFailures: new Counter({
      name: "feedlab_recommender_external_failures_total",
      help: "Failed external_http recommender calls (each served an empty list), by recommender key and kind",
      labelNames: ["recommender", "kind"] as const,
      registers: [registry],
    }),
  };
  new Gauge({
    name: "feedlab_parquet_exports_running",
    help: "Parquet exports in progress in this process (each in a worker thread with its own heap)",
    registers: [registry],
    collect() {
      this.set(runningExports());
    },
  });
  return {
    registry,
    httpRequests,
    httpDuration,
    events,
    recommenders,
    /** Exports the projections' progress: lag in records, and this process's counters. */
    watchProjector(projector: ProjectionProgress) {
      new Gauge({
        name: "feedlab_projector_lag_records",
        help: "Records in the event log not yet applied by the projector (any process)",
        registers: [registry],
        async collect() {
          this.set(await projector.lag());
        },
      });
      new Gauge({
        name: "feedlab_projector_applied_total",
        help: "Events applied by this process's projector since start",
        registers: [registry],
        collect() {
          this.set(projector.stats().applied);
        },
      });
      new Gauge({
        name: "feedlab_projector_dead_letters_total",
        help: "Records sent to dead letters by this process's projector since start",
        registers: [registry],
        collect() {
          this.set(projector.stats().deadLettered);
        },
      });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
