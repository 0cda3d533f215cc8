import { describe, expect, it } from "vitest";
import { ALICE, BOB } from "../../logged-event.fixture.ts";
import { BACKENDS, eraseAndReplay, summary, useReadModelDb } from "../read-model.fixture.ts";
import { watchedProjection } from "./watched.projection.ts";

describe.each(BACKENDS)("erasing a participant from watched history (%s)", (backend) => {
  const db = useReadModelDb(backend);

  it("removes their watches and keeps the other's of the same videos, as a replay without them does", async () => {
    // Given Alice's and Bob's events (STORY), when projected and Alice is erased:
    const { before, erased, replayed } = await eraseAndReplay(db(), watchedProjection, ALICE);
    expect(erased).toEqual(replayed);
    expect(before).not.toEqual(replayed);
    expect(summary(erased.watched_videos, ["user_id", "video_id"])).toEqual([
      `${BOB} v-B`,
      `${BOB} v-a`,
      `${BOB} v-d`,
    ]);
  });
});
