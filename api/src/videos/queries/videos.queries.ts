// The video library (`videos`) and the pools (`experiment_videos`), for the api's other features:
// they call these, never its SQL (docs/architecture.md, "Tables and their owners"). This folder
// imports no feature.
import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";

/** The ids of the videos with these external ids, each with its external id (those not found are left out). */
export async function videoIdsByExternalId(
  db: Knex,
  externalIds: readonly string[],
): Promise<{ id: string; external_id: string }[]> {
  return (await db("videos").whereIn("external_id", externalIds).select("id", "external_id")) as {
    id: string;
    external_id: string;
  }[];
}

/** How many videos the experiment's pool holds. */
export async function poolSize(db: Knex | Knex.Transaction, experimentId: string): Promise<number> {
  const row = (await db("experiment_videos")
    .where({ experiment_id: experimentId })
    .first(db.raw("count(*) as n"))) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}

/** The videos' rows of these ids (at most a thousand a call; those not found are left out). */
export async function videoRowsByIds<T>(db: Knex, ids: readonly string[]): Promise<T[]> {
  return (await db("videos").whereIn("id", [...ids])) as T[];
}

/** The videos' rows of these external ids (at most a thousand a call; those not found are left out). */
export async function videoRowsByExternalIds<T>(db: Knex, externalIds: readonly string[]): Promise<T[]> {
  return (await db("videos").whereIn("external_id", [...externalIds])) as T[];
}

/** Columns of the videos of the experiment's pool, in no order. */
export async function poolVideos<T>(db: Knex, experimentId: string, ...columns: string[]): Promise<T[]> {
  return (await db("experiment_videos as p")
    .join("videos as v", "v.id", "p.video_id")
    .where("p.experiment_id", experimentId)
    .select(...columns.map((c) => `v.${c}`))) as T[];
}

/**
 * The videos of the experiment's pool as one JSON text (an array of their rows): pools hold thousands
 * of videos, and text is far cheaper to move than rows (PGlite's worker, the pg wire protocol).
 * Timestamps arrive as ISO strings and jsonb columns as JSON.
 */
export async function poolVideosJson(db: Knex, experimentId: string): Promise<string> {
  const result = await db.raw(
    `select coalesce(json_agg(v), '[]')::text as videos from videos v
       join experiment_videos p on p.video_id = v.id where p.experiment_id = ?`,
    [experimentId],
  );
  return rowsOf<{ videos: string }>(result)[0]?.videos ?? "[]";
}

/** An experiment whose pool holds a video. */
export interface PoolHolder {
  readonly id: string;
  readonly name: string;
  readonly status: string;
}

/** The experiments whose pool holds the video: running ones first, then by name. */
export function poolsHolding(db: Knex | Knex.Transaction, videoId: string): Promise<PoolHolder[]> {
  return db("experiment_videos as p")
    .join("experiments as e", "e.id", "p.experiment_id")
    .where("p.video_id", videoId)
    .orderByRaw("case when e.status = 'running' then 0 else 1 end")
    .orderBy("e.name")
    .select("e.id", "e.name", "e.status") as Promise<PoolHolder[]>;
}
