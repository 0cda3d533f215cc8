import type { Knex } from "knex";
import type { Logger } from "pino";
import { type Placement, partitionOf } from "../kafka-topics.ts";
import type { KafkaLogContext } from "./context.ts";
import type { KafkaScan } from "./scan.ts";

/**
 * How the topic places sessions, decided once per topic and kept in the database
 * (`event_log_topics`), so that later starts read a row instead of the topic. A topic keeps its
 * placement, so that a session's records never change partition.
 */
export async function placementOf(
  db: Knex,
  ctx: KafkaLogContext,
  scan: KafkaScan,
  logger: Logger,
): Promise<Placement> {
  const { topic } = ctx;
  const stored = async () =>
    (
      (await db("event_log_topics").where({ topic }).first("placement")) as
        | { placement: Placement }
        | undefined
    )?.placement;
  const known = await stored();
  if (known) return known;
  const detected = await detectPlacement(ctx, scan, logger);
  await db("event_log_topics").insert({ topic, placement: detected }).onConflict("topic").ignore();
  // Another process may have decided first: its decision holds.
  return (await stored()) ?? detected;
}

/**
 * murmur2 (the Java client's default) unless the topic was filled by a release that placed
 * sessions by FNV-1a, seen from where its newest records sit.
 */
async function detectPlacement(
  { client, topic, partitions }: KafkaLogContext,
  scan: KafkaScan,
  logger: Logger,
): Promise<Placement> {
  if (partitions === 1) return "murmur2";
  const offsets = await client.offsets(topic);
  const newest = offsets.filter((o) => o.high > o.low).slice(0, 4);
  if (newest.length === 0) return "murmur2";
  const keyed: { partition: number; key: string }[] = [];
  const s = scan({
    after: new Map(newest.map((o) => [o.partition, o.high - 2])),
    until: new Map(newest.map((o) => [o.partition, o.high - 1])),
    maxBatch: 10,
    raw: true,
    onBatch: async (records) => {
      for (const r of records)
        if (r.original?.key) keyed.push({ partition: r.partition, key: r.original.key });
    },
  });
  await s.done;
  const fits = (p: Placement) => keyed.every((k) => partitionOf(k.key, partitions, p) === k.partition);
  if (keyed.length > 0 && !fits("murmur2") && fits("fnv1a")) {
    logger.warn(
      { topic },
      "this topic places sessions by FNV-1a (it was created by a release before 0.3); Feedlab keeps that placement so sessions stay in order. New topics use the Java client's default partitioner.",
    );
    return "fnv1a";
  }
  return "murmur2";
}
