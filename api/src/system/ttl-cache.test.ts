import { describe, expect, it } from "vitest";
import { TtlCache } from "./ttl-cache.ts";

function harness() {
  let clock = 0;
  let version = 1;
  const loads: string[] = [];
  const cache = new TtlCache<string>({ ttlMs: 1000, max: 10, now: () => clock });
  const load = (key: string) => async () => {
    loads.push(key);
    return `${key}@${version}`;
  };
  const turn = () => new Promise((r) => setImmediate(r));
  return {
    cache,
    load,
    loads,
    turn,
    tick: (ms: number) => {
      clock += ms;
    },
    bump: () => {
      version++;
    },
  };
}

describe("TtlCache.fetch", () => {
  it("answers a value past half its life at once and reads it again in the background", async () => {
    const h = harness();
    expect(await h.cache.fetch("k", h.load("k"))).toBe("k@1");
    h.bump();
    h.tick(400);
    expect(await h.cache.fetch("k", h.load("k"))).toBe("k@1");
    expect(h.loads).toEqual(["k"]);
    h.tick(200);
    expect(await h.cache.fetch("k", h.load("k"))).toBe("k@1");
    await h.turn();
    expect(h.loads).toEqual(["k", "k"]);
    expect(await h.cache.fetch("k", h.load("k"))).toBe("k@2");
  });

  it("never answers a value past its life: the caller waits for the lookup", async () => {
    const h = harness();
    await h.cache.fetch("k", h.load("k"));
    h.bump();
    h.tick(1000);
    expect(await h.cache.fetch("k", h.load("k"))).toBe("k@2");
  });

  it("does not store a lookup that a delete crossed, and forgets a key the lookup no longer finds", async () => {
    const h = harness();
    await h.cache.fetch("k", h.load("k"));
    h.tick(600);
    await h.cache.fetch("k", h.load("k"));
    h.cache.delete("k");
    await h.turn();
    expect(h.cache.get("k")).toBeUndefined();
    await h.cache.fetch("gone", h.load("gone"));
    h.tick(600);
    await h.cache.fetch("gone", async () => undefined);
    await h.turn();
    expect(h.cache.get("gone")).toBeUndefined();
  });

  it("keeps each value for its own life where ttlOf gives one, and refreshes it past half of that", async () => {
    let clock = 0;
    const cache = new TtlCache<string>({
      ttlMs: 1000,
      max: 10,
      now: () => clock,
      ttlOf: (v) => (v.startsWith("long") ? 30_000 : 1000),
    });
    const loads: string[] = [];
    const load = (key: string) => async () => {
      loads.push(key);
      return key;
    };
    await cache.fetch("long", load("long"));
    await cache.fetch("short", load("short"));
    clock += 1000;
    expect(cache.get("short")).toBeUndefined();
    expect(await cache.fetch("long", load("long"))).toBe("long");
    expect(loads).toEqual(["long", "short"]);
    clock += 14_500;
    await cache.fetch("long", load("long"));
    await new Promise((r) => setImmediate(r));
    expect(loads).toEqual(["long", "short", "long"]);
  });
});
