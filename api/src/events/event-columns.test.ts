import { describe, expect, it } from "vitest";
import { EXPORT_COLUMNS, uiName } from "./event-columns.ts";

const LAYOUT = "4293d10f-4d6a-4a1c-9aaf-914e15f73a86";
const names = new Map([[LAYOUT, "Tall cards"]]);

describe("the events export's layout names (api.md, Console and exports)", () => {
  it("follows ui_watch and timestamp_flag with ui_feed_name and ui_watch_name", () => {
    expect(EXPORT_COLUMNS.slice(-5)).toEqual([
      "ui_feed",
      "ui_watch",
      "timestamp_flag",
      "ui_feed_name",
      "ui_watch_name",
    ]);
  });

  it("names a layout's stamp by the layout, and a preset key or none by itself", () => {
    expect(uiName(`${LAYOUT}@3`, names)).toBe("Tall cards");
    expect(uiName("grid-desktop", names)).toBe("grid-desktop");
    expect(uiName("none", names)).toBe("none");
  });

  it("gives null for an event without a stamp and for a layout deleted since", () => {
    expect(uiName(null, names)).toBeNull();
    expect(uiName("9f1c2a2e-0000-4000-8000-000000000000@1", names)).toBeNull();
  });
});
