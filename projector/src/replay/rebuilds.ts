import type { Migration } from "@feedlab/sql";
import type { Knex } from "knex";
import { holdsEvents } from "../read-models/events/events.queries.ts";

/**
 * Read models a release adds start empty on a database that already holds events. Their migration
 * asks for a rebuild (`requestRebuild`); the projector's process replays those projections from the
 * log before it projects anything new, so the new table holds every event, as if it had always been
 * there.
 */
export const rebuildMigrations: readonly Migration[] = [
  {
    name: "projector/002-rebuilds",
    async up(db) {
      await db.schema.createTable("projector_rebuilds", (t) => {
        t.string("projection", 100).primary();
        t.timestamp("requested_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists("projector_rebuilds");
    },
  },
];

/** In a read model's migration: rebuild `projection` from the log if events were projected before it. */
export async function requestRebuild(db: Knex, projection: string): Promise<void> {
  if (!(await holdsEvents(db))) return;
  await db("projector_rebuilds").insert({ projection }).onConflict("projection").ignore();
}
