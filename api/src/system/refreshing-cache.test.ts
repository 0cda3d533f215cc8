import { describe, expect, it } from "vitest";
import { RefreshingCache } from "./refreshing-cache.ts";

function harness() {
  let clock = 0;
  const loads: string[][] = [];
  let version = 1;
  const cache = new RefreshingCache<string>(
    async (keys) => {
      loads.push([...keys]);
      return new Map(keys.filter((k) => k !== "absent").map((k) => [k, `${k}@${version}`]));
    },
    { fallback: "none", refreshMs: 1000, max: 3, now: () => clock },
  );
  return {
    cache,
    loads,
    tick: (ms: number) => {
      clock += ms;
    },
    bump: () => {
      version++;
    },
  };
}

/** A cache whose values name the clock they were loaded at, with stale keys batched as `batch` says. */
function batching(batch: { refreshBatchMs: number; refreshBatchSize?: number }) {
  const state = { clock: 0, loads: [] as string[][] };
  const cache = new RefreshingCache<string>(
    async (keys) => {
      state.loads.push([...keys]);
      return new Map(keys.map((k) => [k, `${k}@${state.clock}`]));
    },
    { fallback: "none", refreshMs: 1000, max: 10, now: () => state.clock, ...batch },
  );
  return Object.assign(state, { cache });
}

describe("RefreshingCache", () => {
  it("loads the missing keys of calls made in the same turn with one call, shared by concurrent callers", async () => {
    const h = harness();
    const [a, b] = await Promise.all([h.cache.getMany(["x", "y"]), h.cache.get("x")]);
    expect(a).toEqual(["x@1", "y@1"]);
    expect(b).toBe("x@1");
    expect(h.loads).toEqual([["x", "y"]]);
  });

  it("answers a stale value at once and refreshes it in the background", async () => {
    const h = harness();
    await h.cache.get("x");
    h.bump();
    h.tick(1500);
    expect(await h.cache.get("x")).toBe("x@1");
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(await h.cache.get("x")).toBe("x@2");
    expect(h.loads).toEqual([["x"], ["x"]]);
  });

  it("gathers stale keys asked for in different turns into one refresh, up to refreshBatchSize", async () => {
    // A window far longer than the test: only the batch size sends the refresh.
    const h = batching({ refreshBatchMs: 3_600_000, refreshBatchSize: 3 });
    await h.cache.getMany(["a", "b", "c", "d"]);
    h.clock = 1500;
    for (const key of ["a", "b"]) {
      expect(await h.cache.get(key)).toBe(`${key}@0`);
      await new Promise((r) => setImmediate(r));
    }
    expect(h.loads).toEqual([["a", "b", "c", "d"]]);
    expect(await h.cache.get("c")).toBe("c@0");
    await new Promise((r) => setImmediate(r));
    expect(h.loads).toEqual([
      ["a", "b", "c", "d"],
      ["a", "b", "c"],
    ]);
    expect(await h.cache.getMany(["a", "b", "c"])).toEqual(["a@1500", "b@1500", "c@1500"]);
  });

  it("refreshes a lone stale key once refreshBatchMs has passed, and still loads a missing key at once", async () => {
    const h = batching({ refreshBatchMs: 5 });
    await h.cache.get("a");
    h.clock = 1500;
    expect(await h.cache.get("a")).toBe("a@0");
    expect(await h.cache.get("new")).toBe("new@1500");
    while (h.loads.length < 3) await new Promise((r) => setTimeout(r, 5));
    expect(h.loads).toHaveLength(3);
    expect(h.loads.slice(1)).toEqual(expect.arrayContaining([["new"], ["a"]]));
    expect(await h.cache.get("a")).toBe("a@1500");
  });

  it("loads keys asked for in a later turn with a call of their own", async () => {
    const h = harness();
    await h.cache.get("x");
    await h.cache.getMany(["x", "y"]);
    expect(h.loads).toEqual([["x"], ["y"]]);
  });

  it("keeps the held value when a refresh loads an equal one", async () => {
    let clock = 0;
    let value = { n: 1 };
    const cache = new RefreshingCache<{ n: number }>(
      async (keys) => new Map(keys.map((k) => [k, { ...value }])),
      {
        fallback: { n: 0 },
        refreshMs: 1000,
        max: 10,
        now: () => clock,
        equal: (a, b) => a.n === b.n,
      },
    );
    const first = await cache.get("k");
    clock += 1500;
    await cache.get("k");
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(await cache.get("k")).toBe(first);
    value = { n: 2 };
    clock += 1500;
    await cache.get("k");
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(await cache.get("k")).toEqual({ n: 2 });
  });

  it("gives the fallback for a key the loader leaves out, and keeps at most max keys", async () => {
    const h = harness();
    expect(await h.cache.get("absent")).toBe("none");
    await h.cache.getMany(["a", "b", "c"]);
    await h.cache.get("absent");
    expect(h.loads.at(-1)).toEqual(["absent"]);
  });

  it("lets a failed load fail its callers and tries again next time", async () => {
    let fail = true;
    const cache = new RefreshingCache<number>(
      async (keys) => {
        if (fail) throw new Error("down");
        return new Map(keys.map((k) => [k, 1]));
      },
      { fallback: 0, refreshMs: 1000, max: 10 },
    );
    await expect(cache.get("k")).rejects.toThrow("down");
    fail = false;
    expect(await cache.get("k")).toBe(1);
  });
});
