import type { Knex } from "knex";

/**
 * Operational records of running studies (not events): recommender calls and rejected events,
 * summed per minute by each API process and written every few seconds (monitoring/recorder.ts).
 * Rows are appended, never updated, so several processes write without conflict; reads sum them.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable("recommender_calls", (t) => {
    t.bigIncrements("id");
    t.uuid("experiment_id").notNullable();
    t.string("recommender", 100).notNullable();
    t.string("surface", 10).notNullable();
    t.timestamp("minute", { useTz: true }).notNullable();
    t.integer("calls").notNullable();
    t.integer("empty_results").notNullable();
    // {kind: count} over api.md's failure kinds.
    t.jsonb("failures").notNullable();
    // Latency histogram {bucket: count}; see monitoring/latency.ts.
    t.jsonb("latency").notNullable();
    // The last failure's message of the minute (never a URL's query string or a header).
    t.text("last_failure");
    t.index(["recommender", "minute"]);
    t.index(["experiment_id", "minute"]);
  });
  await db.schema.createTable("rejected_events", (t) => {
    t.bigIncrements("id");
    t.uuid("experiment_id").notNullable();
    t.timestamp("minute", { useTz: true }).notNullable();
    t.string("code", 100).notNullable();
    t.integer("count").notNullable();
    t.index(["experiment_id", "minute"]);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("rejected_events");
  await db.schema.dropTableIfExists("recommender_calls");
}
