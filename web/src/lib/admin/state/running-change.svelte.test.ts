import { describe, expect, it } from "vitest";
import type { Group } from "../../types.ts";
import { RunningChange } from "./running-change.svelte.ts";

const config = (feed: string, watch: string) => ({ feed, watch });

/** An arm with participants, on the popular feed and related watch recommenders and the default layouts. */
const group = (
  participant_count = 3,
): Pick<Group, "participant_count" | "algorithm_config" | "ui_config"> => ({
  participant_count,
  algorithm_config: config("popular", "related"),
  ui_config: config("grid", "default"),
});

describe("the confirmation before changing what a running arm's participants see", () => {
  it("stops the first save that changes a running arm's algorithm, and lets the second go ahead", () => {
    const change = new RunningChange();
    const next = { algorithm_config: config("random", "related") };
    expect(change.mustAsk(true, group(), next)).toBe(true);
    expect(change.asked).toBe(true);
    expect(change.mustAsk(true, group(), next)).toBe(false);
  });

  it("asks about a change of layout as about one of algorithm", () => {
    expect(new RunningChange().mustAsk(true, group(), { ui_config: config("grid", "cinema") })).toBe(true);
  });

  it("does not ask when the experiment is not running, the arm is new or empty, or nothing they see changes", () => {
    const next = { algorithm_config: config("random", "related") };
    expect(new RunningChange().mustAsk(false, group(), next)).toBe(false);
    expect(new RunningChange().mustAsk(true, null, next)).toBe(false);
    expect(new RunningChange().mustAsk(true, group(0), next)).toBe(false);
    expect(
      new RunningChange().mustAsk(true, group(), {
        algorithm_config: config("popular", "related"),
        ui_config: config("grid", "default"),
      }),
    ).toBe(false);
    expect(new RunningChange().mustAsk(true, group(), {})).toBe(false);
  });

  it("asks again after a reset (the dialog was closed or reopened)", () => {
    const change = new RunningChange();
    const next = { algorithm_config: config("random", "related") };
    change.mustAsk(true, group(), next);
    change.reset();
    expect(change.asked).toBe(false);
    expect(change.mustAsk(true, group(), next)).toBe(true);
  });
});
