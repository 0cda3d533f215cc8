import type { FailureKind } from "./external-http/client.ts";

/**
 * Where the recommendation side tells what it served and what failed, for recommender health and a
 * running study's monitoring. `monitoring/recorder.ts` answers it; the composition root passes it in,
 * so the recommenders import nothing of monitoring (which reads them).
 */
export interface CallMonitor {
  /** A recommendation page: its recommender's latency and whether nothing was left to show. */
  page(p: { experimentId: string; recommender: string; surface: string; ms: number; empty: boolean }): void;
  /** An external recommender's call failed (it served an empty list). */
  failure(p: {
    experimentId: string;
    recommender: string;
    surface: string;
    kind: FailureKind;
    message: string;
  }): void;
}
