import { describe, expect, it } from "vitest";
import { ALICE, AT, EXPERIMENT, logged } from "../../logged-event.fixture.ts";
import { sessionActivityProjection, timestampFlag } from "./session-activity.projection.ts";
import { endedBySessionEnd } from "./session-activity.queries.ts";

describe("session activity projection", () => {
  it("counts each event of the session and widens its first and last times", () => {
    const e = logged("PAGE_LOAD", { seq: 3 });
    expect(sessionActivityProjection.project(e, AT)).toEqual([
      {
        kind: "accumulate",
        table: "session_activity",
        key: { session_id: e.session_id },
        init: { user_id: ALICE, experiment_id: EXPERIMENT },
        add: { event_count: 1, seq_count: 1, implausible_times: 0 },
        min: { first_event_at: "2026-11-24T12:00:00.000Z", clock_offset_ms: 100 },
        max: {
          last_event_at: "2026-11-24T12:00:00.000Z",
          last_received_at: "2026-11-24T12:00:00.100Z",
          max_seq: 3,
          end_seq: null,
          ended_at: null,
        },
      },
      {
        // The server's view of the session's time: by arrival (completion counts it).
        kind: "span",
        table: "session_time",
        key: { session_id: e.session_id },
        init: { user_id: ALICE, experiment_id: EXPERIMENT },
        at: "2026-11-24T12:00:00.100Z",
        gapMs: 30_000,
        columns: { runs: "arrival_runs", first: "first_received_at", last: "last_received_at" },
      },
    ]);
  });

  it("keeps the receive time and seq of the last SESSION_END", () => {
    const [op] = sessionActivityProjection.project(logged("SESSION_END", { seq: 7 }), AT);
    expect(op?.kind === "accumulate" && op.max).toMatchObject({
      ended_at: "2026-11-24T12:00:00.100Z",
      end_seq: 7,
    });
  });

  it("counts a session ended by its SESSION_END only when no event follows it in seq order", () => {
    const at = new Date("2026-11-24T12:00:00Z");
    expect(endedBySessionEnd({ ended_at: at, end_seq: 7, max_seq: 7 })).toBe(true);
    expect(endedBySessionEnd({ ended_at: at, end_seq: 7, max_seq: 8 })).toBe(false);
    expect(endedBySessionEnd({ ended_at: null, end_seq: null, max_seq: 8 })).toBe(false);
    // A client that numbers nothing: its SESSION_END ends the session, as before.
    expect(endedBySessionEnd({ ended_at: at, end_seq: null, max_seq: null })).toBe(true);
  });

  it("counts an event without a client seq (a server-side or API client's) but not as numbered", () => {
    const [op] = sessionActivityProjection.project(logged("PAGE_LOAD", { seq: null }), AT);
    expect(op?.kind === "accumulate" && op.add).toEqual({
      event_count: 1,
      seq_count: 0,
      implausible_times: 0,
    });
  });

  it("takes the client clock's offset from arrival less client time, and counts an implausible time", () => {
    const ahead = logged("PAGE_LOAD", { timestamp: "2026-11-24T12:05:00.000Z" });
    const [op] = sessionActivityProjection.project(ahead, AT);
    expect(op?.kind === "accumulate" && op.min?.clock_offset_ms).toBe(-299_900);
    expect(op?.kind === "accumulate" && op.add?.implausible_times).toBe(1);
    const behind = logged("PAGE_LOAD", { timestamp: "2026-11-24T11:59:00.000Z" });
    const [late] = sessionActivityProjection.project(behind, AT);
    expect(late?.kind === "accumulate" && late.add?.implausible_times).toBe(0);
  });
});

describe("a client time's flag in the exports", () => {
  const arrived = Date.parse("2026-11-24T12:00:00.000Z");
  const created = Date.parse("2026-11-20T09:00:00.000Z");
  it("flags a time over a minute after arrival as future, one before the study, and one a day before arrival as stale", () => {
    expect(timestampFlag(arrived + 61_000, arrived, created)).toBe("future");
    expect(timestampFlag(arrived + 59_000, arrived, created)).toBeNull();
    expect(timestampFlag(Date.parse("1970-01-01T00:00:00Z"), arrived, created)).toBe("before_study");
    expect(timestampFlag(arrived - 25 * 3_600_000, arrived, created)).toBe("stale");
    expect(timestampFlag(arrived - 5 * 60_000, arrived, created)).toBeNull();
  });
});
