// The registered recommenders' table (`recommenders`), for the api's other features: they call these,
// never its SQL (docs/architecture.md, "Tables and their owners"). This folder imports no feature.
import type { Knex } from "knex";

/** A row of `recommenders`, as the drivers answer it. */
export interface RecommenderRow {
  key: string;
  kind: "builtin" | "external_http";
  label: string;
  description: string;
  category: string;
  supports_feed: boolean;
  supports_watch: boolean;
  config: unknown;
  created_at: Date | string;
  updated_at: Date | string;
}

/** Which of the keys have a row (a registered recommender, or a built-in whose texts an admin changed). */
export async function recommenderKeysAmong(
  db: Knex | Knex.Transaction,
  keys: readonly string[],
): Promise<Set<string>> {
  const rows = (await db("recommenders")
    .whereIn("key", [...keys])
    .select("key")) as { key: string }[];
  return new Set(rows.map((r) => r.key));
}

/** Which of the keys are registered external recommenders. */
export async function externalRecommenderKeysAmong(db: Knex, keys: readonly string[]): Promise<string[]> {
  return db("recommenders")
    .whereIn("key", [...keys])
    .where({ kind: "external_http" })
    .pluck("key");
}

/** The labels of the keys that have a row, by key. */
export async function storedRecommenderLabels(
  db: Knex,
  keys: readonly string[],
): Promise<Map<string, string>> {
  const rows = (await db("recommenders")
    .whereIn("key", [...keys])
    .select("key", "label")) as { key: string; label: string }[];
  return new Map(rows.map((r) => [r.key, r.label]));
}

/** The stored config of a key's row (none when the key has no row). */
export async function recommenderConfig(db: Knex, key: string): Promise<{ config: unknown } | undefined> {
  return (await db("recommenders").where({ key }).first("config")) as { config: unknown } | undefined;
}

/** The row of a registered external recommender, as stored (none when the key is not one). */
export async function externalRecommenderRow(db: Knex, key: string): Promise<RecommenderRow | undefined> {
  return (await db("recommenders").where({ key, kind: "external_http" }).first()) as
    | RecommenderRow
    | undefined;
}
