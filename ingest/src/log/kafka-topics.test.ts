import { randomBytes, randomUUID } from "node:crypto";
import { Partitioners } from "kafkajs";
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

  it("places any key as kafkajs's Java-compatible partitioner does, multi-byte characters too", () => {
    const java = Partitioners.DefaultPartitioner();
    const keys = [
      "",
      "a",
      "ab",
      "abc",
      "Grüße, 参加者 🎬",
      "参".repeat(200),
      ...Array.from({ length: 500 }, () => randomUUID()),
      ...Array.from({ length: 200 }, (_, i) => randomBytes(i % 37).toString("latin1")),
    ];
    for (const partitions of [1, 6, 7, 12]) {
      const metadata = Array.from({ length: partitions }, (_, partitionId) => ({ partitionId, leader: 0 }));
      for (const key of keys) {
        const theirs = java({
          topic: "",
          partitionMetadata: metadata as never,
          message: { key, value: null },
        });
        expect([key, partitionOf(key, partitions)]).toEqual([key, theirs]);
      }
    }
  });

  // 32-bit FNV-1a of these keys and the partitions releases before 0.3 gave them, computed once with
  // an implementation independent of ours (Python, over the UTF-8 bytes); "foobar" is 0xbf9cf968 in
  // the published FNV test vectors.
  const FNV1A = [
    { key: "21", hash: 2364708844, p6: 4, p12: 4 },
    { key: "foobar", hash: 0xbf9cf968, p6: 4, p12: 4 },
    { key: "a-little-bit-long-string", hash: 3718449192, p6: 0, p12: 0 },
    { key: "00000000-0000-4000-8000-00000005e551", hash: 1767375894, p6: 0, p12: 6 },
    { key: "9b2f3c1e-7a44-4d0e-9a51-2f6c1d8e0b7a", hash: 3854619842, p6: 2, p12: 2 },
  ];

  it("keeps the FNV-1a placement of topics made by earlier releases when asked", () => {
    for (const { key, hash, p6, p12 } of FNV1A) {
      expect([key, fnv1a(key), partitionOf(key, 6, "fnv1a"), partitionOf(key, 12, "fnv1a")]).toEqual([
        key,
        hash,
        p6,
        p12,
      ]);
    }
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
