import type { LogPosition } from "@feedlab/ingest";
import type { Migration, Sql } from "@feedlab/sql";
import type { Knex } from "knex";

/**
 * The consumer's own tables: the offsets it applied (written in the same transaction as the rows they
 * produced) and the records it could not apply, with the reason (the stream moves on past them).
 */
export const consumerMigrations: readonly Migration[] = [
  {
    name: "projector/001-consumer",
    async up(db) {
      await db.schema.createTable("consumer_checkpoints", (t) => {
        t.string("consumer", 100).notNullable();
        t.integer("partition").notNullable();
        t.bigInteger("log_offset").notNullable();
        t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.primary(["consumer", "partition"]);
      });
      await db.schema.createTable("dead_letters", (t) => {
        t.bigIncrements("id").primary();
        t.string("consumer", 100).notNullable();
        t.integer("partition").notNullable();
        t.bigInteger("log_offset").notNullable();
        t.uuid("event_id");
        t.text("reason").notNullable();
        t.binary("record");
        t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.unique(["consumer", "partition", "log_offset"]);
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists("dead_letters");
      await db.schema.dropTableIfExists("consumer_checkpoints");
    },
  },
  {
    // Dead letters keep the record's key (the session id) and headers, as the log held them, so
    // that they can be re-driven and erased with their participant.
    name: "projector/002-dead-letter-source",
    async up(db) {
      await db.schema.alterTable("dead_letters", (t) => {
        t.text("record_key");
        t.jsonb("record_headers");
        t.index(["record_key"]);
      });
    },
    async down(db) {
      await db.schema.alterTable("dead_letters", (t) => {
        t.dropIndex(["record_key"]);
        t.dropColumn("record_headers");
        t.dropColumn("record_key");
      });
    },
  },
];

export const DEFAULT_CONSUMER = "projector";

/**
 * Advisory lock key of a consumer's partition: a partition's batches apply one at a time even when
 * several projector processes (or a rebalance) deliver it twice. Two-key form: (consumer, partition).
 */
function consumerLockKey(consumer: string): number {
  let h = 0x7072_6f6a;
  for (const c of consumer) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return h;
}

/** Takes the consumer's partition locks for the partitions of a batch, in order (no deadlock). */
export async function lockPartitions(
  trx: Knex.Transaction,
  consumer: string,
  partitions: Iterable<number>,
): Promise<void> {
  for (const p of [...new Set(partitions)].sort((a, b) => a - b)) {
    await trx.raw("select pg_advisory_xact_lock(?, ?)", [consumerLockKey(consumer), p]);
  }
}

/** The consumer's applied position: per partition, the last offset applied. */
export async function readCheckpoints(sql: Sql, consumer: string): Promise<Map<number, number>> {
  const rows = (await sql("consumer_checkpoints").where({ consumer }).select("partition", "log_offset")) as {
    partition: number;
    log_offset: string | number;
  }[];
  return new Map(rows.map((r) => [r.partition, Number(r.log_offset)]));
}

export async function writeCheckpoints(
  trx: Knex.Transaction,
  consumer: string,
  reached: LogPosition,
): Promise<void> {
  if (reached.size === 0) return;
  await trx("consumer_checkpoints")
    .insert(
      [...reached].map(([partition, log_offset]) => ({
        consumer,
        partition,
        log_offset,
        updated_at: new Date(),
      })),
    )
    .onConflict(["consumer", "partition"])
    .merge(["log_offset", "updated_at"]);
}
