import { describe, expect, it } from "vitest";
import { ALICE, BOB } from "../../logged-event.fixture.ts";
import { BACKENDS, eraseAndReplay, summary, useReadModelDb } from "../read-model.fixture.ts";
import { evaluationProjection } from "./evaluation.projection.ts";

describe.each(BACKENDS)("erasing a participant from evaluation (%s)", (backend) => {
  const db = useReadModelDb(backend);

  it("removes their counts, takes their events off a shared minute and drops a minute only they made, as a replay without them does", async () => {
    // Given Alice's and Bob's events (STORY), when projected and Alice is erased:
    const { before, erased, replayed } = await eraseAndReplay(db(), evaluationProjection, ALICE);
    expect(erased).toEqual(replayed);
    expect(before).not.toEqual(replayed);
    expect(summary(erased.evaluation_counts, ["user_id"])).toEqual([BOB, BOB]);
    expect(
      summary(erased.evaluation_timeline, [
        "minute",
        "impressions",
        "feed_clicks",
        "plays",
        "completions",
        "likes",
      ]),
    ).toEqual(["2026-11-24T12:00:00.000Z 1 0 3 1 1"]);
  });
});
