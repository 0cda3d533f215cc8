import { afterEach, describe, expect, it, vi } from "vitest";
import { loadLayout, PRESET_KEYS, registerLayoutResolver } from "./index.ts";

describe("UI resolution of the bundled presets", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("has the six keys api.md lists, two style families in three device variants", () => {
    expect([...PRESET_KEYS].sort()).toEqual(
      ["grid", "list"].flatMap((style) => ["desktop", "tablet", "mobile"].map((d) => `${style}-${d}`)).sort(),
    );
  });

  it.each(PRESET_KEYS)("loads %s with a feed and a watch layout", async (key) => {
    expect(typeof (await loadLayout(key, "feed"))).toBe("function");
    expect(typeof (await loadLayout(key, "watch"))).toBe("function");
  });

  it("loads the same layout each time a key is resolved, and another one per device", async () => {
    expect(await loadLayout("list-tablet", "feed")).toBe(await loadLayout("list-tablet", "feed"));
    expect(await loadLayout("list-tablet", "feed")).not.toBe(await loadLayout("list-mobile", "feed"));
    expect(await loadLayout("grid-mobile", "watch")).not.toBe(await loadLayout("grid-mobile", "feed"));
  });

  it("resolves none to the bare watch layout", async () => {
    const none = await import("./none.tsx");
    expect(await loadLayout("none", "watch")).toBe(none.default.watch);
  });

  it("lets another authoring track resolve its keys, and refuses a key nothing resolves", async () => {
    const custom = () => null;
    registerLayoutResolver((key) => (key === "tpl-1" ? Promise.resolve(custom) : null));
    expect(await loadLayout("tpl-1", "feed")).toBe(custom);
    await expect(loadLayout("5b7c9d3e-0000-4000-8000-000000000000", "feed")).rejects.toThrow(
      'No layout for the UI key "5b7c9d3e-0000-4000-8000-000000000000" of the feed page.',
    );
  });
});
