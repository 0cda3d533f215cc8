import { describe, expect, it } from "vitest";
import type { Journey } from "../drive/journey.ts";
import { newRecord } from "../drive/journey.ts";
import { runScheduled, Slots } from "./scheduled-visits.ts";

const tick = () => new Promise((r) => setTimeout(r, 1));

describe("places for visits", () => {
  it("lets the waiter whose window closes first in first, ties in order of asking", async () => {
    const slots = new Slots(1);
    await slots.take(0);
    const order: string[] = [];
    const ask = (name: string, priority: number) => slots.take(priority).then(() => order.push(name));
    const all = [
      ask("late", 300),
      ask("open-ended", Number.POSITIVE_INFINITY),
      ask("soon", 100),
      ask("soon too", 100),
    ];
    for (let i = 0; i < 4; i++) {
      slots.give();
      await tick();
    }
    await Promise.all(all);
    expect(order).toEqual(["soon", "soon too", "late", "open-ended"]);
  });
});

/** A journey that records its steps; `stopAt`: the visit whose window it never reaches. */
function journey(name: string, sessions: number, log: string[], stopAt?: number): Journey {
  let going = true;
  return {
    record: newRecord({ userId: name, loginId: name, groupId: "g" }),
    sessions,
    get going() {
      return going;
    },
    begin: async () => {},
    awaitWindow: async (n) => {
      await tick();
      if (n === stopAt) going = false;
      return Date.now() + 10_000;
    },
    visit: async (n) => {
      log.push(`${name}${n}`);
    },
    end: async () => {
      log.push(`${name} end`);
    },
  };
}

describe("journeys of a study with a schedule", () => {
  it("make each participant's visits in order, stop one whose window it cannot reach, and end everyone", async () => {
    const log: string[] = [];
    const trainedAfter: number[] = [];
    await runScheduled([journey("a", 3, log), journey("b", 3, log, 3), journey("c", 2, log)], 2, {
      visit: async (j, n) => j.visit(n),
      between: async (n) => {
        trainedAfter.push(n);
      },
    });
    const of = (name: string) => log.filter((l) => l.startsWith(name));
    expect(of("a")).toEqual(["a1", "a2", "a3", "a end"]);
    expect(of("b")).toEqual(["b1", "b2", "b end"]);
    expect(of("c")).toEqual(["c1", "c2", "c end"]);
    // Once everyone made visit 1, then visit 2; never after the last.
    expect(trainedAfter).toEqual([1, 2]);
  });
});
