import { describe, expect, it } from "vitest";
import { formatDuration } from "./format.ts";

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
