import { describe, expect, it } from "vitest";
import { ALICE, BOB } from "../../logged-event.fixture.ts";
import { BACKENDS, eraseAndReplay, STORY, useReadModelDb } from "../read-model.fixture.ts";
import { eventsProjection } from "./events.projection.ts";

describe.each(BACKENDS)("erasing a participant from the events store (%s)", (backend) => {
  const db = useReadModelDb(backend);

  it("keeps only the other participant's events, at their places in the log, as a replay without them does", async () => {
    // Given Alice's and Bob's events (STORY), when projected and Alice is erased:
    const { before, erased, replayed } = await eraseAndReplay(db(), eventsProjection, ALICE);
    expect(erased).toEqual(replayed);
    expect(before).not.toEqual(replayed);
    expect(erased.events?.map((r) => r.user_id)).toEqual(
      STORY.filter((e) => e.user_id === BOB).map(() => BOB),
    );
    expect(before.events).toHaveLength(STORY.length);
  });
});
