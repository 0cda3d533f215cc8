import type { LogRecord } from "@feedlab/ingest";
import { LOG_HEADERS } from "@feedlab/ingest";
import type { Knex } from "knex";
import type { LogPlace } from "../ops.ts";

// Dead letters: records the projector cannot apply (undecodable, or data the database refuses),
// kept as the log holds them so that `feedlab dlq` can show and re-drive them (redrive.ts).

export interface DeadLetter {
  readonly place: LogPlace;
  readonly eventId: string | null;
  readonly reason: string;
  /** The record as the log holds it (on Kafka still encrypted: erasure reaches it there too). */
  readonly value: Uint8Array | null;
  /** The record's key (the session id) and headers. */
  readonly key: string | null;
  readonly headers: Readonly<Record<string, string>> | null;
}

/**
 * A dead letter of a log record, keeping the record as the log holds it; its event id where the log
 * decoded the record or named the event in a header.
 */
export function deadLetterOf(r: LogRecord, reason: string): DeadLetter {
  return {
    place: { partition: r.partition, offset: r.offset },
    eventId: r.event?.event_id ?? r.original?.headers[LOG_HEADERS.eventId] ?? null,
    reason,
    value: r.original?.value ?? r.value,
    key: r.original?.key ?? null,
    headers: r.original?.headers ?? null,
  };
}

/** Stores dead letters in the batch's transaction; a letter already stored for the place stays. */
export async function recordDeadLetters(
  trx: Knex.Transaction,
  consumer: string,
  dead: readonly DeadLetter[],
): Promise<void> {
  if (dead.length === 0) return;
  await trx("dead_letters")
    .insert(
      dead.map((d) => ({
        consumer,
        partition: d.place.partition,
        log_offset: d.place.offset,
        event_id: d.eventId,
        reason: d.reason.slice(0, 2000),
        record: d.value ? Buffer.from(d.value) : null,
        record_key: d.key,
        record_headers: d.headers ? JSON.stringify(d.headers) : null,
      })),
    )
    .onConflict(["consumer", "partition", "log_offset"])
    .ignore();
}

/**
 * Deletes the dead letters of these sessions' records (a letter keeps its record's key, the session
 * id): erasure takes a participant's records out of the dead letters too. Answers how many went.
 */
export async function deleteSessionsDeadLetters(
  trx: Knex.Transaction,
  sessionIds: readonly string[],
): Promise<number> {
  return trx("dead_letters")
    .whereRaw("record_key in (select value from json_array_elements_text(?::json))", [
      JSON.stringify(sessionIds),
    ])
    .delete();
}

/** Deletes every dead letter of `consumer` (a full replay applies the whole log again). */
export async function deleteConsumerDeadLetters(trx: Knex.Transaction, consumer: string): Promise<void> {
  await trx("dead_letters").where({ consumer }).delete();
}
