import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALICE, BOB } from "../../logged-event.fixture.ts";
import {
  BACKENDS,
  eraseAndReplay,
  OPEN_TIMEOUT_MS,
  openReadModelDb,
  type ReadModelDb,
  STORY,
} from "../read-model.fixture.ts";
import { eventsProjection } from "./events.projection.ts";

describe.each(BACKENDS)("erasing a participant from the events store (%s)", (backend) => {
  let store: ReadModelDb;
  beforeAll(async () => {
    store = await openReadModelDb(backend);
  }, OPEN_TIMEOUT_MS);
  afterAll(async () => {
    await store?.close();
  });

  it("keeps only the other participant's events, at their places in the log, as a replay without them does", async () => {
    // Given Alice's and Bob's events (STORY), when projected and Alice is erased:
    const { before, erased, replayed } = await eraseAndReplay(store.db, eventsProjection, ALICE);
    expect(erased).toEqual(replayed);
    expect(before).not.toEqual(replayed);
    expect(erased.events?.map((r) => r.user_id)).toEqual(
      STORY.filter((e) => e.user_id === BOB).map(() => BOB),
    );
    expect(before.events).toHaveLength(STORY.length);
  });
});
