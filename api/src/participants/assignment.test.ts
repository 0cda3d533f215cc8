import { describe, expect, it } from "vitest";
import { type GroupLoad, pickGroup } from "./assignment.ts";

function simulate(weights: number[], joins: number): number[] {
  const groups: GroupLoad[] = weights.map((weight, i) => ({ id: `g${i}`, weight, count: 0 }));
  for (let n = 0; n < joins; n++) {
    const id = pickGroup(groups);
    const i = groups.findIndex((g) => g.id === id);
    const g = groups[i] as GroupLoad;
    groups[i] = { ...g, count: g.count + 1 };
  }
  return groups.map((g) => g.count);
}

describe("pickGroup (balanced assignment by weight)", () => {
  it("alternates between equal groups, earlier group first on ties", () => {
    expect(simulate([1, 1], 1)).toEqual([1, 0]);
    expect(simulate([1, 1], 2)).toEqual([1, 1]);
    expect(simulate([1, 1, 1], 7)).toEqual([3, 2, 2]);
  });

  it("keeps every group within one participant of its weighted share after any number of joins", () => {
    for (const weights of [
      [1, 3],
      [2, 1, 1],
      [0.5, 0.25, 0.25],
      [5, 1],
    ]) {
      const total = weights.reduce((a, b) => a + b, 0);
      for (let joins = 1; joins <= 60; joins++) {
        const counts = simulate(weights, joins);
        counts.forEach((c, i) => {
          expect(Math.abs(c - (joins * (weights[i] ?? 0)) / total)).toBeLessThanOrEqual(1);
        });
      }
    }
  });

  it("returns null when there is no group to choose", () => {
    expect(pickGroup([])).toBeNull();
  });
});
