import type { FailureKind } from "./external-http/client.ts";

/**
 * Where the recommendation side tells what it served and what failed, for recommender health and a
 * running study's monitoring. `monitoring/recorder.ts` answers it; the composition root passes it in,
 * so the recommenders import nothing of monitoring (which reads them).
 */
export interface CallMonitor {
  page(p: PageServed): void;
  failure(p: CallFailed): void;
}

/** A recommendation page: its recommender's latency and whether nothing was left to show. */
export interface PageServed {
  readonly experimentId: string;
  readonly recommender: string;
  readonly surface: string;
  readonly ms: number;
  readonly empty: boolean;
}

/** An external recommender's call failed (it served an empty list). */
export interface CallFailed {
  readonly experimentId: string;
  readonly recommender: string;
  readonly surface: string;
  readonly kind: FailureKind;
  readonly message: string;
}
