import { describe, expect, it } from "vitest";
import { DUMMY_HASH, generatePassword, hashPassword, verifyPassword } from "./passwords.ts";
import { FailureLimiter } from "./rate-limit.ts";

describe("passwords", () => {
  it("verifies the right password and refuses a wrong one, with a fresh salt per hash", async () => {
    const a = await hashPassword("correct horse");
    const b = await hashPassword("correct horse");
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse", a)).toBe(true);
    expect(await verifyPassword("correct horsf", a)).toBe(false);
    expect(await verifyPassword("anything", DUMMY_HASH)).toBe(false);
    expect(await verifyPassword("anything", "garbage")).toBe(false);
  });

  it("generates distinct passwords of 20 characters", () => {
    const p = generatePassword();
    expect(p).toHaveLength(20);
    expect(generatePassword()).not.toBe(p);
  });
});

describe("FailureLimiter", () => {
  it("blocks a key after max failures until the window passes", () => {
    let now = 0;
    const l = new FailureLimiter({ max: 3, windowMs: 60_000, now: () => now });
    for (let i = 0; i < 3; i++) {
      expect(l.retryAfterSeconds("k")).toBe(0);
      l.fail("k");
    }
    expect(l.retryAfterSeconds("k")).toBe(60);
    now = 30_000;
    expect(l.retryAfterSeconds("k")).toBe(30);
    expect(l.retryAfterSeconds("other")).toBe(0);
    now = 60_001;
    expect(l.retryAfterSeconds("k")).toBe(0);
  });

  it("counts attempts when they start, so attempts at once cannot pass the limit, and forgives one taken back", () => {
    let now = 0;
    const l = new FailureLimiter({ max: 3, windowMs: 60_000, now: () => now });
    expect([1, 2, 3, 4, 5].map(() => l.attempt("k"))).toEqual([0, 0, 0, 60, 60]);
    l.forgive("k");
    now = 1000;
    expect(l.attempt("k")).toBe(0);
    expect(l.attempt("k")).toBe(59);
    l.forgive("other");
    expect(l.attempt("other")).toBe(0);
  });
});
