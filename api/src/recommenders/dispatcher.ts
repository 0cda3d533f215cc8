import type { FeedPage, Video } from "@feedlab/schemas";
import type { Histogram } from "prom-client";
import { HttpError, notFound } from "../http/errors.ts";
import type { RecommenderRecord } from "./builtins.ts";
import type { Caches } from "./caches/index.ts";
import type { CallMonitor } from "./calls.ts";
import type { RecommenderCatalog } from "./catalog.ts";
import { type Pool, type PoolCache, videoJsonOpen } from "./pool.ts";
import type { Recommender, Surface } from "./recommender.ts";

/** One page request, after the route checked the participant and their session. */
export interface PageRequest {
  readonly surface: Surface;
  readonly experimentId: string;
  readonly userId: string;
  readonly sessionId: string;
  /** The key the group's algorithm_config names for this surface. */
  readonly recommender: string;
  /** The group's recommender_params for that key. */
  readonly params: Readonly<Record<string, unknown>>;
  /** Watch page: the current video (a pool member); null on the feed. */
  readonly currentVideoId: string | null;
  /** Page size. */
  readonly limit: number;
  readonly offset: number;
}

export interface DispatcherDeps {
  readonly catalog: RecommenderCatalog;
  readonly pools: PoolCache;
  readonly caches: Caches;
  /** The five built-ins by key. */
  readonly builtins: ReadonlyMap<string, Recommender>;
  /** Builds the instance of a registered record (external_http). */
  readonly build: (record: RecommenderRecord) => Recommender;
  readonly duration?: Histogram<"recommender" | "surface">;
  /** Told of every page: its recommender's latency and whether nothing was left to show. */
  readonly monitoring?: Pick<CallMonitor, "page">;
}

/** 503 for a group whose recommender was deleted (spec: Errors, "a removed recommender"). */
const recommenderUnavailable = (key: string, surface: Surface) =>
  new HttpError(
    503,
    "recommender_unavailable",
    `The recommender "${key}" of this arm's ${surface} page no longer exists. An admin must change the arm's algorithm.`,
    { key, page: surface },
  );

/**
 * The dispatcher: serves a page with whatever recommender the group names, through the one
 * Recommender interface; it cannot tell built-in, external and learned sources apart.
 *
 * It asks for the page size plus one (the extra item only says whether more exist), restricts the
 * answer to the experiment's pool, leaves out the participant's watched videos (`caches.watched`:
 * never older than the projections) and the current video, drops repeats, and answers api.md's page
 * shape as JSON text (`pageJson`). Instances of registered recommenders are rebuilt when their record
 * changes.
 */
export function createDispatcher(deps: DispatcherDeps) {
  const { catalog, pools, caches, builtins, build, duration, monitoring } = deps;
  const instances = new Map<string, { record: RecommenderRecord; recommender: Recommender }>();

  async function instance(key: string): Promise<Recommender | undefined> {
    const record = await catalog.get(key);
    if (!record) {
      instances.delete(key);
      return undefined;
    }
    if (record.kind === "builtin") return builtins.get(key);
    const cached = instances.get(key);
    if (cached?.record === record) return cached.recommender;
    const recommender = build(record);
    instances.set(key, { record, recommender });
    return recommender;
  }

  return {
    instance,

    /** A pool member by UUID, or 404: participants see only their experiment's videos. */
    async poolVideo(experimentId: string, videoId: string): Promise<Video> {
      const pool = await pools.get(experimentId);
      const i = pool.indexById.get(videoId.toLowerCase());
      const video = i === undefined ? undefined : pool.videos[i];
      if (!video) throw notFound("video");
      return video;
    },

    async page(req: PageRequest): Promise<FeedPageJson> {
      const started = performance.now();
      const recommender = await instance(req.recommender);
      if (!recommender) throw recommenderUnavailable(req.recommender, req.surface);
      const pool = await pools.get(req.experimentId);
      const currentIndex = req.currentVideoId === null ? undefined : pool.indexById.get(req.currentVideoId);
      if (req.currentVideoId !== null && currentIndex === undefined) throw notFound("video");
      const watched = await caches.watched(req.userId, pool);
      const excluded = new Uint8Array(pool.size);
      let eligible = pool.size;
      const exclude = (i: number) => {
        if (excluded[i] === 1) return;
        excluded[i] = 1;
        eligible--;
      };
      for (const i of watched) exclude(i);
      if (currentIndex !== undefined) exclude(currentIndex);

      const asked = performance.now();
      const ids = await recommender.recommend({
        surface: req.surface,
        experimentId: req.experimentId,
        userId: req.userId,
        sessionId: req.sessionId,
        pool,
        current:
          req.currentVideoId !== null && currentIndex !== undefined
            ? { id: req.currentVideoId, index: currentIndex }
            : null,
        limit: req.limit + 1,
        offset: req.offset,
        excluded,
        watched,
        params: req.params,
      });

      // Whatever the source: pool members only, no watched or current video, no repeats, ranking order.
      const items: number[] = [];
      const propensity = recommender.propensity ? recommender.propensity(eligible) : 1;
      const taken = new Uint8Array(pool.size);
      for (const id of ids) {
        const i = pool.indexById.get(id);
        if (i === undefined || excluded[i] === 1 || taken[i] === 1) continue;
        taken[i] = 1;
        items.push(i);
        if (items.length > req.limit) break;
      }
      const hasMore = items.length > req.limit;
      monitoring?.page({
        experimentId: req.experimentId,
        recommender: req.recommender,
        surface: req.surface,
        ms: performance.now() - asked,
        // A later page that runs out is the end of the list, not an empty result.
        empty: items.length === 0 && req.offset === 0,
      });
      duration?.observe(
        { recommender: req.recommender, surface: req.surface },
        (performance.now() - started) / 1000,
      );
      return pageJson(pool, hasMore ? items.slice(0, req.limit) : items, propensity, {
        has_more: hasMore,
        next_offset: hasMore ? req.offset + req.limit : null,
        recommender: req.recommender,
      });
    },
  };
}

/** A page's JSON text (api.md's FeedPage), as the dispatcher answers it. */
export type FeedPageJson = string & { readonly __feedPage: true };

/**
 * The JSON of a FeedPage whose items are the pool videos at `indices`, each with `propensity`, and
 * the page's other fields: `JSON.stringify` of that object, made of each video's JSON (encoded once
 * per pool) instead of encoding every video on every request.
 */
export function pageJson(
  pool: Pool,
  indices: readonly number[],
  propensity: number | null,
  rest: Omit<FeedPage, "items">,
): FeedPageJson {
  const tail = `"propensity":${JSON.stringify(propensity)}}`;
  const items = indices.map((i) => {
    const open = videoJsonOpen(pool, i);
    return open === "{" ? `{${tail}` : `${open},${tail}`;
  });
  return `{"items":[${items.join(",")}],${JSON.stringify(rest).slice(1)}` as FeedPageJson;
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
