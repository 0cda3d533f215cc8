import type { Projection } from "../../read-model.ts";
import { latencyBucket } from "./response-latency.buckets.ts";
import { eraseResponseLatency } from "./response-latency.erase.ts";
import { responseLatencyMigrations } from "./response-latency.migration.ts";

/** The surface each latency-carrying event reports on. */
const SURFACES = { HOME_FEED: "feed", RECOMMENDATIONS: "related" } as const;

/**
 * Latency parity (api.md, "Data quality and validity"): each HOME_FEED and RECOMMENDATIONS event's
 * `latency_ms` (from asking for the list to its cards shown) counts once in its participant's
 * histogram of the surface. Events without one (older runtimes) and simulated participants' events
 * (api.md, "Simulated participants": dry runs never reach the results) count nowhere.
 */
export const responseLatencyProjection: Projection = {
  name: "response_latency",
  canHandle: ["HOME_FEED", "RECOMMENDATIONS"],
  tables: ["response_latency"],
  migrations: responseLatencyMigrations,
  erase: eraseResponseLatency,
  project: (e) => {
    if ((e.event_type !== "HOME_FEED" && e.event_type !== "RECOMMENDATIONS") || e.simulated === true)
      return [];
    const bucket = latencyBucket(e.payload.latency_ms);
    if (bucket === null) return [];
    return [
      {
        kind: "accumulate",
        table: "response_latency",
        key: { user_id: e.user_id, surface: SURFACES[e.event_type], bucket_ms: bucket },
        init: { experiment_id: e.experiment_id },
        add: { events: 1 },
      },
    ];
  },
};
