import { describe, expect, it } from "vitest";
import { bucketFor } from "./monitor.service.ts";

describe("the timeline's default bucket", () => {
  it("is the finest of minute, hour and day that keeps a study under 500 points", () => {
    expect(bucketFor(0)).toBe("minute");
    expect(bucketFor(8 * 3600_000)).toBe("minute"); // a lab day: 480 minutes
    expect(bucketFor(9 * 3600_000)).toBe("hour");
    expect(bucketFor(14 * 24 * 3600_000)).toBe("hour"); // two weeks: 336 hours
    expect(bucketFor(30 * 24 * 3600_000)).toBe("day");
  });
});
