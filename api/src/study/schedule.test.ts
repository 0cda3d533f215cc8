import { describe, expect, it } from "vitest";
import {
  compressedSchedule,
  LAPSE_GRACE_MS,
  lastSession,
  scheduleProblems,
  scheduleState,
} from "./schedule.ts";

const H = 3_600_000;
/** Sessions 2 and 3 each open 20 h and close 28 h after the previous one began. */
const DAILY = [
  { session: 2, opens_after_hours: 20, closes_after_hours: 28 },
  { session: 3, opens_after_hours: 20, closes_after_hours: 28 },
];
const at = (hours: number, id = `s${hours}`) => ({ session_id: id, began: hours * H });
const state = (sessions: ReturnType<typeof at>[], nowHours: number, current?: string) =>
  scheduleState(DAILY, sessions, {
    gapMs: 0,
    last: 3,
    now: nowHours * H,
    ...(current === undefined ? {} : { current }),
  });

describe("a participant's place on a schedule", () => {
  it("counts a session begun in its window and none begun before it, and names the next window", () => {
    const s = state([at(0), at(5), at(21)], 22, "s5");
    expect(s.counted.map((c) => c.session_id)).toEqual(["s0", "s21"]);
    expect(s.currentCounts).toBe(false);
    expect(s.sessionOpen).toBe(false);
    expect(s.next).toEqual({ session: 3, opens_at: 41 * H, closes_at: 49 * H });
  });

  it("lets a session that has no event yet onto the pages only once the window opens", () => {
    expect(state([at(0)], 19, "new").sessionOpen).toBe(false);
    const open = state([at(0)], 20, "new");
    expect(open.sessionOpen).toBe(true);
    expect(open.visit).toBe(2);
    expect(state([at(0)], 0.5, "s0").sessionOpen).toBe(true);
  });

  it("makes the participant lapsed once a window closed unused (after the grace for late events), and for good", () => {
    expect(state([at(0)], 28 + (LAPSE_GRACE_MS - 1000) / H).lapsed).toBeNull();
    expect(state([at(0)], 28 + (LAPSE_GRACE_MS + 1000) / H).lapsed).toEqual({
      session: 2,
      opens_at: 20 * H,
      closes_at: 28 * H,
    });
    const late = state([at(0), at(30)], 31, "s30");
    expect(late.lapsed?.session).toBe(2);
    expect(late.counted).toHaveLength(1);
    expect(late.sessionOpen).toBe(false);
  });

  it("waits for no window once the last session counted, and counts later sessions by the gap rule", () => {
    const done = state([at(0), at(21), at(42)], 500);
    expect(done.lapsed).toBeNull();
    expect(done.next).toBeNull();
    const beyond = scheduleState(DAILY.slice(0, 1), [at(0), at(21), at(21.5), at(23)], {
      gapMs: 1 * H,
      last: 4,
      now: 24 * H,
    });
    expect(beyond.counted.map((c) => c.session_id)).toEqual(["s0", "s21", "s23"]);
    expect(lastSession(DAILY, undefined)).toBe(3);
    expect(lastSession([], undefined)).toBeNull();
  });
});

describe("a simulated participant's schedule", () => {
  it("lasts a second an hour, with every window at least 10 s long", () => {
    const days = [{ session: 2, opens_after_hours: 24, closes_after_hours: 48 }];
    expect(compressedSchedule(days)).toEqual([
      { session: 2, opens_after_hours: 24 / 3600, closes_after_hours: 48 / 3600 },
    ]);
    // DAILY's windows are 8 h long: compressed to 10 s, not 8.
    const daily = compressedSchedule(DAILY)[0];
    expect(((daily?.closes_after_hours ?? 0) - (daily?.opens_after_hours ?? 0)) * 3600).toBeCloseTo(10);
    const pilot = compressedSchedule([{ session: 2, opens_after_hours: 0.01, closes_after_hours: 0.05 }])[0];
    expect(((pilot?.closes_after_hours ?? 0) - (pilot?.opens_after_hours ?? 0)) * 3600).toBeCloseTo(10);
  });
});

describe("a schedule's problems", () => {
  it("names windows out of order, closing before they open, and a reminder longer than a window", () => {
    expect(scheduleProblems(DAILY, { email: true, before_close_hours: 2 })).toEqual([]);
    expect(
      scheduleProblems([{ session: 3, opens_after_hours: 2, closes_after_hours: 1 }], {
        email: true,
        before_close_hours: 2,
      }).map((p) => [p.code, p.field]),
    ).toEqual([
      ["invalid_schedule", "schedule[0].session"],
      ["invalid_schedule", "schedule[0].closes_after_hours"],
      ["invalid_reminders", "reminders.before_close_hours"],
    ]);
  });
});
