import type { LoggedEvent } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { applyOps } from "../../apply/plan.ts";
import { ALICE, logged } from "../../logged-event.fixture.ts";
import { BACKENDS, useReadModelDb } from "../read-model.fixture.ts";
import { sessionActivityProjection } from "./session-activity.projection.ts";
import { participantProgress } from "./session-activity.queries.ts";

const FIRST = "00000000-0000-4000-8000-0000000051a1";
const SECOND = "00000000-0000-4000-8000-0000000051a2";
const THIRD = "00000000-0000-4000-8000-0000000051a3";

/** Alice's event in `session`, received `s` seconds after 12:00 and stamped by her clock at `clientAt`. */
const arrival = (session: string, s: number, clientAt = "2026-11-24T12:00:00.000Z"): LoggedEvent =>
  logged("WINDOW_FOCUS", {
    session_id: session,
    received_at: new Date(Date.UTC(2026, 10, 24, 12, 0, s)).toISOString(),
    timestamp: clientAt,
  });

/**
 * api.md "Trust boundaries (wave 4)": completion counts by the server's clock. Given arrivals, when
 * projected in batches of any size, then a participant's progress.
 */
describe.each(BACKENDS)("progress by arrival times (%s)", (backend) => {
  const db = useReadModelDb(backend);

  async function project(events: readonly LoggedEvent[], batch: number) {
    await db()("session_time").del();
    await db()("session_activity").del();
    for (let i = 0; i < events.length; i += batch)
      await db().transaction((trx) =>
        applyOps(
          trx,
          events
            .slice(i, i + batch)
            .flatMap((e, j) => sessionActivityProjection.project(e, { partition: 0, offset: i + j })),
        ),
      );
  }

  it("counts time on the pages as the gaps between arrivals, each at most 30 s, whatever the client's clock says and however the batches fall", async () => {
    // Arrivals 0, 10, 100 (a 90 s silence counts 30 s), 110, 112 s; the client claims hours between them.
    const events = [0, 10, 100, 110, 112].map((s, i) =>
      arrival(FIRST, s, new Date(Date.UTC(2026, 10, 24, 12 + i * 3)).toISOString()),
    );
    // In log order, and with a late arrival (a re-driven dead letter, say) applied last.
    const late = [...events.slice(0, 3), ...events.slice(4), events[3] as LoggedEvent];
    const rows = async () =>
      db()("session_time")
        .orderBy("session_id")
        .select("arrival_runs", "first_received_at", "last_received_at");
    let first: unknown;
    for (const [order, batch] of [
      [events, 1],
      [events, 2],
      [events, 5],
      [late, 1],
      [late, 3],
    ] as const) {
      await project(order, batch);
      const p = await participantProgress(db(), ALICE);
      expect([batch, p.minutes * 60]).toEqual([batch, 52]);
      first ??= await rows();
      expect(await rows()).toEqual(first);
    }
  });

  it("counts a session once an event of it arrived, and with a gap only sessions begun that long after the last counted one", async () => {
    // Sessions begin at 0 s, 5 min and 70 min (by arrival).
    await project([arrival(FIRST, 0), arrival(SECOND, 300), arrival(SECOND, 301), arrival(THIRD, 4200)], 2);
    expect((await participantProgress(db(), ALICE)).sessions).toBe(3);
    expect((await participantProgress(db(), ALICE, { gapMinutes: 60 })).sessions).toBe(2);
    expect((await participantProgress(db(), ALICE, { gapMinutes: 5 })).sessions).toBe(3);
    expect((await participantProgress(db(), ALICE, { gapMinutes: 5.01 })).sessions).toBe(2);
    // The visit a session makes: the third session is the second visit under an hour's gap; a session
    // without an event yet is the next visit if it began now, or part of the last one.
    const visitOf = (current: string, gapMinutes: number, now = "2026-11-24T13:10:00Z") =>
      participantProgress(db(), ALICE, { gapMinutes, current, now: new Date(now) }).then((p) => p.visit);
    expect(await visitOf(SECOND, 60)).toBe(1);
    expect(await visitOf(THIRD, 60)).toBe(2);
    expect(await visitOf("00000000-0000-4000-8000-0000000051a4", 60)).toBe(2);
    expect(await visitOf("00000000-0000-4000-8000-0000000051a4", 60, "2026-11-24T14:10:00Z")).toBe(3);
  });
});
