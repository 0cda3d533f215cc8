import { describe, expect, it } from "vitest";
import { videoRows } from "../../../test/harness/fixtures.ts";
import {
  createRandomRecommender,
  randomSeedText,
  seedOf,
  sfc32,
  shuffled,
} from "./builtins/random.recommender.ts";
import { buildPool } from "./pool.ts";
import { pageOfChain, type RecommendRequest } from "./recommender.ts";

const rows = (n: number) =>
  videoRows(n, (i) => ({
    url: `https://cdn.example/${i}.mp4`,
    resolved_url: `https://cdn.example/${i}.mp4`,
    ...(i === 3 ? { published_at: null } : {}),
  }));

const pool = buildPool("e", rows(10));
const request = (over: Partial<RecommendRequest> = {}): RecommendRequest => ({
  surface: "feed",
  experimentId: "e",
  userId: "u",
  sessionId: "s",
  pool,
  current: null,
  limit: 4,
  offset: 0,
  excluded: new Uint8Array(pool.size),
  watched: [],
  params: {},
  ...over,
});

describe("paging a chain of orders", () => {
  it("orders the pool newest first, unknown dates last", () => {
    expect(Array.from(pool.recency)).toEqual([9, 8, 7, 6, 5, 4, 2, 1, 0, 3]);
  });

  it("skips excluded and repeated indices, then the offset, and stops at the limit", () => {
    const excluded = new Uint8Array(pool.size);
    excluded[1] = 1;
    const chain = [
      [2, 1, 2, 5],
      [5, 0, 9, 8, 7],
    ];
    expect(pageOfChain(request({ excluded, offset: 0, limit: 3 }), chain)).toEqual([2, 5, 0]);
    expect(pageOfChain(request({ excluded, offset: 2, limit: 3 }), chain)).toEqual([0, 9, 8]);
    expect(pageOfChain(request({ excluded, offset: 6, limit: 3 }), chain)).toEqual([]);
  });

  it("ignores indices outside the pool", () => {
    expect(pageOfChain(request({ limit: 5 }), [[-1, 99, 4]])).toEqual([4]);
  });
});

describe("the random recommender", () => {
  const random = createRandomRecommender();

  it("shuffles lazily with the same prefix as a full shuffle", () => {
    const base = Int32Array.from({ length: 50 }, (_, i) => i);
    const full = [...shuffled(base, sfc32(seedOf("x")))];
    const prefix: number[] = [];
    for (const i of shuffled(base, sfc32(seedOf("x")))) {
      prefix.push(i);
      if (prefix.length === 10) break;
    }
    expect(prefix).toEqual(full.slice(0, 10));
    expect([...full].sort((a, b) => a - b)).toEqual([...base]);
  });

  it("gives a session the same order on every request and pages without repeats", async () => {
    const first = await random.recommend(request({ limit: 5 }));
    expect(await random.recommend(request({ limit: 5 }))).toEqual(first);
    const second = await random.recommend(request({ limit: 5, offset: 5 }));
    expect(new Set([...first, ...second]).size).toBe(10);
  });

  it("gives another session another order", async () => {
    const a = await random.recommend(request({ limit: 10 }));
    const orders = await Promise.all(
      ["s2", "s3", "s4"].map((sessionId) => random.recommend(request({ sessionId, limit: 10 }))),
    );
    expect(orders.some((o) => o.join() !== a.join())).toBe(true);
  });

  it("seeds the watch page with the current video", () => {
    expect(randomSeedText(request({ surface: "watch", current: { id: "v", index: 1 } }))).toBe("e:s:watch:v");
  });
});
