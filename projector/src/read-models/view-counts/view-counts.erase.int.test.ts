import { describe, expect, it } from "vitest";
import { ALICE } from "../../logged-event.fixture.ts";
import {
  BACKENDS,
  eraseAndReplay,
  SIM,
  STORY_WITH_SIMULATED,
  summary,
  useReadModelDb,
} from "../read-model.fixture.ts";
import { viewCountsProjection } from "./view-counts.projection.ts";

describe.each(BACKENDS)("erasing a participant from view counts (%s)", (backend) => {
  const db = useReadModelDb(backend);

  it("takes their plays off shared videos, sets the last play to the other's and drops a video only they played, as a replay without them does", async () => {
    // Given Alice's and Bob's events (STORY), when projected and Alice is erased:
    const { before, erased, replayed } = await eraseAndReplay(db(), viewCountsProjection, ALICE);
    expect(erased).toEqual(replayed);
    expect(before).not.toEqual(replayed);
    expect(summary(erased.video_view_counts, ["video_id", "plays", "last_played_at"])).toEqual([
      "v-B 1 2026-11-24T12:00:42.000Z",
      "v-a 1 2026-11-24T12:00:08.000Z",
      "v-d 1 2026-11-24T12:00:52.000Z",
    ]);
  });

  it("takes nothing off for a simulated participant, whose plays never counted", async () => {
    // Given the story with a simulated participant's plays among it, when they are erased:
    const { before, erased, replayed } = await eraseAndReplay(
      db(),
      viewCountsProjection,
      SIM,
      STORY_WITH_SIMULATED,
    );
    expect(erased).toEqual(replayed);
    expect(before).toEqual(replayed);
  });

  it("sets a video's last play to a real participant's, not a later simulated one, when a real participant is erased", async () => {
    const { erased, replayed } = await eraseAndReplay(
      db(),
      viewCountsProjection,
      ALICE,
      STORY_WITH_SIMULATED,
    );
    expect(erased).toEqual(replayed);
    expect(summary(erased.video_view_counts, ["video_id", "plays", "last_played_at"])).toEqual([
      "v-B 1 2026-11-24T12:00:42.000Z",
      "v-a 1 2026-11-24T12:00:08.000Z",
      "v-d 1 2026-11-24T12:00:52.000Z",
    ]);
  });
});
