// The layouts' table (`ui_templates`), for the api's other features: they call these, never its SQL
// (docs/architecture.md, "Tables and their owners"). This folder imports no feature.
import type { Knex } from "knex";

/** Which of the ids (any text: a key that is no uuid matches none) are layouts. */
export async function templateIdsAmong(
  db: Knex | Knex.Transaction,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = (await db("ui_templates")
    .whereRaw(`cast(id as text) in (${ids.map(() => "?").join(", ")})`, [...ids])
    .select(db.raw("cast(id as text) as id"))) as { id: string }[];
  return new Set(rows.map((t) => t.id));
}

/** Layouts' names by id: of these ids, or of every layout. */
export async function templateNames(db: Knex, ids?: readonly string[]): Promise<Map<string, string>> {
  const q = db("ui_templates");
  if (ids) q.whereIn("id", [...ids]);
  const rows = (await q.select("id", "name")) as { id: string; name: string }[];
  return new Map(rows.map((l) => [l.id, l.name]));
}

/** The ids of the layouts named `name`, oldest first. */
export async function templateIdsNamed(db: Knex, name: string): Promise<string[]> {
  return db("ui_templates").where({ name }).orderBy("created_at").pluck("id");
}
