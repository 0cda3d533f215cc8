import { describe, expect, it } from "vitest";
import { ALICE, AT, EXPERIMENT, logged } from "../../logged-event.fixture.ts";
import { sessionActivityProjection } from "./session-activity.projection.ts";

describe("session activity projection", () => {
  it("counts each event of the session and widens its first and last times", () => {
    const e = logged("PAGE_LOAD", { seq: 3 });
    expect(sessionActivityProjection.project(e, AT)).toEqual([
      {
        kind: "accumulate",
        table: "session_activity",
        key: { session_id: e.session_id },
        init: { user_id: ALICE, experiment_id: EXPERIMENT },
        add: { event_count: 1, seq_count: 1 },
        min: { first_event_at: "2026-11-24T12:00:00.000Z" },
        max: {
          last_event_at: "2026-11-24T12:00:00.000Z",
          last_received_at: "2026-11-24T12:00:00.100Z",
          max_seq: 3,
          ended_at: null,
        },
      },
    ]);
  });

  it("marks the session ended when SESSION_END arrives, at its receive time", () => {
    const [op] = sessionActivityProjection.project(logged("SESSION_END"), AT);
    expect(op?.kind === "accumulate" && op.max?.ended_at).toBe("2026-11-24T12:00:00.100Z");
  });

  it("counts an event without a client seq (a server-side or API client's) but not as numbered", () => {
    const [op] = sessionActivityProjection.project(logged("PAGE_LOAD", { seq: null }), AT);
    expect(op?.kind === "accumulate" && op.add).toEqual({ event_count: 1, seq_count: 0 });
  });
});
