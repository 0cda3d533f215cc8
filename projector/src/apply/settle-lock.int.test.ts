import { encodeLoggedEvent, type LoggedEvent } from "@feedlab/schemas";
import knexPkg from "knex";
import { describe, expect, it } from "vitest";
import { logged } from "../logged-event.fixture.ts";
import { coViewsProjection, eventsProjection } from "../read-models/index.ts";
import { useReadModelDb } from "../read-models/read-model.fixture.ts";
import { applyRecords } from "./apply.ts";

// On Kafka a participant's two sessions may sit on two partitions whose batches apply at once, each
// in its own transaction. PostgreSQL only: the embedded database runs one transaction at a time.
describe("co-views of one participant's batches applied at the same time (PostgreSQL)", () => {
  const db = useReadModelDb("postgres");

  const record = (e: LoggedEvent, partition: number) => ({
    partition,
    offset: 0,
    value: encodeLoggedEvent(e),
  });
  const projections = [eventsProjection, coViewsProjection];

  it("counts the pair when each of two concurrent batches brings one of its videos", async () => {
    const inFirstSession = logged("VIDEO_PLAY", { video_id: "v-a" });
    const inSecondSession = logged("VIDEO_PLAY", {
      video_id: "v-b",
      session_id: "00000000-0000-4000-8000-0000000005e2",
    });
    const first = await db().transaction();
    await applyRecords(first, [record(inFirstSession, 0)], projections, "settle-test");
    let secondDone = false;
    const second = db()
      .transaction((trx) => applyRecords(trx, [record(inSecondSession, 1)], projections, "settle-test"))
      .finally(() => {
        secondDone = true;
      });
    // The second batch waits for the first to commit before it settles (or, were it not to wait,
    // ends first, having read the participant's videos without the first batch's).
    // (Watched on a connection of its own: the test's pool has two, both in a transaction now.)
    const watcher = knexPkg.knex({
      client: "pg",
      connection: db().client.config.connection,
      pool: { min: 0, max: 1 },
    });
    const deadline = Date.now() + 20_000;
    try {
      for (;;) {
        const rows = (await watcher.raw("select count(*)::int as n from pg_locks where not granted"))
          .rows as { n: number }[];
        if ((rows[0]?.n ?? 0) > 0 || secondDone || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await watcher.destroy();
    }
    await first.commit();
    await second;
    const pairs = await db()("co_views").select("video_a", "video_b", "count");
    expect(pairs).toEqual([{ video_a: "v-a", video_b: "v-b", count: 1 }]);
  });
});
