import { describe, expect, it } from "vitest";
import { ALICE, BOB } from "../../logged-event.fixture.ts";
import { BACKENDS, eraseAndReplay, summary, useReadModelDb } from "../read-model.fixture.ts";
import { sessionActivityProjection } from "./session-activity.projection.ts";

describe.each(BACKENDS)("erasing a participant from session activity (%s)", (backend) => {
  const db = useReadModelDb(backend);

  it("removes their sessions and keeps the other's, as a replay without them does", async () => {
    // Given Alice's and Bob's events (STORY), when projected and Alice is erased:
    const { before, erased, replayed } = await eraseAndReplay(db(), sessionActivityProjection, ALICE);
    expect(erased).toEqual(replayed);
    expect(before).not.toEqual(replayed);
    expect(summary(erased.session_activity, ["user_id", "event_count"])).toEqual([`${BOB} 10`]);
  });
});
