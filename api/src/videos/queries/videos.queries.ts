// The video library (`videos`) and the pools (`experiment_videos`), for the api's other features:
// they call these, never its SQL (docs/architecture.md, "Tables and their owners"). This folder
// imports no feature.
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
