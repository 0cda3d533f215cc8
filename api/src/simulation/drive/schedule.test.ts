import type { Me } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { createParticipantModel } from "../behaviour.ts";
import { WINDOW_MARGIN_MS } from "../sessions.ts";
import { POOL } from "../simulation.fixture.ts";
import { newRecord } from "./journey.ts";
import { awaitWindow, leaveBy, plannedSessions, type WaitClock } from "./schedule.ts";

const participant = { userId: "u1", loginId: "sim-1", groupId: "g1" };
const T0 = Date.parse("2026-03-01T12:00:00Z");

/** A clock that moves only when slept on, and says how long it slept. */
function fakeClock(): WaitClock & { slept: number[] } {
  let now = T0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

/** The parts of `/me` the wait reads. */
const me = (over: Partial<Pick<Me, "status" | "next_session">> & { sessions?: number }): Me =>
  ({
    status: over.status ?? "active",
    next_session: over.next_session ?? null,
    progress: {
      sessions: over.sessions ?? 1,
      feed_minutes: 0,
      visit: 1,
      sessions_needed: 3,
      feed_minutes_needed: null,
    },
  }) as Me;

const windowIn = (session: number, opensInMs: number, lengthMs = 10_000) => ({
  session,
  opens_at: new Date(T0 + opensInMs).toISOString(),
  closes_at: new Date(T0 + opensInMs + lengthMs).toISOString(),
});

describe("a simulated participant before a scheduled session", () => {
  const model = () => createParticipantModel({ seed: 2, pool: POOL });

  it("waits until the window /me gives opens, plus the margin, and answers when it closes", async () => {
    const record = newRecord(participant);
    const clock = fakeClock();
    const next = windowIn(2, 2500);
    const outcome = await awaitWindow(
      record,
      model(),
      T0 + 600_000,
      async () => me({ next_session: next }),
      clock,
    );
    expect(outcome).toEqual({ going: true, closesAt: Date.parse(next.closes_at) });
    expect(clock.slept).toHaveLength(1);
    expect(clock.slept[0]).toBeGreaterThanOrEqual(2500 + WINDOW_MARGIN_MS);
    expect(clock.now()).toBeLessThan(Date.parse(next.closes_at));
    expect(record).toMatchObject({ outOfTime: false, beyondBudget: null, lapsedAt: null });
  });

  it("stops at once, naming the session, when the window opens after the run's deadline", async () => {
    const record = newRecord(participant);
    const clock = fakeClock();
    const outcome = await awaitWindow(
      record,
      model(),
      T0 + 600_000,
      async () => me({ next_session: windowIn(2, 1_000_000) }),
      clock,
    );
    expect(outcome.going).toBe(false);
    expect(clock.slept).toEqual([]);
    expect(record).toMatchObject({ outOfTime: true, beyondBudget: 2 });
  });

  it("stops when /me says the participant lapsed, at the session after those that counted", async () => {
    const record = newRecord(participant);
    const clock = fakeClock();
    const outcome = await awaitWindow(
      record,
      model(),
      T0 + 600_000,
      async () => me({ status: "lapsed", sessions: 2 }),
      clock,
    );
    expect(outcome).toEqual({ going: false, closesAt: null });
    expect(record.lapsedAt).toBe(3);
    expect(clock.slept).toEqual([]);
  });

  it("goes on at once without a window to wait for, or when /me fails (the visit reports the failure)", async () => {
    const clock = fakeClock();
    expect(await awaitWindow(newRecord(participant), model(), T0 + 1000, async () => me({}), clock)).toEqual({
      going: true,
      closesAt: null,
    });
    expect(await awaitWindow(newRecord(participant), model(), T0 + 1000, async () => null, clock)).toEqual({
      going: true,
      closesAt: null,
    });
    expect(clock.slept).toEqual([]);
  });
});

describe("sessions a simulated participant comes for", () => {
  const model = createParticipantModel({ seed: 1, pool: POOL });
  const window = (session: number) => ({ session, opens_after_hours: 1, closes_after_hours: 2 });

  it("are the completion rule's without a schedule", () => {
    expect(plannedSessions(model, { completion: { after_sessions: 2 } })).toBe(2);
    expect(plannedSessions(model, { completion: null, schedule: [] })).toBe(1);
  });

  it("reach the schedule's last window when the rule sets no number of sessions", () => {
    expect(plannedSessions(model, { completion: null, schedule: [window(2), window(3), window(4)] })).toBe(4);
    expect(
      plannedSessions(model, { completion: { after_sessions: 2 }, schedule: [window(2), window(3)] }),
    ).toBe(2);
  });
});

describe("how long a visit may last before a scheduled session", () => {
  const deadline = T0 + 600_000;
  const window = (opens: number, closes: number) => [
    { session: 2, opens_after_hours: opens, closes_after_hours: closes },
  ];

  it("ends in the middle of the next compressed window, less the time a return takes", () => {
    // 0.01 h to 0.05 h compresses to 2.5 s to 12.5 s: leave by 7.5 s - 2 s.
    expect(leaveBy(window(0.01, 0.05), 1, T0, deadline)).toBe(T0 + 5500);
    // A day's window (8 h long) compresses 2880 times: 25 s to 35 s.
    expect(leaveBy(window(20, 28), 1, T0, deadline)).toBe(T0 + 28_000);
  });

  it("keeps the run's deadline without a next window, or when it comes first", () => {
    expect(leaveBy(window(20, 28), 2, T0, deadline)).toBe(deadline);
    expect(leaveBy(undefined, 1, T0, deadline)).toBe(deadline);
    expect(leaveBy(window(20, 28), 1, T0, T0 + 1000)).toBe(T0 + 1000);
  });
});
