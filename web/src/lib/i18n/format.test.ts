import { afterEach, describe, expect, it } from "vitest";
import { formatDate, formatRelative, formatViews } from "./format.ts";
import { participantLanguage } from "./messages.svelte.ts";

afterEach(() => participantLanguage.use("en"));

describe("formatViews", () => {
  it("uses compact notation and a singular for one view", () => {
    expect(formatViews(1)).toBe("1 view");
    expect(formatViews(532)).toBe("532 views");
    expect(formatViews(1234)).toBe("1.2K views");
    expect(formatViews(3_400_000)).toBe("3.4M views");
    expect(formatViews(0)).toBe("0 views");
  });

  it("says nothing of a count that is unknown", () => {
    expect(formatViews(null)).toBe("");
    expect(formatViews(undefined)).toBe("");
  });
});

describe("formatRelative", () => {
  const now = Date.parse("2026-06-15T12:00:00Z");

  it("names the largest whole unit", () => {
    expect(formatRelative("2026-06-12T12:00:00Z", now)).toBe("3 days ago");
    expect(formatRelative("2026-04-10T12:00:00Z", now)).toBe("2 months ago");
    expect(formatRelative("2026-06-15T11:59:30Z", now)).toBe("just now");
  });

  it("is empty for a missing or invalid timestamp", () => {
    expect(formatRelative(null, now)).toBe("");
    expect(formatRelative("not a date", now)).toBe("");
  });
});

describe("in the participant's language", () => {
  it("counts views, ages and dates with the catalogue's plurals and formats", async () => {
    await participantLanguage.use("de");
    const now = Date.parse("2026-06-15T12:00:00Z");
    expect(formatViews(1)).toBe("1 Aufruf");
    expect(formatViews(1234)).toBe("1234 Aufrufe");
    expect(formatRelative("2026-06-12T12:00:00Z", now)).toBe("vor 3 Tagen");
    expect(formatRelative("2026-06-15T11:59:30Z", now)).toBe("gerade eben");
    expect(formatDate("2025-03-04T12:00:00Z")).toBe("4. März 2025");
  });

  it("uses Arabic's plural forms", async () => {
    await participantLanguage.use("ar");
    expect([0, 1, 2, 3, 11].map(formatViews)).toEqual([
      "لا مشاهدات",
      "مشاهدة واحدة",
      "مشاهدتان",
      "3 مشاهدات",
      "11 مشاهدة",
    ]);
  });
});
