import { decodeLoggedEvent, type LoggedEvent } from "@feedlab/schemas";
import type { Knex } from "knex";
import { applyOps } from "./apply.ts";
import type { LogPlace } from "./ops.ts";
import { eventsProjection, type Projection } from "./projections/index.ts";

/** A log record as the projector receives it (the shape of `@feedlab/ingest`'s LogRecord). */
export interface RawRecord extends LogPlace {
  readonly value: Uint8Array;
}

export interface DeadLetter {
  readonly place: LogPlace;
  readonly eventId: string | null;
  readonly reason: string;
  readonly value: Uint8Array | null;
}

/** True for database errors caused by the data (SQLSTATE classes 22, 23, 42), not by the infrastructure. */
export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^(22|23|42)/.test(code);
}

/**
 * Applies decoded records to the given projections inside the caller's transaction. The events
 * store goes first; every other projection applies an event only where the events store recorded
 * its first copy, so repeated records and replays never count twice. Undecodable records become
 * dead letters.
 */
export async function applyRecords(
  trx: Knex.Transaction,
  records: readonly RawRecord[],
  projections: readonly Projection[],
  consumer: string,
): Promise<{ applied: number; dead: DeadLetter[] }> {
  const decoded: { event: LoggedEvent; place: LogPlace }[] = [];
  const dead: DeadLetter[] = [];
  for (const r of records) {
    try {
      decoded.push({
        event: decodeLoggedEvent(r.value),
        place: { partition: r.partition, offset: r.offset },
      });
    } catch (err) {
      dead.push({
        place: r,
        eventId: null,
        reason: `undecodable record: ${(err as Error).message}`,
        value: r.value,
      });
    }
  }
  const others = projections.filter((p) => p !== eventsProjection);
  let fresh = decoded;
  if (projections.includes(eventsProjection)) {
    // Live (and full replay): the events rows this batch created are the first copies.
    const inserted = await applyOps(
      trx,
      decoded.flatMap((d) => eventsProjection.project(d.event, d.place)),
    );
    const created = new Set(inserted.get("events") ?? []);
    fresh = decoded.filter((d) => created.delete(d.event.event_id));
  } else if (others.length > 0 && decoded.length > 0) {
    // Partial replay: the events store is intact; apply where it recorded the first copy.
    const firstPlace = new Map<string, string>();
    const ids = [...new Set(decoded.map((d) => d.event.event_id))];
    for (let i = 0; i < ids.length; i += 5000) {
      const rows = (await trx("events")
        .whereIn("event_id", ids.slice(i, i + 5000))
        .select("event_id", "log_partition", "log_offset")) as {
        event_id: string;
        log_partition: number;
        log_offset: string | number;
      }[];
      for (const r of rows) firstPlace.set(r.event_id, `${r.log_partition}:${Number(r.log_offset)}`);
    }
    fresh = decoded.filter(
      (d) => firstPlace.get(d.event.event_id) === `${d.place.partition}:${d.place.offset}`,
    );
  }
  if (others.length > 0 && fresh.length > 0) {
    await applyOps(
      trx,
      fresh.flatMap((d) => others.flatMap((p) => p.project(d.event, d.place))),
    );
  }
  const applied = fresh.length;
  await recordDeadLetters(trx, consumer, dead);
  return { applied, dead };
}

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
      })),
    )
    .onConflict(["consumer", "partition", "log_offset"])
    .ignore();
}
