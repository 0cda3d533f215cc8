import type { Completion } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { conditionsReached } from "../study/completion.ts";
import { createRandom } from "../system/random.ts";
import { createParticipantModel } from "./behaviour.ts";
import { behaviourOptions } from "./options.ts";
import { sessionGap, sessionsNeeded, WINDOW_MARGIN_MS, windowWait } from "./sessions.ts";
import { POOL } from "./simulation.fixture.ts";

const options = behaviourOptions({ sessionMinutes: 2 });

describe("sessions needed", () => {
  it.each<[string, Completion | null, number]>([
    ["no completion rule", null, 1],
    ["a rule with neither sessions nor minutes", { code: "ABC", after_post_survey: true }, 1],
    ["three sessions", { after_sessions: 3 }, 3],
    ["five minutes at two a session", { after_feed_minutes: 5 }, 3],
    ["four minutes at two a session", { after_feed_minutes: 4 }, 2],
    ["two sessions and nine minutes: the minutes ask more", { after_sessions: 2, after_feed_minutes: 9 }, 5],
    ["six sessions and one minute: the sessions ask more", { after_sessions: 6, after_feed_minutes: 1 }, 6],
  ])("comes for the sessions the rule needs: %s", (_name, completion, sessions) => {
    expect(sessionsNeeded(completion, options)).toBe(sessions);
  });

  it("reaches the server's rule in the sessions it plans and not one session earlier", () => {
    for (const completion of [
      { after_sessions: 4 },
      { after_feed_minutes: 7.5 },
      { after_sessions: 2, after_feed_minutes: 3 },
    ]) {
      const n = sessionsNeeded(completion, options);
      const progress = (k: number) => ({ sessions: k, feed_minutes: k * options.sessionMinutes });
      expect(conditionsReached(completion, progress(n), "running")).toBe(true);
      expect(conditionsReached(completion, progress(n - 1), "running")).toBe(false);
    }
  });

  it("never plans more than maxSessions", () => {
    expect(sessionsNeeded({ after_sessions: 1000 }, behaviourOptions({ maxSessions: 20 }))).toBe(20);
  });

  it("is what the participant model answers", () => {
    const model = createParticipantModel({ seed: 1, pool: POOL, options: { sessionMinutes: 2 } });
    expect(model.sessionsNeeded({ after_feed_minutes: 5 })).toBe(3);
  });
});

describe("gap between sessions", () => {
  it("stays within the set bounds and varies", () => {
    const o = behaviourOptions({ sessionGapSeconds: { min: 10, median: 60, max: 600 } });
    const r = createRandom(1);
    const gaps = Array.from({ length: 2000 }, () => sessionGap(r, o));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(600);
    expect(new Set(gaps).size).toBeGreaterThan(100);
    const sorted = [...gaps].sort((a, b) => a - b);
    expect(Math.abs((sorted[1000] ?? 0) - 60)).toBeLessThan(10);
  });
});

describe("waiting for a schedule's window", () => {
  // A compressed window of 10 s, opening 2.5 s from now.
  const now = 1_000_000;
  const window = { opensAt: now + 2500, closesAt: now + 12_500 };

  it("waits until the window opens, plus the margin and at most 2 s of jitter", () => {
    const r = createRandom(3);
    const waits = Array.from({ length: 500 }, () => windowWait(r, window, now));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(2500 + WINDOW_MARGIN_MS);
    expect(Math.max(...waits)).toBeLessThanOrEqual(2500 + WINDOW_MARGIN_MS + 2000);
    // The jitter spreads the returns rather than sending everyone back at once.
    expect(new Set(waits).size).toBeGreaterThan(100);
  });

  it("begins in the first half of a short window, however the jitter falls", () => {
    const short = { opensAt: now, closesAt: now + 1500 };
    const r = createRandom(4);
    for (let i = 0; i < 200; i++) expect(windowWait(r, short, now)).toBeLessThanOrEqual(750);
  });

  it("does not wait once the moment to come back has passed, even past the close", () => {
    const r = createRandom(5);
    expect(windowWait(r, window, window.opensAt + 5000)).toBe(0);
    expect(windowWait(r, window, window.closesAt + 1)).toBe(0);
  });

  it("is the same wait for the same seed, drawn from a stream that leaves the other decisions as they were", () => {
    const a = createParticipantModel({ seed: 9, pool: POOL });
    const b = createParticipantModel({ seed: 9, pool: POOL });
    const gapBefore = createParticipantModel({ seed: 9, pool: POOL }).gapBetweenSessions();
    expect(a.windowWait(window, now)).toBe(b.windowWait(window, now));
    expect(a.gapBetweenSessions()).toBe(gapBefore);
  });
});
