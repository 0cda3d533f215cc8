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
import { interactionsProjection } from "./interactions.projection.ts";

describe.each(BACKENDS)("erasing a participant from training interactions (%s)", (backend) => {
  const db = useReadModelDb(backend);

  it("removes their interactions and keeps the other's with the same videos, as a replay without them does", async () => {
    // Given Alice's and Bob's events (STORY), when projected and Alice is erased:
    const { before, erased, replayed } = await eraseAndReplay(db(), interactionsProjection, ALICE);
    expect(erased).toEqual(replayed);
    expect(before).not.toEqual(replayed);
    expect(summary(erased.interactions, ["user_id", "video_id", "weight"])).toEqual([
      `${BOB} v-B 3`,
      `${BOB} v-a 1`,
      `${BOB} v-d 1`,
    ]);
  });

  it("removes a simulated participant's flagged interactions and leaves the real ones as they were", async () => {
    // Given the story with a simulated participant's events among it, when they are erased:
    const { before, erased, replayed } = await eraseAndReplay(
      db(),
      interactionsProjection,
      SIM,
      STORY_WITH_SIMULATED,
    );
    expect(erased).toEqual(replayed);
    expect(summary(before.interactions, ["user_id", "video_id", "simulated"])).toEqual(
      expect.arrayContaining([`${SIM} v-B true`, `${SIM} v-a true`, `${SIM} v-e true`]),
    );
    expect(summary(erased.interactions, ["simulated"])).not.toContain("true");
  });
});
