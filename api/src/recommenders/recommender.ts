import type { HealthFailure } from "./external-http/failures.ts";
import type { Pool } from "./pool.ts";

export type Surface = "feed" | "watch";

/**
 * One recommendation request, as the dispatcher hands it to any recommender (built-in, external or
 * learned). Recommenders see the same request and answer the same way; the dispatcher does not
 * know which kind it called.
 */
export interface RecommendRequest {
  /** `feed` for GET /feed, `watch` for GET /feed/{id}/related. */
  readonly surface: Surface;
  readonly experimentId: string;
  readonly userId: string;
  /** The participant's session (the random recommender's seed). */
  readonly sessionId: string;
  /** The experiment's pool; every answer is restricted to it. */
  readonly pool: Pool;
  /** Watch page: the current video (UUID and pool index). Null on the feed. */
  readonly current: { readonly id: string; readonly index: number } | null;
  /** How many ids to return at most: the page size plus one (the extra one says whether more exist). */
  readonly limit: number;
  /** How many ids of the ranking to skip (paging). */
  readonly offset: number;
  /**
   * Pool indices to leave out, 1 = leave out: the participant's watched videos (at least 1 s
   * played, or ended) and, on the watch page, the current video.
   */
  readonly excluded: Uint8Array;
  /** Pool indices of the participant's watched videos, most recent first. */
  readonly watched: readonly number[];
  /** The group's per-recommender parameters for this recommender (`recommender_params[key]`). */
  readonly params: Readonly<Record<string, unknown>>;
}

/**
 * The one recommender interface. `recommend` answers video UUIDs, best first: the window
 * [offset, offset + limit) of its ranking of the pool without the excluded videos. It never answers
 * an error for a failure of its own source (an external service down answers `[]`); it throws only
 * for broken infrastructure (the database), which is a real server fault.
 */
export interface Recommender {
  readonly key: string;
  recommend(request: RecommendRequest): Promise<readonly string[]>;
  /**
   * The probability with which the policy puts a video at a given position of its ranking, given
   * `eligible` videos it could rank there (for off-policy evaluation; feed and related items carry
   * it). Absent: a deterministic ranking (1). Null: unknown (an external service's own policy).
   */
  readonly propensity?: (eligible: number) => number | null;
  /** One call that says what came back and why ids were dropped (external sources); never counted. */
  probe?(request: RecommendRequest): Promise<ProbeResult>;
  /**
   * Prepares what pages of this pool will need (neighbours of every video), so that no request
   * computes or reads it on a miss. Idempotent per pool; recommend() starts it too.
   */
  warm?(pool: Pool): Promise<void>;
}

/** One real call's outcome, for the console's "Test" button (api.md: `POST .../test`). */
export interface ProbeResult {
  readonly ok: boolean;
  /** The HTTP status, or null when no answer came. */
  readonly status: number | null;
  readonly latency_ms: number;
  readonly returned: number;
  readonly kept: number;
  readonly dropped: { readonly invalid: number; readonly outside_pool: number };
  /** Why the call gave no usable list: the failure table's kind (api.md's names). */
  readonly failure: HealthFailure | null;
  /** Why it failed, in words (never a header or the URL's query string). */
  readonly message: string | null;
  /** The parsed response, cut to 20 kB of JSON text for display. */
  readonly response: unknown;
  /** The values the call was made with (the body, or the query's fields with GET). */
  readonly request: unknown;
}

/**
 * Pages a ranking given as a chain of orders over pool indices (the first order, then the next one
 * for what the first did not rank, ...): skips excluded and repeated indices, then `offset` items,
 * and returns up to `limit` indices. Work is proportional to the items walked, not to the pool.
 */
export function pageOfChain(
  request: Pick<RecommendRequest, "pool" | "excluded" | "offset" | "limit">,
  orders: readonly Iterable<number>[],
): number[] {
  const { pool, excluded, offset, limit } = request;
  const seen = new Uint8Array(pool.size);
  const out: number[] = [];
  let skipped = 0;
  for (const order of orders) {
    for (const i of order) {
      if (i < 0 || i >= pool.size || seen[i] === 1 || excluded[i] === 1) continue;
      seen[i] = 1;
      if (skipped < offset) {
        skipped++;
        continue;
      }
      out.push(i);
      if (out.length >= limit) return out;
    }
  }
  return out;
}

/** Pool indices to UUIDs. */
export const idsOf = (pool: Pool, indices: readonly number[]): string[] =>
  indices.map((i) => pool.videos[i]?.id).filter((id): id is string => id !== undefined);
