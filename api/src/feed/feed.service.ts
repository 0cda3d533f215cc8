import type { Video } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import type { ChangeBus } from "../changes/change-bus.ts";
import { json } from "../db/present.ts";
import { experimentRow } from "../experiments/queries/experiments.queries.ts";
import { armRow } from "../groups/queries/groups.queries.ts";
import type { Dispatcher, FeedPageJson } from "../recommenders/dispatcher.ts";
import type { Surface } from "../recommenders/recommender.ts";
import type { SessionsService } from "../sessions/sessions.service.ts";
import { TtlCache } from "../system/ttl-cache.ts";

export interface FeedRequest {
  /** The participant: videos they watched (at least 1 s, or ended) are left out. */
  readonly userId: string;
  readonly experimentId: string;
  readonly groupId: string;
  /** The participant's session (checked to be theirs by the route; seeds the random recommender). */
  readonly sessionId: string;
  readonly limit: number;
  readonly offset: number;
  /** Set for the watch page: the current video (a pool member), left out of the list. */
  readonly currentVideoId?: string;
}

/** A group's recommendation configuration, as the feed needs it. */
interface GroupAlgorithms {
  readonly feed: string;
  readonly watch: string;
  readonly params: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

export interface FeedServiceDeps {
  readonly db: Db;
  readonly dispatcher: Dispatcher;
  readonly sessions: SessionsService;
  readonly bus: ChangeBus;
  /**
   * How long a group's algorithm_config is remembered (default 1 s). A change clears it at once on
   * every process through the change bus; this is the backstop.
   */
  readonly groupCacheMs?: number;
  /**
   * How long an experiment's `min_response_ms` is remembered (default 1 s). `forgetTimings` drops it
   * at once in the process that changed it; other processes see the change within this time.
   */
  readonly timingCacheMs?: number;
  /** Waits `ms` (a timer by default; tests may pass their own). */
  readonly sleep?: (ms: number) => Promise<void>;
}

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The participant's pages: GET /feed uses the group's algorithm_config.feed, GET /feed/{id}/related
 * its algorithm_config.watch with the current video set. The dispatcher does the rest (pool,
 * exclusion, limit plus one, page shape). Hot lookups are cached in memory: the owner of a session
 * (never changes), the group's configuration (1 s, dropped on change), the experiment's
 * `min_response_ms` (1 s, dropped on change) and the pool (dropped on change).
 */
export function createFeedService({
  db,
  dispatcher,
  sessions,
  bus,
  groupCacheMs = 1000,
  timingCacheMs = 1000,
  sleep = timer,
}: FeedServiceDeps) {
  const owners = new TtlCache<string>({ ttlMs: 10 * 60_000, max: 200_000 });
  const groups = new TtlCache<GroupAlgorithms>({ ttlMs: groupCacheMs, max: 100_000 });
  const minResponse = new TtlCache<number>({ ttlMs: timingCacheMs, max: 10_000 });

  bus.subscribe((change) => {
    if (change.type === "group") groups.delete(change.group_id);
    else if (change.type === "resync") {
      groups.clear();
      minResponse.clear();
    }
  });

  /** The experiment's `min_response_ms`, 0 when unset. */
  async function minResponseMs(experimentId: string): Promise<number> {
    return (await minResponse.fetch(experimentId, async () => {
      const row = await experimentRow<{ min_response_ms: number | string | null }>(
        db,
        experimentId,
        "min_response_ms",
      );
      return Number(row?.min_response_ms ?? 0);
    })) as number;
  }

  async function algorithmsOf(groupId: string): Promise<GroupAlgorithms> {
    return (await groups.fetch(groupId, () => readAlgorithms(groupId))) as GroupAlgorithms;
  }

  async function readAlgorithms(groupId: string): Promise<GroupAlgorithms> {
    const row = await armRow<{
      algorithm_feed: string;
      algorithm_watch: string;
      recommender_params: unknown;
    }>(db, groupId, "algorithm_feed", "algorithm_watch", "recommender_params");
    // A participant's group cannot be deleted while they exist (users.group_id is RESTRICT).
    return {
      feed: row?.algorithm_feed ?? "",
      watch: row?.algorithm_watch ?? "",
      params: json(row?.recommender_params, {}),
    };
  }

  return {
    /** The session must be the participant's own: unknown -> 404, another participant's -> 403. */
    async checkSession(sessionId: string, userId: string): Promise<void> {
      if (owners.get(sessionId) === userId) return;
      await sessions.owned(sessionId, userId);
      owners.set(sessionId, userId);
    },

    /** A pool member, or 404: participants see only their experiment's videos. */
    poolVideo(experimentId: string, videoId: string): Promise<Video> {
      return dispatcher.poolVideo(experimentId, videoId);
    },

    /**
     * Latency parity (api.md, "Data quality and validity"): waits until `min_response_ms` of the
     * experiment has passed since `startedAt` (a `performance.now()` reading taken when the request
     * reached the route), so every arm's answer takes at least that long. A timer, holding no
     * database connection; nothing to wait when unset or already past.
     */
    async pad(experimentId: string, startedAt: number): Promise<void> {
      const min = await minResponseMs(experimentId);
      const left = startedAt + min - performance.now();
      if (left > 0) await sleep(Math.ceil(left));
    },

    /** Forgets the experiments' `min_response_ms` (after a change of an experiment in this process). */
    forgetTimings(): void {
      minResponse.clear();
    },

    async page(req: FeedRequest): Promise<FeedPageJson> {
      const surface: Surface = req.currentVideoId ? "watch" : "feed";
      const group = await algorithmsOf(req.groupId);
      const key = group[surface];
      return dispatcher.page({
        surface,
        experimentId: req.experimentId,
        userId: req.userId,
        sessionId: req.sessionId,
        recommender: key,
        params: group.params[key] ?? {},
        currentVideoId: req.currentVideoId?.toLowerCase() ?? null,
        limit: req.limit,
        offset: req.offset,
      });
    },
  };
}

export type FeedService = ReturnType<typeof createFeedService>;
