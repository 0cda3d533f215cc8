import { describe, expect, it } from "vitest";
import { BUILTIN_DESCRIPTIONS, describeRecommender } from "./recommender-descriptions.ts";

describe("what a recommender does, in one line", () => {
  it("has a sentence for each of the spec's five built-ins", () => {
    expect(Object.keys(BUILTIN_DESCRIPTIONS).sort()).toEqual(
      ["learned_model", "popularity", "random", "recency", "similarity"].sort(),
    );
    for (const text of Object.values(BUILTIN_DESCRIPTIONS)) expect(text).not.toContain("\n");
  });

  it("says popularity ranks by this study's plays, not the view counts participants see", () => {
    expect(describeRecommender("popularity")).toMatch(/played in this study.*not the view counts/);
  });

  it("uses the built-in's sentence over a changed record description, and an external service's own", () => {
    expect(describeRecommender("recency", { description: "edited" })).toBe(BUILTIN_DESCRIPTIONS.recency);
    expect(describeRecommender("lab-ranker", { description: "Our ranker, v2." })).toBe("Our ranker, v2.");
    expect(describeRecommender("lab-ranker", { description: " " })).toMatch(/external service/);
    expect(describeRecommender("lab-ranker")).toMatch(/external service/);
  });
});
