import { describe, expect, it } from "vitest";
import { createRandom } from "../system/random.ts";
import { behaviourOptions } from "./options.ts";
import { POOL, video } from "./simulation.fixture.ts";
import type { Taste } from "./taste.ts";
import { planWatch, type WatchPlan } from "./watch.ts";

const taste: Taste = { categories: new Map([["Music", 1]]), tags: new Map([["live", 0.8]]) };

/** Plays a plan as a driver would; fails when an action cannot be reached or leaves the video. */
function replay(plan: WatchPlan): number {
  let clock = 0;
  let played = 0;
  for (const a of plan.actions) {
    expect(a.atSecond).toBeGreaterThanOrEqual(clock);
    expect(a.atSecond).toBeLessThanOrEqual(plan.durationSeconds);
    played += a.atSecond - clock;
    clock = a.atSecond;
    if (a.kind === "seek") {
      expect(a.toSecond).toBeGreaterThanOrEqual(0);
      expect(a.toSecond).toBeLessThanOrEqual(plan.durationSeconds);
      clock = a.toSecond;
    }
    if (a.kind === "pause") expect(a.forSeconds).toBeGreaterThan(0);
  }
  expect(plan.stopAtSecond).toBeGreaterThanOrEqual(clock);
  expect(plan.stopAtSecond).toBeLessThanOrEqual(plan.durationSeconds);
  return played + plan.stopAtSecond - clock;
}

describe("watch plan", () => {
  it("keeps every action reachable in order and inside the video", () => {
    const r = createRandom(1);
    const options = behaviourOptions({ seekRate: 0.8, pauseRate: 0.8, likeRate: 0.5, dislikeRate: 0.5 });
    const kinds = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const plan = planWatch(r, taste, POOL[i % POOL.length] ?? video(0), options);
      expect(replay(plan)).toBeCloseTo(plan.playSeconds, 2);
      if (plan.reachesEnd) expect(plan.stopAtSecond).toBe(plan.durationSeconds);
      expect(plan.liked && plan.disliked).toBe(false);
      expect(plan.liked).toBe(plan.actions.some((a) => a.kind === "like"));
      for (const a of plan.actions) kinds.add(a.kind);
      if (plan.reachesEnd) kinds.add("end");
    }
    expect([...kinds].sort()).toEqual(["dislike", "end", "like", "pause", "seek"]);
  });

  it("assumes the set duration for a video whose duration is unknown or 0", () => {
    const options = behaviourOptions({ unknownDurationSeconds: 90 });
    const r = createRandom(2);
    expect(planWatch(r, taste, video(1, { duration_seconds: null }), options).durationSeconds).toBe(90);
    expect(planWatch(r, taste, video(1, { duration_seconds: 0 }), options).durationSeconds).toBe(90);
  });
});
