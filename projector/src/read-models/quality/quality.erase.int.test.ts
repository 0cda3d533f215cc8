import { applyRecords, eventsProjection } from "@feedlab/projector";
import { encodeLoggedEvent, type LoggedEvent } from "@feedlab/schemas";
import type { Knex } from "knex";
import { describe, expect, it } from "vitest";
import { ALICE, BOB, logged } from "../../logged-event.fixture.ts";
import { BACKENDS, eraseAndReplay, summary, useReadModelDb } from "../read-model.fixture.ts";
import { CHECKPOINT_EVERY, CHECKPOINTS_KEPT } from "./quality.fold.ts";
import { qualityMigrations } from "./quality.migration.ts";
import { qualityProjection } from "./quality.projection.ts";
import { eventQuality } from "./quality.queries.ts";

const SESSION = "00000000-0000-4000-8000-0000000aa001";

/** Alice's session, `s` seconds after 12:00, numbered in order. */
const story = (): LoggedEvent[] =>
  (
    [
      [0, "SESSION_START", { environment: { viewport: { width: 1440, height: 900 } } }],
      [1, "PAGE_LOAD", {}],
      [5, "MOUSE_MOVEMENT", {}],
      [10, "VIDEO_PLAY", {}],
      [20, "VISIBILITY_CHANGE", { visible: false, visibilityState: "hidden" }],
      [25, "VIDEO_PROGRESS", {}],
      [30, "VIDEO_PAUSE", {}],
      [90, "VISIBILITY_CHANGE", { visible: true, visibilityState: "visible" }],
      [95, "WINDOW_BLUR", {}],
      [100, "WINDOW_FOCUS", {}],
      [160, "MOUSE_MOVEMENT", {}],
      [161, "PAGE_EXIT", {}],
      [162, "SESSION_END", {}],
    ] as const
  ).map(([s, type, payload], i) =>
    logged(type, {
      session_id: SESSION,
      seq: i + 1,
      timestamp: new Date(Date.UTC(2026, 10, 24, 12, 0, s)).toISOString(),
      received_at: new Date(Date.UTC(2026, 10, 24, 12, 5, 0)).toISOString(),
      payload,
    }),
  );

/** Projects the events in the given batches, each in the order given, at increasing log places. */
async function project(db: Knex, batches: readonly (readonly LoggedEvent[])[]): Promise<void> {
  for (const t of qualityProjection.tables) await db(t).delete();
  await db("events").delete();
  let offset = 0;
  for (const batch of batches) {
    const records = batch.map((e) => ({ partition: 0, offset: offset++, value: encodeLoggedEvent(e) }));
    await db.transaction((trx) =>
      applyRecords(trx, records, [eventsProjection, qualityProjection], "quality-test"),
    );
  }
}

describe.each(BACKENDS)("the quality read model (%s)", (backend) => {
  const db = useReadModelDb(backend);

  it("accounts a session's time by the state after each event, whatever order its batches arrive in", async () => {
    const events = story();
    // Given the session in one batch, when projected, then: active 0-20 s, 90-95 s, 100-160 s (a 60 s
    // silence, capped at 30 s) and 160-161 s = 56 s; hidden 20-90 s = 70 s; playback 10-30 s, of which
    // 10-20 s visible; two pointer events; the SESSION_START viewport; a visit of 162 s.
    await project(db(), [events]);
    const [one] = await eventQuality(db(), events[0]?.experiment_id ?? "");
    expect(one).toEqual({
      user_id: ALICE,
      active_seconds: 56,
      hidden_seconds: 70,
      visit_seconds: 162,
      watch_seconds: 20,
      visible_watch_seconds: 10,
      pointer_events: 2,
      viewport_width: 1440,
    });
    // When the unload's batch arrives first and the middle comes last, then the same.
    await project(db(), [events.slice(10), events.slice(0, 4), events.slice(7, 10), events.slice(4, 7)]);
    expect(await eventQuality(db(), events[0]?.experiment_id ?? "")).toEqual([one]);
  });

  it("folds a late batch again from the last state kept before it, and stores what one in-order batch stores", async () => {
    // Given a long session as the tracker sends it: pointer events in high-frequency batches of 50,
    // the other events in normal batches flushed later, so each normal batch holds events older than
    // the pointer batch before it (seq is the session's order).
    const types = [
      "VIDEO_PROGRESS",
      "VISIBILITY_CHANGE",
      "WINDOW_BLUR",
      "WINDOW_FOCUS",
      "VIDEO_PAUSE",
    ] as const;
    const events = Array.from({ length: 1100 }, (_, i) => {
      const type =
        i === 0 ? "SESSION_START" : i % 11 === 5 ? (types[((i / 11) % 5) | 0] as string) : "MOUSE_MOVEMENT";
      return logged(type as LoggedEvent["event_type"], {
        session_id: SESSION,
        seq: i + 1,
        timestamp: new Date(Date.UTC(2026, 10, 24, 12, 0, 0) + i * 700).toISOString(),
        payload: type === "VISIBILITY_CHANGE" ? { visible: i % 22 === 5 } : {},
      });
    });
    const pointer = events.filter((e) => e.event_type === "MOUSE_MOVEMENT");
    const normal = events.filter((e) => e.event_type !== "MOUSE_MOVEMENT");
    const batches: LoggedEvent[][] = [];
    for (let i = 0; i * 50 < pointer.length; i++) {
      batches.push(pointer.slice(i * 50, i * 50 + 50));
      // A normal batch every other pointer batch, holding what happened before both.
      if (i % 2 === 1)
        batches.push(
          normal.filter((e) => (e.seq ?? 0) <= (pointer[i * 50]?.seq ?? 0) && !batches.flat().includes(e)),
        );
    }
    batches.push(normal.filter((e) => !batches.flat().includes(e)));
    expect(batches.flat()).toHaveLength(events.length);
    const stored = async () =>
      (await db()("quality_timelines").select()).map((r) => ({
        ...r,
        checkpoints: JSON.stringify(r.checkpoints),
      }));

    await project(db(), [events]);
    const inOrder = await stored();
    const sums = await eventQuality(db(), events[0]?.experiment_id ?? "");
    // The states after 200, 300, ..., 1,100 events are kept.
    expect(JSON.parse(inOrder[0]?.checkpoints ?? "[]").map((c: number[]) => c[0])).toEqual(
      Array.from(
        { length: CHECKPOINTS_KEPT },
        (_, k) => 1100 - (CHECKPOINTS_KEPT - 1 - k) * CHECKPOINT_EVERY,
      ),
    );

    await project(db(), batches);
    expect(await stored()).toEqual(inOrder);
    expect(await eventQuality(db(), events[0]?.experiment_id ?? "")).toEqual(sums);
  });

  it("fills each participant's sums from the sessions a database already holds, as the projection keeps them", async () => {
    // Given Alice's session projected in two batches, the second out of order, and Bob's session.
    const events = story();
    const bob = story().map((e) => ({
      ...e,
      user_id: BOB,
      session_id: "00000000-0000-4000-8000-0000000bb001",
    }));
    await project(db(), [events.slice(4), events.slice(0, 4), bob]);
    const kept = await db()("quality_participants").orderBy("user_id").select();
    expect(kept).toHaveLength(2);
    // When the table is made again by the migration that added it, then it holds the same sums.
    const added = qualityMigrations.find((m) => m.name === "projector/quality/002-participants");
    if (added === undefined) throw new Error("the migration is gone");
    await added.down(db());
    expect(await db().schema.hasTable("quality_participants")).toBe(false);
    await added.up(db());
    expect(await db()("quality_participants").orderBy("user_id").select()).toEqual(kept);
  });

  it("erases a participant's sessions and keeps the other's, as a replay without them does", async () => {
    const { before, erased, replayed } = await eraseAndReplay(db(), qualityProjection, ALICE);
    expect(erased).toEqual(replayed);
    expect(before).not.toEqual(replayed);
    expect(summary(erased.quality_sessions, ["user_id", "events"])).toEqual([`${BOB} 10`]);
    expect(summary(erased.quality_timelines, ["user_id", "folded"])).toEqual([`${BOB} 10`]);
  });
});
