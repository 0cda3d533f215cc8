import type { LoggedEvent } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { ALICE, BOB, logged } from "../../logged-event.fixture.ts";
import { BACKENDS, eraseAndReplay, SIM, summary, useReadModelDb } from "../read-model.fixture.ts";
import { responseLatencyProjection } from "./response-latency.projection.ts";

const feed = (user: string, latency_ms: number, simulated = false): LoggedEvent =>
  logged("HOME_FEED", {
    user_id: user,
    payload: { videoCount: 0, videos: [], latency_ms },
    ...(simulated ? { simulated: true } : {}),
  });

const related = (user: string, latency_ms: number): LoggedEvent =>
  logged("RECOMMENDATIONS", {
    user_id: user,
    payload: { currentVideoId: "v-a", recommendedCount: 0, recommended: [], latency_ms },
  });

/** Alice and Bob load feeds and related lists, in the same buckets and in their own; a simulated participant too. */
const STORY: readonly LoggedEvent[] = [
  feed(ALICE, 12),
  feed(BOB, 13),
  feed(ALICE, 430),
  related(ALICE, 41),
  related(BOB, 42),
  feed(SIM, 12, true),
  feed(BOB, 14),
];

describe.each(BACKENDS)("erasing a participant from response latency (%s)", (backend) => {
  const db = useReadModelDb(backend);

  it("removes their histograms and leaves the others', as a replay without them does", async () => {
    // Given Alice's, Bob's and a simulated participant's latencies, when projected and Alice is erased:
    const { before, erased, replayed } = await eraseAndReplay(db(), responseLatencyProjection, ALICE, STORY);
    expect(erased).toEqual(replayed);
    expect(summary(before.response_latency, ["user_id", "surface", "bucket_ms", "events"])).toEqual(
      [
        `${ALICE} feed 10 1`,
        `${ALICE} feed 430 1`,
        `${ALICE} related 40 1`,
        `${BOB} feed 10 2`,
        `${BOB} related 40 1`,
      ].sort(),
    );
    expect(summary(erased.response_latency, ["user_id", "surface", "bucket_ms", "events"])).toEqual([
      `${BOB} feed 10 2`,
      `${BOB} related 40 1`,
    ]);
  });
});
