import { describe, expect, it } from "vitest";
import { AT, logged } from "../../logged-event.fixture.ts";
import { latencyBucket, quantileOf } from "./response-latency.buckets.ts";
import { responseLatencyProjection } from "./response-latency.projection.ts";

const project = (e: ReturnType<typeof logged>) => responseLatencyProjection.project(e, AT);

describe("the response latency projection", () => {
  it("counts a HOME_FEED's latency_ms once in the participant's feed histogram, in its 5 ms bucket", () => {
    // Given a feed chunk shown 183 ms after it was asked for, when projected:
    const ops = project(logged("HOME_FEED", { payload: { videoCount: 0, videos: [], latency_ms: 183 } }));
    expect(ops).toEqual([
      {
        kind: "accumulate",
        table: "response_latency",
        key: { user_id: expect.any(String), surface: "feed", bucket_ms: 180 },
        init: { experiment_id: expect.any(String) },
        add: { events: 1 },
      },
    ]);
  });

  it("counts a RECOMMENDATIONS' latency_ms in the related histogram", () => {
    const ops = project(
      logged("RECOMMENDATIONS", {
        payload: { currentVideoId: "v", recommendedCount: 0, recommended: [], latency_ms: 1234 },
      }),
    );
    expect(ops).toMatchObject([{ key: { surface: "related", bucket_ms: 1200 } }]);
  });

  it("counts nothing for an event without latency_ms (an older runtime) or with one out of range", () => {
    expect(project(logged("HOME_FEED", { payload: { videoCount: 0, videos: [] } }))).toEqual([]);
    expect(project(logged("HOME_FEED", { payload: { videoCount: 0, videos: [], latency_ms: -1 } }))).toEqual(
      [],
    );
  });

  it("counts nothing for a simulated participant's event", () => {
    const e = logged("HOME_FEED", {
      payload: { videoCount: 0, videos: [], latency_ms: 20 },
      simulated: true,
    });
    expect(project(e)).toEqual([]);
  });
});

describe("latency buckets and quantiles", () => {
  it("are 5 ms wide below 1 s, 50 ms to 10 s and 1 s above", () => {
    expect([0, 4, 5, 999, 1000, 1049, 9999, 10_000, 600_000].map(latencyBucket)).toEqual([
      0, 0, 5, 995, 1000, 1000, 9950, 10_000, 600_000,
    ]);
    expect(latencyBucket(600_001)).toBeNull();
  });

  it("give p50 and p95 by nearest rank, as the middle of the bucket, within 2.5 ms below 1 s", () => {
    // Given 20 events: 19 at 10-14 ms and one at 400-404 ms:
    const histogram = new Map([
      [10, 19],
      [400, 1],
    ]);
    expect(quantileOf(histogram, 0.5)).toBe(12.5);
    expect(quantileOf(histogram, 0.95)).toBe(12.5);
    // One more slow event makes the 95th of 21 (rank 20) a fast one still; two make it slow.
    expect(quantileOf(new Map([...histogram, [400, 2]]), 0.95)).toBe(402.5);
  });

  it("give null for an empty histogram", () => {
    expect(quantileOf(new Map(), 0.5)).toBeNull();
  });
});
