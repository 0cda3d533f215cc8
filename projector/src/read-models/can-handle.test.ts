import { EVENT_TYPES, type EventType, EXAMPLE_PAYLOADS } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { AT, logged } from "../logged-event.fixture.ts";
import { PROJECTIONS } from "./index.ts";

/**
 * An event of `type` with every promoted column filled (a video, a full watch, a place in the feed, a
 * sequence number) and the contract's example payload: whatever a projection reads to decide, this
 * event has, so only its type can make `project` pass it over.
 */
const sample = (type: EventType) =>
  logged(type, {
    video_id: "v-1",
    watch_ratio: 1,
    watch_duration: 30,
    position_in_feed: 0,
    seq: 7,
    payload: EXAMPLE_PAYLOADS[type],
  });

const cases = PROJECTIONS.flatMap((p) =>
  EVENT_TYPES.map((type) => ({
    name: p.name,
    type,
    handles: p.canHandle === "all" || p.canHandle.includes(type),
    project: p.project,
  })),
);

describe("each projection's canHandle (the event types it declares)", () => {
  it.each(cases.filter((c) => !c.handles))("$name answers no row operations for $type, not declared", (c) => {
    expect(c.project(sample(c.type), AT)).toEqual([]);
  });

  it.each(cases.filter((c) => c.handles))("$name answers row operations for $type, declared", (c) => {
    expect(c.project(sample(c.type), AT).length).toBeGreaterThan(0);
  });

  it("names each type once", () => {
    for (const p of PROJECTIONS) {
      if (p.canHandle === "all") continue;
      expect(new Set(p.canHandle).size, p.name).toBe(p.canHandle.length);
    }
  });
});
