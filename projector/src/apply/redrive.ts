import type { EventLog } from "@feedlab/ingest";
import type { Knex } from "knex";
import { DEFAULT_CONSUMER, lockPartitions } from "../consumer/checkpoints.ts";
import { PROJECTIONS } from "../read-models/index.ts";
import { applyOneByOne } from "./apply.ts";

/** A dead letter as `feedlab dlq` lists it. */
export interface DeadLetterRow {
  readonly id: number;
  readonly consumer: string;
  readonly partition: number;
  readonly offset: number;
  readonly event_id: string | null;
  readonly reason: string;
  readonly created_at: string;
}

/** The dead letters of a consumer, oldest first. */
export async function listDeadLetters(db: Knex, consumer = DEFAULT_CONSUMER): Promise<DeadLetterRow[]> {
  const rows = (await db("dead_letters")
    .where({ consumer })
    .orderBy("id")
    .select("id", "consumer", "partition", "log_offset", "event_id", "reason", "created_at")) as {
    id: string | number;
    consumer: string;
    partition: number;
    log_offset: string | number;
    event_id: string | null;
    reason: string;
    created_at: Date;
  }[];
  return rows.map((r) => ({
    id: Number(r.id),
    consumer: r.consumer,
    partition: r.partition,
    offset: Number(r.log_offset),
    event_id: r.event_id,
    reason: r.reason,
    created_at: new Date(r.created_at).toISOString(),
  }));
}

export interface RedriveResult {
  /** Applied now (or nothing left to apply: an erased participant's, a copy already stored). */
  readonly resolved: number;
  /** Still failing, with the reason of this try. */
  readonly failing: readonly {
    readonly partition: number;
    readonly offset: number;
    readonly reason: string;
  }[];
}

/**
 * Re-drives dead letters after a fix (a newer writer's schema published, a bug fixed in a new
 * release): reads each record again from the log where it sits and applies it with the projections,
 * one record at a time. A record that applies (or needs nothing: its participant was erased, or its
 * event is stored already) leaves the dead letters; one that still fails stays, with the new reason.
 */
export async function redriveDeadLetters(options: {
  db: Knex;
  log: Pick<EventLog, "read">;
  multiProcess: boolean;
  consumer?: string;
  onProgress?: (done: number, total: number) => void;
}): Promise<RedriveResult> {
  const consumer = options.consumer ?? DEFAULT_CONSUMER;
  const letters = await listDeadLetters(options.db, consumer);
  let resolved = 0;
  const failing: { partition: number; offset: number; reason: string }[] = [];
  for (const [i, letter] of letters.entries()) {
    const [record] = await options.log.read(letter.partition, letter.offset - 1, 1);
    let reason: string | null = null;
    if (!record || record.offset !== letter.offset) {
      reason = "the record is no longer in the log";
      await options.db("dead_letters").where({ id: letter.id }).update({ reason });
    } else {
      await options.db.transaction(async (trx: Knex.Transaction) => {
        if (options.multiProcess) await lockPartitions(trx, consumer, [letter.partition]);
        // Its own dead letter goes; a record that still fails is dead-lettered again with the new reason.
        await trx("dead_letters").where({ id: letter.id }).delete();
        const r = await applyOneByOne(trx, [record], PROJECTIONS, consumer);
        reason = r.dead[0]?.reason ?? null;
      });
    }
    if (reason === null) resolved++;
    else failing.push({ partition: letter.partition, offset: letter.offset, reason });
    options.onProgress?.(i + 1, letters.length);
  }
  return { resolved, failing };
}
