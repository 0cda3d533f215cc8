import { describe, expect, it } from "vitest";
import { eventTypesOn, expectedEventTypes, JOURNEY_ACTIONS } from "./catalog.ts";

describe("the contract's event catalog", () => {
  it("gives every action at least one event type", () => {
    for (const a of JOURNEY_ACTIONS) expect(eventTypesOn(a).length, a).toBeGreaterThan(0);
  });

  it("expects of a feed visit with a click its page, list, card and click events, and nothing a player sends", () => {
    const types = expectedEventTypes([
      "start_session",
      "open_page",
      "load_feed",
      "see_card",
      "click_feed_card",
      "follow_link",
      "leave_page",
    ]);
    expect(types).toEqual([
      "SESSION_START",
      "PAGE_LOAD",
      "NAVIGATION",
      "PAGE_EXIT",
      "HOME_FEED",
      "IMPRESSION",
      "FEED_CLICK",
    ]);
  });

  it("expects both window events of a window switch", () => {
    expect(eventTypesOn("switch_window")).toEqual(["WINDOW_FOCUS", "WINDOW_BLUR"]);
  });
});
