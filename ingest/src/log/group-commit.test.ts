import { describe, expect, it } from "vitest";
import { groupCommit } from "./group-commit.ts";

describe("groupCommit", () => {
  it("writes batches that arrive during a write together, giving each caller its own result", async () => {
    const writes: number[][] = [];
    const commit = groupCommit(
      async (batches: readonly number[]) => {
        writes.push([...batches]);
        await new Promise((r) => setTimeout(r, 5));
        return batches.map((b) => b * 10);
      },
      { isolate: false },
    );
    const results = await Promise.all([commit(1), commit(2), commit(3), commit(4)]);
    expect(results).toEqual([10, 20, 30, 40]);
    expect(writes).toEqual([[1], [2, 3, 4]]);
  });

  it("retries a failed group batch by batch when isolating, so only the bad batch fails", async () => {
    const commit = groupCommit(
      async (batches: readonly number[]) => {
        await new Promise((r) => setTimeout(r, 1));
        if (batches.includes(13)) throw new Error("bad batch");
        return batches.map((b) => b + 1);
      },
      { isolate: true },
    );
    const settled = await Promise.allSettled([commit(1), commit(2), commit(13), commit(4)]);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect(settled[3]).toMatchObject({ value: 5 });
  });

  it("fails every caller of a failed group when not isolating (a broker that is down fails them all)", async () => {
    const commit = groupCommit(
      async (batches: readonly number[]) => {
        await new Promise((r) => setTimeout(r, 1));
        if (batches.length > 1) throw new Error("unavailable");
        return [...batches];
      },
      { isolate: false },
    );
    const settled = await Promise.allSettled([commit(1), commit(2), commit(3)]);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "rejected"]);
  });
});
