import { describe, expect, it } from "vitest";
import { testSummary } from "./recommender-test.ts";

const result = {
  ok: true,
  status: 200,
  latency_ms: 41.6,
  returned: 4,
  kept: 2,
  dropped: { invalid: 1, outside_pool: 1 },
  failure: null,
  message: null,
  response: null,
  request: {},
};

describe("a recommender test call's summary", () => {
  it("names the status, the time, what was kept and why the rest was dropped", () => {
    expect(testSummary(result)).toBe(
      "HTTP 200 · 42 ms · 4 ids returned · 2 kept · dropped: 1 not a video UUID, 1 not in the pool",
    );
  });

  it("says when no answer came and leaves out drops that did not happen", () => {
    expect(
      testSummary({
        ...result,
        ok: false,
        status: null,
        returned: 0,
        kept: 0,
        dropped: { invalid: 0, outside_pool: 0 },
      }),
    ).toBe("no answer · 42 ms · 0 ids returned · 0 kept");
  });
});
