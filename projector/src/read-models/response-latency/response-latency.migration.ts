import type { Migration } from "@feedlab/sql";
import { requestRebuild } from "../../replay/rebuilds.ts";

/**
 * Response latency (api.md, "Data quality and validity"): per participant and surface (`feed`,
 * `related`), how many HOME_FEED or RECOMMENDATIONS events reported a `latency_ms` in each fixed bucket
 * (response-latency.buckets.ts). One row per participant keeps erasure and exclusions exact.
 */
export const responseLatencyMigrations: readonly Migration[] = [
  {
    name: "projector/response-latency/001-table",
    async up(db) {
      await db.schema.createTable("response_latency", (t) => {
        t.uuid("user_id").notNullable();
        t.uuid("experiment_id").notNullable();
        t.string("surface", 10).notNullable();
        t.integer("bucket_ms").notNullable();
        t.bigInteger("events").notNullable().defaultTo(0);
        t.primary(["user_id", "surface", "bucket_ms"]);
        t.index(["experiment_id"]);
      });
      // A database with events gets the latencies its past events reported.
      await requestRebuild(db, "response_latency");
    },
    async down(db) {
      await db.schema.dropTableIfExists("response_latency");
    },
  },
];
