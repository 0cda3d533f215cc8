// The engine floors of the intake benchmarks: the same rows Feedlab writes for the same events (the
// log's records, the events store, every read model and the consumer's checkpoint), written straight
// through the database with Feedlab's own statements, with no HTTP, validation, group commit,
// subscription or projector loop in between: the cheapest way to store these events durably here.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { INSERT_RECORDS, type LogRecord, recordsJson, rowsOf } from "@feedlab/ingest";
import { applyRecords, DEFAULT_CONSUMER, PROJECTIONS, writeCheckpoints } from "@feedlab/projector";
import { encodeLoggedEvent, type LoggedEvent } from "@feedlab/schemas";
import { type Db, migrate, openDb } from "../../api/src/db/db.ts";
import { batch } from "./intake.bench.ts";

/** Rows per transaction: the projector's largest batch. */
const CHUNK = 2000;

/** An event of a generated batch as the API logs it, stamped for `who`. */
export function loggedEventOf(
  w: ReturnType<typeof batch>[number],
  who: { session: string; user: string; login: string; experiment: string; group: string },
): LoggedEvent {
  return {
    watch_ratio: null,
    watch_duration: null,
    position_in_feed: null,
    video_id: null,
    ...w,
    session_id: who.session,
    user_id: who.user,
    login_id: who.login,
    experiment_id: who.experiment,
    group_id: who.group,
    event_type: w.event_type,
    received_at: new Date().toISOString(),
    algorithm_feed: "popularity",
    algorithm_watch: "similarity",
    payload: w.payload as Record<string, unknown>,
    ui_feed: "grid-desktop",
    ui_watch: "grid-desktop",
  };
}

/** `count` events as the load generator sends them (4 normal batches to 1 high-frequency), stamped. */
export function loggedEvents(count: number, participants = 32): LoggedEvent[] {
  const people = Array.from({ length: participants }, () => ({
    session: randomUUID(),
    user: randomUUID(),
    seq: 0,
  }));
  const experiment = randomUUID();
  const groups = [randomUUID(), randomUUID()];
  const videos = Array.from({ length: 50 }, (_, i) => `video-${i}`);
  const out: LoggedEvent[] = [];
  for (let n = 0; out.length < count; n++) {
    const p = people[n % people.length] as (typeof people)[number];
    for (const w of batch(p, videos, n % 5 === 4)) {
      out.push(
        loggedEventOf(w, {
          session: p.session,
          user: p.user,
          login: `floor-${n % people.length}`,
          experiment,
          group: groups[n % 2] as string,
        }),
      );
    }
  }
  return out.slice(0, count);
}

/**
 * Writes `events` (encoded beforehand) CHUNK at a time, one transaction each: the log records (the
 * embedded log's table; not with Kafka, where the broker holds them), then every projection and the
 * checkpoint, as the append path and the projector write them. Answers events per second.
 */
export async function writeFloor(db: Db, events: readonly LoggedEvent[], logRows: boolean): Promise<number> {
  const rows = events.map((e) => ({
    event_id: e.event_id,
    session_id: e.session_id,
    user_id: e.user_id,
    record: encodeLoggedEvent(e),
  }));
  // The first transaction warms the engine up (plans, caches) and is not counted.
  let start = performance.now();
  for (let i = 0; i < rows.length; i += CHUNK) {
    if (i === CHUNK) start = performance.now();
    const chunk = rows.slice(i, i + CHUNK);
    await db.transaction(async (trx) => {
      const offsets = new Map(chunk.map((r, k) => [r.event_id, i + k]));
      if (logRows) {
        const placed = rowsOf<{ position: string | number; event_id: string }>(
          await trx.raw(INSERT_RECORDS, [recordsJson(chunk)]),
        );
        for (const r of placed) offsets.set(r.event_id, Number(r.position));
      }
      const records: LogRecord[] = chunk.map((r) => ({
        partition: 0,
        offset: offsets.get(r.event_id) ?? -1,
        value: r.record,
      }));
      await applyRecords(trx, records, PROJECTIONS, DEFAULT_CONSUMER);
      await writeCheckpoints(trx, DEFAULT_CONSUMER, new Map([[0, Math.max(...offsets.values())]]));
    });
  }
  return (events.length - CHUNK) / ((performance.now() - start) / 1000);
}

/** The floor on a fresh embedded database (PGlite in a worker thread, as `feedlab start` runs it). */
export async function embeddedFloor(count: number): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), "feedlab-intake-floor-"));
  const { db, close } = openDb({ databaseUrl: null, dataDir: dir });
  try {
    await migrate(db);
    return await writeFloor(db, loggedEvents(count + CHUNK), true);
  } finally {
    await close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The floor on a PostgreSQL database (a fresh one of the server at `url`), the log being Kafka. */
export async function postgresFloor(url: string, count: number): Promise<number> {
  const { default: pg } = await import("pg");
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const name = `feedlab_floor_${randomUUID().slice(0, 8)}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const { db, close } = openDb({ databaseUrl: target.href, dataDir: "" });
  try {
    await migrate(db);
    return await writeFloor(db, loggedEvents(count + CHUNK), false);
  } finally {
    await close();
    await admin.query(`DROP DATABASE ${name}`);
    await admin.end();
  }
}
