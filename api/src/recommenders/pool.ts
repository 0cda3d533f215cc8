import { createHash } from "node:crypto";
import type { Video } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import type { ChangeBus } from "../changes/change-bus.ts";
import { poolVideosJson } from "../videos/queries/videos.queries.ts";
import { presentVideo, type VideoRow } from "../videos/videos.service.ts";

/**
 * An experiment's video pool held in memory: the presented videos, indexed by UUID and external id,
 * with the orders several recommenders start from. Recommenders work on pool indices (0..size-1).
 * A Pool is immutable; a change of the pool or of a video gives a new Pool (and a new `version`),
 * so caches derived from one (popularity order, similarity index) key on it.
 */
export interface Pool {
  readonly experimentId: string;
  /** Unique per load in this process. */
  readonly version: number;
  readonly size: number;
  /** Presented videos; the index is the pool index. */
  readonly videos: readonly Video[];
  readonly indexById: ReadonlyMap<string, number>;
  readonly indexByExternalId: ReadonlyMap<string, number>;
  /** Newest first: published_at desc (unknown last), then created_at desc, then id. */
  readonly recency: Int32Array;
  /** By UUID: the base order the random recommender shuffles (independent of pool positions). */
  readonly byId: Int32Array;
}

let versions = 0;

/** Per pool, each video's JSON as `videoJsonOpen` gives it, made on first use. */
const videoJsons = new WeakMap<Pool, (string | undefined)[]>();

/**
 * A pool video's JSON object without its closing brace, so that a page appends its own fields
 * (`,"propensity":1}`) and joins the items as text rather than encoding every video again. Made once
 * per video and pool: a Pool is immutable, and a changed video gives a new Pool.
 */
export function videoJsonOpen(pool: Pool, index: number): string {
  let jsons = videoJsons.get(pool);
  if (!jsons) {
    jsons = new Array(pool.size);
    videoJsons.set(pool, jsons);
  }
  let json = jsons[index];
  if (json === undefined) {
    json = JSON.stringify(pool.videos[index] ?? {}).slice(0, -1);
    jsons[index] = json;
  }
  return json;
}

/** Builds a Pool from video rows (any order). Exported for tests and benchmarks. */
export function buildPool(experimentId: string, rows: readonly VideoRow[]): Pool {
  const videos = rows.map(presentVideo);
  const indexById = new Map<string, number>();
  const indexByExternalId = new Map<string, number>();
  videos.forEach((v, i) => {
    indexById.set(v.id, i);
    indexByExternalId.set(v.external_id, i);
  });
  const published = videos.map((v) =>
    v.published_at ? Date.parse(v.published_at) : Number.NEGATIVE_INFINITY,
  );
  const created = videos.map((v) => Date.parse(v.created_at));
  const all = videos.map((_, i) => i);
  const cmpId = (a: number, b: number) => {
    const x = videos[a]?.id ?? "";
    const y = videos[b]?.id ?? "";
    return x < y ? -1 : x > y ? 1 : 0;
  };
  const recency = [...all].sort(
    (a, b) =>
      (published[b] as number) - (published[a] as number) ||
      (created[b] as number) - (created[a] as number) ||
      cmpId(a, b),
  );
  return {
    experimentId,
    version: ++versions,
    size: videos.length,
    videos,
    indexById,
    indexByExternalId,
    recency: Int32Array.from(recency),
    byId: Int32Array.from([...all].sort(cmpId)),
  };
}

interface Entry {
  pool?: Pool;
  /** Digest of the text the pool was built from: a reload that reads the same keeps the same Pool. */
  digest?: string;
  loading?: Promise<Pool>;
  loadedAt: number;
}

export interface PoolCacheOptions {
  readonly db: Db;
  readonly bus: ChangeBus;
  /**
   * Age after which a pool is reloaded in the background while the cached one keeps serving
   * (default 60 s): a backstop for writes that bypass the API (direct SQL). API changes to pools
   * and videos drop the cached pool at once, on every process (the change bus).
   */
  readonly refreshMs?: number;
  readonly now?: () => number;
}

/** The pools of experiments, loaded on first use and dropped when they or their videos change. */
export function createPoolCache(options: PoolCacheOptions) {
  const { db, bus } = options;
  const refreshMs = options.refreshMs ?? 60_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  bus.subscribe((change) => {
    if (change.type === "pool") entries.delete(change.experiment_id);
    else if (change.type === "videos" || change.type === "resync") entries.clear();
  });

  async function load(experimentId: string): Promise<{ digest: string; build: () => Pool }> {
    // One JSON text rather than a row per video: pools hold thousands of videos, and text is far
    // cheaper to move than rows (PGlite's worker, the pg wire protocol). Timestamps arrive as ISO
    // strings and jsonb columns as JSON, which presentVideo takes as they are.
    const text = await poolVideosJson(db, experimentId);
    return {
      digest: createHash("sha256").update(text).digest("base64"),
      build: () => buildPool(experimentId, JSON.parse(text) as VideoRow[]),
    };
  }

  /**
   * Loads into `entry`, keeping the result only if the entry was not dropped meanwhile. A background
   * reload that reads what the pool was built from keeps that Pool, and so everything derived from
   * it (similarity, popularity, warmed neighbours): the backstop reload costs a query, not a rebuild.
   */
  function start(experimentId: string, entry: Entry): Promise<Pool> {
    const loading = load(experimentId).then(
      ({ digest, build }) => {
        const pool = entry.pool && entry.digest === digest ? entry.pool : build();
        if (entries.get(experimentId) === entry) {
          entry.pool = pool;
          entry.digest = digest;
          entry.loadedAt = now();
        }
        if (entry.loading === loading) entry.loading = undefined;
        return pool;
      },
      (err) => {
        if (entry.loading === loading) entry.loading = undefined;
        throw err;
      },
    );
    entry.loading = loading;
    return loading;
  }

  return {
    /** The experiment's pool: cached, or loaded once for all concurrent callers. */
    get(experimentId: string): Promise<Pool> {
      let entry = entries.get(experimentId);
      if (!entry) {
        entry = { loadedAt: 0 };
        entries.set(experimentId, entry);
      }
      if (entry.pool) {
        if (now() - entry.loadedAt > refreshMs && !entry.loading) {
          // Stale-while-revalidate: this request is served from memory.
          start(experimentId, entry).catch(() => {});
        }
        return Promise.resolve(entry.pool);
      }
      return entry.loading ?? start(experimentId, entry);
    },

    /** Drops cached pools (one experiment, or all). */
    invalidate(experimentId?: string): void {
      if (experimentId) entries.delete(experimentId);
      else entries.clear();
    },
  };
}

export type PoolCache = ReturnType<typeof createPoolCache>;
