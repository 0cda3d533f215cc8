import { describe, expect, it } from "vitest";
import { fnv1a, partitionOf, retentionProblem } from "./kafka-topics.ts";

describe("where a session's records go", () => {
  // Partitions the Java client (kafka-clients 3.9.1, Utils.toPositive(Utils.murmur2(key)) % n) gives
  // these keys, computed with jshell against the jar.
  const JAVA = [
    { key: "21", p6: 0, p12: 0 },
    { key: "foobar", p6: 0, p12: 6 },
    { key: "a-little-bit-long-string", p6: 2, p12: 8 },
    { key: "00000000-0000-4000-8000-00000005e551", p6: 4, p12: 10 },
    { key: "9b2f3c1e-7a44-4d0e-9a51-2f6c1d8e0b7a", p6: 1, p12: 7 },
  ];

  it("places a session where the Java client's default partitioner puts a record keyed by its id", () => {
    for (const { key, p6, p12 } of JAVA) {
      expect([partitionOf(key, 6), partitionOf(key, 12)]).toEqual([p6, p12]);
    }
  });

  it("keeps the FNV-1a placement of topics made by earlier releases when asked", () => {
    const id = "9b2f3c1e-7a44-4d0e-9a51-2f6c1d8e0b7a";
    expect(partitionOf(id, 6, "fnv1a")).toBe(fnv1a(id) % 6);
  });
});

describe("a topic's retention", () => {
  it("is no problem when records are kept forever", () => {
    expect(
      retentionProblem("t", { cleanupPolicy: "delete", retentionMs: -1, retentionBytes: -1 }),
    ).toBeNull();
  });

  it("is named with the limit and the command that lifts it when the topic deletes old records", () => {
    const problem = retentionProblem("t", {
      cleanupPolicy: "delete",
      retentionMs: 7 * 86_400_000,
      retentionBytes: -1,
    });
    expect(problem).toMatch(/deletes records older than 7 days \(retention.ms=604800000\)/);
    expect(problem).toMatch(/retention.ms=-1,retention.bytes=-1/);
  });

  it("is named when the topic is compacted", () => {
    expect(retentionProblem("t", { cleanupPolicy: "compact", retentionMs: -1, retentionBytes: -1 })).toMatch(
      /compacted/,
    );
  });
});
