import type { LogRecord } from "@feedlab/ingest";
import { erasedAmongStatement, erasedOf, eventOf } from "@feedlab/ingest";
import type { EventType, LoggedEvent } from "@feedlab/schemas";
import { pipelined } from "@feedlab/sql";
import type { Knex } from "knex";
import { ERASE_LOCK } from "../erasure/erase.ts";
import type { LogPlace } from "../ops.ts";
import type { Projection } from "../read-model.ts";
import { eventsProjection, firstPlaces, placeKey } from "../read-models/index.ts";
import { type DeadLetter, deadLetterOf, recordDeadLetters } from "./dead-letters.ts";
import { isDataError } from "./errors.ts";
import { applyOps, type OpsPlan, planOps, runPlan } from "./plan.ts";

// How a batch of log records becomes rows: decode each record, let the events store gate first
// copies, ask every projection for its row operations (then its settle step), and write the
// operations as a few multi-row statements (plan.ts). The live projector and replay both apply
// through here.

/** What applying records did: how many applied, the dead letters, and the events applied. */
export interface Applied {
  readonly applied: number;
  readonly dead: DeadLetter[];
  /** The events the projections applied (first copies; not repeats, erased or dead records). */
  readonly events: LoggedEvent[];
}

/** A record decoded, with its place in the log. */
interface Decoded {
  readonly event: LoggedEvent;
  readonly place: LogPlace;
}

/**
 * A batch made ready before its transaction: the records decoded (undecodable ones as dead letters)
 * and the statements of the events store and of the other projections for every decoded record, the
 * common case (no record repeated, applied before, or of an erased participant). `applyRecords`
 * builds again only what a different case changes.
 */
export interface PreparedBatch {
  readonly records: readonly LogRecord[];
  readonly decoded: readonly Decoded[];
  readonly dead: readonly DeadLetter[];
  readonly eventsPlan: OpsPlan | null;
  readonly othersPlan: OpsPlan | null;
}

/** Decodes `records` and builds their statements (no database). */
export function prepareBatch(
  records: readonly LogRecord[],
  projections: readonly Projection[],
): PreparedBatch {
  const decoded: Decoded[] = [];
  const dead: DeadLetter[] = [];
  for (const r of records) {
    // A record of an erased participant that the log could not delete (Kafka: its key is gone).
    if (r.erased) continue;
    try {
      decoded.push({
        event: eventOf(r),
        place: { partition: r.partition, offset: r.offset },
      });
    } catch (err) {
      dead.push(deadLetterOf(r, `undecodable record: ${(err as Error).message}`));
    }
  }
  const others = projections.filter((p) => p !== eventsProjection);
  return {
    records,
    decoded,
    dead,
    eventsPlan: projections.includes(eventsProjection) ? planOps(eventsOps(decoded)) : null,
    othersPlan: others.length > 0 ? planOps(othersOps(decoded, others)) : null,
  };
}

const eventsOps = (decoded: readonly Decoded[]) =>
  decoded.flatMap((d) => eventsProjection.project(d.event, d.place));
const othersOps = (decoded: readonly Decoded[], others: readonly Projection[]) =>
  decoded.flatMap((d) =>
    others.flatMap((p) => (handles(p, d.event.event_type) ? p.project(d.event, d.place) : [])),
  );

/** Advisory lock class of a participant's settle steps (two-key form: class, hash of the participant). */
const SETTLE_LOCK = 0x7365_7474; // "sett"

/** Takes the settle locks of `users` for the transaction, in the order of their keys. */
const participantLocks = (trx: Knex.Transaction, users: readonly string[]) =>
  trx.raw(
    `select count(pg_advisory_xact_lock(?, h))
       from (select distinct hashtext(u) as h from unnest(?::text[]) u order by h) s`,
    [SETTLE_LOCK, [...users]],
  );

/** Whether a projection acts on events of `type` (its `canHandle`); the others it never asks. */
const handles = (p: Projection, type: EventType) => p.canHandle === "all" || p.canHandle.includes(type);

/**
 * Applies decoded records to the given projections inside the caller's transaction. The events
 * store goes first; every other projection applies an event only where the events store recorded
 * its first copy, so repeated records and replays never count twice. Then the projections' settle
 * steps run, in order, on what the row operations made. Undecodable records become dead letters.
 * `prepared` (of the same records and projections) saves building the statements here.
 */
export async function applyRecords(
  trx: Knex.Transaction,
  records: readonly LogRecord[],
  projections: readonly Projection[],
  consumer: string,
  prepared?: PreparedBatch,
): Promise<Applied> {
  const batch = prepared?.records === records ? prepared : prepareBatch(records, projections);
  const { dead } = batch;
  let { decoded, eventsPlan, othersPlan } = batch;
  const users = [...new Set(decoded.map((d) => d.event.user_id))];
  const others = projections.filter((p) => p !== eventsProjection);
  // Erasures wait for this batch, and this batch leaves out whoever an erasure before it took away.
  // A settle step reads what the participant's earlier events made (co-views: their earlier videos);
  // two batches of one participant (two sessions on two partitions, applied at once) would each miss
  // what the other is writing, so a participant's batches settle one at a time. (The statements go
  // in one round trip; the locks are taken in the order of their keys, so no two batches deadlock.)
  const [, answer] = await pipelined(trx, [
    trx.raw("select pg_advisory_xact_lock_shared(?)", [ERASE_LOCK]),
    erasedAmongStatement(trx, users),
    ...(others.some((p) => p.settle) && users.length > 0 ? [participantLocks(trx, users)] : []),
  ]);
  const erased = erasedOf(answer);
  if (erased.size > 0) {
    decoded = decoded.filter((d) => !erased.has(d.event.user_id));
    eventsPlan = eventsPlan && planOps(eventsOps(decoded));
    othersPlan = null;
  }
  let fresh = decoded;
  if (eventsPlan) {
    // Live (and full replay): the events rows this batch created are the first copies.
    const inserted = await runPlan(trx, eventsPlan);
    const created = new Set(inserted.get("events") ?? []);
    fresh = decoded.filter((d) => created.delete(d.event.event_id));
  } else if (others.length > 0 && decoded.length > 0) {
    // Partial replay: the events store is intact; apply where it recorded the first copy.
    const first = await firstPlaces(trx, [...new Set(decoded.map((d) => d.event.event_id))]);
    fresh = decoded.filter(
      (d) => first.get(d.event.event_id) === placeKey(d.place.partition, d.place.offset),
    );
  }
  if (others.length > 0 && fresh.length > 0) {
    // The prepared statements hold every decoded record: they serve when all of them are first copies.
    const plan =
      othersPlan && fresh.length === batch.decoded.length ? othersPlan : planOps(othersOps(fresh, others));
    const inserted = await runPlan(trx, plan);
    const events = fresh.map((d) => d.event);
    for (const p of others) {
      if (p.settle) await applyOps(trx, await p.settle({ sql: trx, events, inserted }));
    }
  }
  const applied = fresh.length;
  await recordDeadLetters(trx, consumer, dead);
  return { applied, dead: [...dead], events: fresh.map((d) => d.event) };
}

/**
 * Applies records one at a time, each in a savepoint: a record whose data the database refuses goes
 * to the dead letters (`cannot apply: ...`) and the others apply. What the live projector and replay
 * fall back to when a whole batch failed on bad data, and how a dead letter is re-driven.
 */
export async function applyOneByOne(
  trx: Knex.Transaction,
  records: readonly LogRecord[],
  projections: readonly Projection[],
  consumer: string,
  onRefused?: (record: LogRecord, err: unknown) => void,
): Promise<Applied> {
  let applied = 0;
  const dead: DeadLetter[] = [];
  const events: LoggedEvent[] = [];
  for (const record of records) {
    try {
      const r = await trx.transaction((sp) => applyRecords(sp, [record], projections, consumer));
      applied += r.applied;
      dead.push(...r.dead);
      events.push(...r.events);
    } catch (err) {
      if (!isDataError(err)) throw err;
      const letter = deadLetterOf(record, `cannot apply: ${(err as Error).message}`);
      await recordDeadLetters(trx, consumer, [letter]);
      dead.push(letter);
      onRefused?.(record, err);
    }
  }
  return { applied, dead, events };
}
