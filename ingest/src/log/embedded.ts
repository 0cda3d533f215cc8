import { EventEmitter } from "node:events";
import { encodeLoggedEvent, type LoggedEvent } from "@feedlab/schemas";
import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";
import {
  APPEND_LOCK,
  type AppendResult,
  type EventLog,
  type LogPosition,
  type LogRecord,
  recordErasure,
  type Scan,
  type ScanOptions,
  type SubscribeOptions,
  type Subscription,
} from "./event-log.ts";
import { groupCommit } from "./group-commit.ts";
import { createWriterResolver, tableSchemaSource } from "./writer-schemas.ts";

export interface EmbeddedLogOptions {
  readonly db: Knex;
  /** On PostgreSQL several processes may append, so appends take an advisory lock. */
  readonly multiProcess: boolean;
  /** How often a subscriber polls when nothing woke it (records appended by other processes). */
  readonly pollMs?: number;
  /**
   * Single process: a subscriber given fewer than `records` waits up to `ms` after the first of
   * them arrived for more (as Kafka's consumers do with fetch.min.bytes and fetch.max.wait.ms).
   */
  readonly linger?: { readonly ms: number; readonly records: number };
}

/** The projector's batches on the embedded database: at most 15 ms later, for 500 records or more. */
const LINGER = { ms: 15, records: 500 };

const num = (v: unknown) => Number(v);

/**
 * Appends records given as one JSON parameter (an array of {event_id, session_id, user_id, record},
 * the record base64): one short statement instead of three placeholders per record, which is much
 * less work to build, to pass to the database and for it to parse and plan. Records of erased
 * participants are left out (an erasure and an append in flight: appends and erasures hold the same
 * lock, so the append sees the erasure). Rows keep the batch's order (the anti-join may not).
 */
export const INSERT_RECORDS = `insert into event_log (event_id, session_id, record)
  select r.event_id, r.session_id, decode(r.record, 'base64')
  from rows from (json_to_recordset(?::json) as (event_id uuid, session_id uuid, user_id uuid, record text))
    with ordinality as r(event_id, session_id, user_id, record, ord)
  where not exists (select 1 from event_log_erasures x where x.user_id = r.user_id)
  order by r.ord
  on conflict (event_id) do nothing
  returning position, event_id`;

export interface PendingRow {
  readonly event_id: string;
  readonly session_id: string;
  readonly user_id: string;
  readonly record: Buffer;
}

/** INSERT_RECORDS's parameter. */
export function recordsJson(rows: readonly PendingRow[]): string {
  return JSON.stringify(
    rows.map((r) => ({
      event_id: r.event_id,
      session_id: r.session_id,
      user_id: r.user_id,
      record: r.record.toString("base64"),
    })),
  );
}

/**
 * The embedded event log: an append-only table (`event_log`) in the same database as the read
 * models. One partition; offsets are the table's positions. An append commits before it resolves,
 * so an acknowledged batch is durable; a repeated event_id is not written again.
 */
export function createEmbeddedLog({
  db,
  multiProcess,
  pollMs = 200,
  linger = LINGER,
}: EmbeddedLogOptions): EventLog {
  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  // This release's schema is published with its first append; other writers' are looked up when read.
  const schemas = tableSchemaSource(db);
  const resolveWriters = createWriterResolver(schemas);
  let published: Promise<unknown> | null = null;

  // Concurrent appends share one transaction (group commit); a failed group is retried batch by batch.
  const enqueue = groupCommit(write, { isolate: true });
  const append = (events: readonly LoggedEvent[]): Promise<AppendResult> =>
    events.length === 0 ? Promise.resolve({ position: new Map(), appended: 0 }) : enqueue(events);

  /** Writes several callers' batches in one transaction; returns each caller's result. */
  async function write(batches: readonly (readonly LoggedEvent[])[]): Promise<AppendResult[]> {
    published ??= schemas.publish().catch((err: unknown) => {
      published = null;
      throw err;
    });
    await published;
    const rows = new Map<string, PendingRow>();
    for (const batch of batches) {
      for (const e of batch) {
        if (!rows.has(e.event_id)) {
          rows.set(e.event_id, {
            event_id: e.event_id,
            session_id: e.session_id,
            user_id: e.user_id,
            record: encodeLoggedEvent(e),
          });
        }
      }
    }
    const positions = new Map<string, number>();
    const fresh = new Set<string>();
    const all = [...rows.values()];
    const insert = async (via: Knex | Knex.Transaction) => {
      for (let i = 0; i < all.length; i += 2000) {
        const inserted = rowsOf<{ position: string | number; event_id: string }>(
          await via.raw(INSERT_RECORDS, [recordsJson(all.slice(i, i + 2000))]),
        );
        for (const r of inserted) {
          positions.set(r.event_id, num(r.position));
          fresh.add(r.event_id);
        }
      }
    };
    // One statement commits alone: on the embedded database a group of appends then costs one round
    // trip to the database's thread, not three (begin, insert, commit).
    if (!multiProcess && all.length <= 2000) await insert(db);
    else
      await db.transaction(async (trx) => {
        if (multiProcess) await trx.raw("select pg_advisory_xact_lock(?)", [APPEND_LOCK]);
        await insert(trx);
      });
    // Events logged before (a client's retry): their positions, read after the insert committed.
    const repeated = all.filter((r) => !fresh.has(r.event_id)).map((r) => r.event_id);
    for (let i = 0; i < repeated.length; i += 2000) {
      const prior = (await db("event_log")
        .whereIn("event_id", repeated.slice(i, i + 2000))
        .select("position", "event_id")) as { position: string | number; event_id: string }[];
      for (const r of prior) positions.set(r.event_id, num(r.position));
    }
    if (fresh.size > 0) {
      const records: LogRecord[] = [];
      for (const r of rows.values()) {
        if (fresh.has(r.event_id))
          records.push({ partition: 0, offset: positions.get(r.event_id) ?? -1, value: r.record });
      }
      records.sort((a, b) => a.offset - b.offset);
      appended.emit("appended", records);
    }
    const counted = new Set<string>();
    return batches.map((batch) => {
      let max = -1;
      let n = 0;
      for (const e of batch) {
        max = Math.max(max, positions.get(e.event_id) ?? -1);
        if (fresh.has(e.event_id) && !counted.has(e.event_id)) {
          counted.add(e.event_id);
          n++;
        }
      }
      return { position: new Map([[0, max]]) as LogPosition, appended: n };
    });
  }

  async function read(
    partition: number,
    afterOffset: number,
    max: number,
    via?: Knex.Transaction,
  ): Promise<LogRecord[]> {
    if (partition !== 0) return [];
    const rows = (await (via ?? db)("event_log")
      .where("position", ">", afterOffset)
      .orderBy("position")
      .limit(max)
      .select("position", "record", "session_id")) as {
      position: string | number;
      record: Uint8Array;
      session_id: string;
    }[];
    const records: LogRecord[] = rows.map((r) => ({
      partition: 0,
      offset: num(r.position),
      value: r.record,
      original: { key: r.session_id, value: r.record, headers: {} },
    }));
    await resolveWriters(
      records.map((r) => r.value),
      via,
    );
    return records;
  }

  /** Reads after a position, to a limit or following (polling), in the caller's transaction if given. */
  function scan(o: ScanOptions): Scan {
    let stopped = false;
    let wake: (() => void) | null = null;
    const last = o.until?.get(0);
    const done = (async () => {
      let after = o.after.get(0) ?? -1;
      while (!stopped) {
        if (last !== undefined && after >= last) return;
        const want = last === undefined ? o.maxBatch : Math.min(o.maxBatch, last - after);
        const records = (await read(0, after, want, o.via)).filter(
          (r) => last === undefined || r.offset <= last,
        );
        if (records.length === 0) {
          if (last !== undefined) return;
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, pollMs);
            wake = () => {
              clearTimeout(t);
              resolve();
            };
            appended.once("appended", wake);
          });
          if (wake) appended.off("appended", wake);
          wake = null;
          continue;
        }
        await o.onBatch(records);
        after = (records[records.length - 1] as LogRecord).offset;
      }
    })();
    return {
      done,
      stop: async () => {
        stopped = true;
        wake?.();
        await done.catch(() => {});
      },
    };
  }

  /**
   * Delivers batches in log order. Multi-process (PostgreSQL): reads the table after the stored
   * checkpoint, woken by local appends or by polling. Single process (PGlite, guarded by the folder
   * lock): every record is appended here, so after catching up from the table the subscriber takes
   * records straight from the append path (no read-back), falling back to the table if it lags
   * more than `TAIL_LIMIT` records.
   */
  function subscribe(options: SubscribeOptions): Subscription {
    const TAIL_LIMIT = 100_000;
    let stopped = false;
    let wake: (() => void) | null = null;
    let tail: LogRecord[] = [];
    let fromTable = true;
    /** When the oldest record not yet delivered from the tail arrived. */
    let pendingSince = 0;
    const onAppend = (records: readonly LogRecord[]) => {
      if (!multiProcess) {
        if (tail.length === 0) pendingSince = performance.now();
        if (tail.length + records.length > TAIL_LIMIT) {
          tail = [];
          fromTable = true;
        } else tail.push(...records);
      }
      wake?.();
    };
    appended.on("appended", onAppend);
    const sleep = (ms: number) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(done, ms);
        function done() {
          clearTimeout(t);
          wake = null;
          resolve();
        }
        wake = done;
      });
    const loop = (async () => {
      let backoff = 100;
      let delivered = -1;
      let started = false;
      while (!stopped) {
        try {
          if (!started) {
            delivered = await options.checkpoint(0);
            started = true;
          }
          let records: LogRecord[];
          if (fromTable || multiProcess) {
            if (multiProcess) delivered = await options.checkpoint(0);
            records = await read(0, delivered, options.maxBatch);
            if (records.length < options.maxBatch && !multiProcess) fromTable = false;
          } else {
            while (tail.length > 0 && (tail[0] as LogRecord).offset <= delivered) tail.shift();
            const first = tail[0];
            if (first && first.offset !== delivered + 1) {
              // A gap: positions skipped by a deduplicated insert, or rows written another way.
              // The table decides.
              fromTable = true;
              continue;
            }
            // A small batch waits a little for more (appends wake it): per event, a larger one costs
            // the database less, which at a steady load shortens the lag more than the wait adds.
            const wait = pendingSince + linger.ms - performance.now();
            if (tail.length > 0 && tail.length < Math.min(linger.records, options.maxBatch) && wait > 0) {
              await sleep(wait);
              continue;
            }
            records = tail.splice(0, options.maxBatch);
          }
          if (records.length === 0) {
            await sleep(pollMs);
            continue;
          }
          await options.onBatch(records);
          delivered = (records[records.length - 1] as LogRecord).offset;
          backoff = 100;
        } catch (err) {
          options.onError?.(err);
          // Start again from the stored checkpoint: the batch was not applied.
          started = false;
          fromTable = true;
          await sleep(backoff);
          backoff = Math.min(backoff * 2, 5000);
        }
      }
    })();
    return {
      stop: async () => {
        stopped = true;
        appended.off("appended", onAppend);
        wake?.();
        await loop;
      },
    };
  }

  return {
    kind: "embedded",
    append,
    read,
    subscribe,
    scan,
    firstOffsets: async () => new Map([[0, 0]]),
    position: async () => {
      const r = await db("event_log").max({ m: "position" }).first<{ m: string | number | null }>();
      return new Map([[0, num(r?.m ?? -1)]]);
    },
    erase: async ({ userIds, sessionIds }, via) => {
      // Appends wait (PGlite has one connection; PostgreSQL appends take this lock).
      await via.raw("select pg_advisory_xact_lock(?)", [APPEND_LOCK]);
      await recordErasure(via, userIds, new Date());
      let records = 0;
      for (let i = 0; i < sessionIds.length; i += 5000) {
        records += rowsOf<{ n: string | number }>(
          await via.raw(
            `with gone as (delete from event_log where session_id in
               (select value::uuid from json_array_elements_text(?::json)) returning 1)
             select count(*) as n from gone`,
            [JSON.stringify(sessionIds.slice(i, i + 5000))],
          ),
        ).reduce((a, r) => a + Number(r.n), 0);
      }
      return { records, keys: 0, afterCommit: async () => {} };
    },
    healthcheck: async () => {
      await db.raw("select 1 from event_log limit 1");
    },
    close: async () => {
      appended.removeAllListeners();
    },
  };
}
