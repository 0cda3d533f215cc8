import { describe, expect, it } from "vitest";
import { formatDuration, formatRelative, formatViews } from "./format.ts";

describe("formatDuration", () => {
  it("writes minutes and zero-padded seconds under an hour", () => {
    expect(formatDuration(0)).toBe("0:00");
    expect(formatDuration(65)).toBe("1:05");
    expect(formatDuration(3599)).toBe("59:59");
  });

  it("adds hours from one hour on", () => {
    expect(formatDuration(3725)).toBe("1:02:05");
  });

  it("is empty for a missing duration", () => {
    expect(formatDuration(null)).toBe("");
    expect(formatDuration(undefined)).toBe("");
  });
});

describe("formatViews", () => {
  it("uses compact notation and a singular for one view", () => {
    expect(formatViews(1)).toBe("1 view");
    expect(formatViews(532)).toBe("532 views");
    expect(formatViews(1234)).toBe("1.2K views");
    expect(formatViews(3_400_000)).toBe("3.4M views");
    expect(formatViews(null)).toBe("0 views");
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
