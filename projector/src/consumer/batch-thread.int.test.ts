import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventLogMigrations } from "@feedlab/ingest";
import { encodeLoggedEvent } from "@feedlab/schemas";
import { applyMigrations, type OpenDb, openDb } from "@feedlab/sql";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECTOR_MIGRATIONS } from "../index.ts";
import { logged } from "../logged-event.fixture.ts";
import { applyInThread } from "./batch-thread.ts";
import { DEFAULT_CONSUMER, readCheckpoints } from "./checkpoints.ts";

describe("the projector's batches in a thread of their own (embedded database)", () => {
  let dir: string;
  let store: OpenDb;
  let thread: ReturnType<typeof applyInThread>;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "feedlab-batch-thread-"));
    store = openDb({ databaseUrl: null, dataDir: dir });
    await applyMigrations(store.db, [...eventLogMigrations, ...PROJECTOR_MIGRATIONS]);
    thread = applyInThread(
      store,
      { consumer: DEFAULT_CONSUMER, multiProcess: false },
      pino({ level: "silent" }),
    );
  });
  afterAll(async () => {
    await thread?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("applies a batch in one transaction: its events reach the read models and the checkpoint moves, an undecodable record becomes a dead letter", async () => {
    const event = logged("PAGE_LOAD", { payload: { url: "/", pageType: "feed" } });
    const result = await thread.apply([
      { partition: 0, offset: 0, value: encodeLoggedEvent(event) },
      { partition: 0, offset: 1, value: new Uint8Array([1, 2, 3]) },
    ]);
    expect(result.applied).toBe(1);
    expect(result.events.map((e) => e.event_id)).toEqual([event.event_id]);
    expect(result.dead).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/^undecodable record/) }),
    ]);
    expect(result.next.get(0)).toBe(1);
    const stored = await store.db("events").where({ event_id: event.event_id }).select("event_type");
    expect(stored).toEqual([{ event_type: "PAGE_LOAD" }]);
    expect((await readCheckpoints(store.db, DEFAULT_CONSUMER)).get(0)).toBe(1);
    expect(await store.db("dead_letters").where({ log_offset: 1 }).count({ n: "*" })).toEqual([{ n: 1 }]);
  });

  it("skips records at or below the checkpoint when a batch comes again, and starts a new thread after close", async () => {
    await thread.close();
    const event = logged("PAGE_LOAD", { payload: { url: "/", pageType: "feed" } });
    const again = await thread.apply([
      { partition: 0, offset: 1, value: new Uint8Array([1, 2, 3]) },
      { partition: 0, offset: 2, value: encodeLoggedEvent(event) },
    ]);
    expect(again.applied).toBe(1);
    expect(again.dead).toEqual([]);
    expect(again.next.get(0)).toBe(2);
  });
});
