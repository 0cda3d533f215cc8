import { describe, expect, it } from "vitest";
import { newRecord } from "../drive/journey.ts";
import { duration, scheduleBeyondBudget, scheduleWarnings, shortWindowsWarning } from "./schedule-report.ts";

const TEN_MINUTES = 600_000;
const windows = (n: number, opens: number, closes: number) =>
  Array.from({ length: n }, (_, i) => ({
    session: i + 2,
    opens_after_hours: opens,
    closes_after_hours: closes,
  }));

describe("a schedule against a dry run's budget", () => {
  it("fits when the compressed openings add up to less than the budget", () => {
    // Windows of a day opening a day apart: 24 s each once compressed.
    expect(scheduleBeyondBudget(windows(6, 24, 48), 7, TEN_MINUTES)).toBeNull();
    // Minutes-long windows (a pilot's) are compressed to 10 s windows.
    expect(scheduleBeyondBudget(windows(2, 0.01, 0.05), 3, TEN_MINUTES)).toBeNull();
  });

  it("names the first session whose window opens past the budget, and when it opens", () => {
    expect(scheduleBeyondBudget(windows(24, 1000, 2000), 25, TEN_MINUTES)).toEqual({
      session: 2,
      opensAfterMs: 1_001_000,
      budgetMs: TEN_MINUTES,
    });
    // 24 h each, compressed to 24 s (+ the 1 s margin): the 25th opening is past 10 minutes.
    expect(scheduleBeyondBudget(windows(30, 24, 48), 31, TEN_MINUTES)?.session).toBe(26);
  });

  it("counts only the sessions the run makes", () => {
    expect(scheduleBeyondBudget(windows(30, 24, 48), 10, TEN_MINUTES)).toBeNull();
  });

  it("words durations for researchers", () => {
    expect([duration(45_000), duration(TEN_MINUTES), duration(1_001_000), duration(9_000_000)]).toEqual([
      "45 s",
      "10 minutes",
      "16.7 minutes",
      "2.5 hours",
    ]);
  });
});

describe("the run's warnings about the schedule", () => {
  const record = (n: number, over: { lapsedAt?: number; beyondBudget?: number }) => ({
    ...newRecord({ userId: `u${n}`, loginId: `sim-${n}`, groupId: "g" }),
    lapsedAt: over.lapsedAt ?? null,
    beyondBudget: over.beyondBudget ?? null,
    outOfTime: over.beyondBudget !== undefined,
  });

  it("says how many lapsed at each session, in order of the session", () => {
    const warnings = scheduleWarnings(
      [record(1, { lapsedAt: 3 }), record(2, { lapsedAt: 2 }), record(3, { lapsedAt: 3 }), record(4, {})],
      null,
    );
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(
      /^1 simulated participant lapsed at session 2: the schedule could not be followed, as its window/,
    );
    expect(warnings[1]).toMatch(
      /^2 simulated participants lapsed at session 3: the schedule could not be followed, as their window/,
    );
  });

  it("names a window past the budget only when the check before the run did not", () => {
    const stopped = [record(1, { beyondBudget: 4 }), record(2, { beyondBudget: 4 })];
    expect(scheduleWarnings(stopped, null)).toEqual([
      "2 simulated participants stopped before session 4: its window opened after the run's time budget ended; what they did was checked.",
    ]);
    expect(scheduleWarnings(stopped, { session: 4, opensAfterMs: 700_000, budgetMs: TEN_MINUTES })).toEqual(
      [],
    );
  });
});

describe("a browser run's compressed windows", () => {
  it("warns, naming the session, when a window comes too soon for a visit to reach a video", () => {
    // A pilot's windows of minutes: 10 s windows opening 2.5 s after the session before began.
    expect(shortWindowsWarning(windows(2, 0.01, 0.05), 3)).toBe(
      "With time compressed, session 2's window opens 2.5 s and closes 12.5 s after the session before it begins: too soon for a full visit in the browser, so the simulated participants cut their visits short to come back in time, and the watch page may have gone unchecked. A run over HTTP, or a copy of the study with longer windows, checks more.",
    );
  });

  it("says nothing of windows a day apart, nor of windows past the sessions the run makes", () => {
    expect(shortWindowsWarning(windows(2, 20, 28), 3)).toBeNull();
    expect(
      shortWindowsWarning(
        [...windows(1, 20, 28), { session: 3, opens_after_hours: 0.01, closes_after_hours: 0.05 }],
        2,
      ),
    ).toBeNull();
  });
});
