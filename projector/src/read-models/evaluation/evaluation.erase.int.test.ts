import { describe, expect, it } from "vitest";
import { ALICE, BOB } from "../../logged-event.fixture.ts";
import {
  BACKENDS,
  eraseAndReplay,
  SIM,
  STORY_WITH_SIMULATED,
  summary,
  useReadModelDb,
} from "../read-model.fixture.ts";
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

  it("removes a simulated participant's own counts and takes nothing off the minutes, where they never counted", async () => {
    // Given the story with a simulated participant's events among it, when they are erased:
    const { before, erased, replayed } = await eraseAndReplay(
      db(),
      evaluationProjection,
      SIM,
      STORY_WITH_SIMULATED,
    );
    expect(erased).toEqual(replayed);
    expect(summary(before.evaluation_counts, ["user_id"])).toContain(SIM);
    expect(before.evaluation_timeline).toEqual(replayed.evaluation_timeline);
  });

  it("takes only a real participant's events off the minutes when they are erased among a simulated one's", async () => {
    const { erased, replayed } = await eraseAndReplay(
      db(),
      evaluationProjection,
      ALICE,
      STORY_WITH_SIMULATED,
    );
    expect(erased).toEqual(replayed);
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
