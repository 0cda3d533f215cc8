import type { Completion } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { conditionsReached } from "../study/completion.ts";
import { createRandom } from "../system/random.ts";
import { createParticipantModel } from "./behaviour.ts";
import { behaviourOptions } from "./options.ts";
import { sessionGap, sessionsNeeded } from "./sessions.ts";
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
