import { describe, expect, it } from "vitest";
import { defaultPreviewExperiment } from "./preview-choice.ts";

const at = (id: string, day: number) => ({
  id,
  updated_at: `2026-11-${String(day).padStart(2, "0")}T10:00:00.000Z`,
});

describe("the experiment an editor's preview starts on", () => {
  it("is the most recently changed one with videos when a newer one has an empty pool", () => {
    const experiments = [at("old", 1), at("new-empty", 9), at("recent", 5), at("older", 3)];
    const pools = new Map([
      ["old", 4],
      ["new-empty", 0],
      ["recent", 8],
      ["older", 2],
    ]);
    expect(defaultPreviewExperiment(experiments, pools)?.id).toBe("recent");
  });

  it("is the most recently changed one when no pool has videos, and none without experiments", () => {
    expect(defaultPreviewExperiment([at("a", 1), at("b", 2)], new Map())?.id).toBe("b");
    expect(defaultPreviewExperiment([], new Map())).toBeNull();
  });
});
