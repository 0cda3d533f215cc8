// The engine floors of the intake benchmarks: the same rows Feedlab writes for the same events (the
// log's records, the events store, every read model and the consumer's checkpoint), written straight
// through the database with Feedlab's own statements, with no HTTP, validation, group commit,
// subscription or projector loop in between: the cheapest way to store these events durably here;
// and the latency of one batch written that way alone, the floor of the projection lag.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { INSERT_RECORDS, type LogRecord, recordsJson } from "@feedlab/ingest";
import { applyRecords, DEFAULT_CONSUMER, PROJECTIONS, writeCheckpoints } from "@feedlab/projector";
import { encodeLoggedEvent, type LoggedEvent } from "@feedlab/schemas";
import { type Db, openDb, rowsOf } from "@feedlab/sql";
import { migrate } from "../../api/src/db/db.ts";
import { batch } from "./intake.bench.ts";
import { percentile } from "./support.ts";

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
function loggedEvents(count: number, participants = 32): LoggedEvent[] {
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

interface EncodedRow {
  readonly event_id: string;
  readonly session_id: string;
  readonly user_id: string;
  readonly record: Buffer;
}

const encoded = (events: readonly LoggedEvent[]): EncodedRow[] =>
  events.map((e) => ({
    event_id: e.event_id,
    session_id: e.session_id,
    user_id: e.user_id,
    record: encodeLoggedEvent(e),
  }));

/**
 * Writes rows in one transaction: the log records (the embedded log's table; not with Kafka, where
 * the broker holds them), then every projection and the checkpoint, as the append path and the
 * projector write them. `offset` places the rows when the log is not a table here.
 */
async function writeTransaction(db: Db, rows: readonly EncodedRow[], offset: number, logRows: boolean) {
  await db.transaction(async (trx) => {
    const offsets = new Map(rows.map((r, k) => [r.event_id, offset + k]));
    if (logRows) {
      const placed = rowsOf<{ position: string | number; event_id: string }>(
        await trx.raw(INSERT_RECORDS, [recordsJson(rows)]),
      );
      for (const r of placed) offsets.set(r.event_id, Number(r.position));
    }
    const records: LogRecord[] = rows.map((r) => ({
      partition: 0,
      offset: offsets.get(r.event_id) ?? -1,
      value: r.record,
    }));
    await applyRecords(trx, records, PROJECTIONS, DEFAULT_CONSUMER);
    await writeCheckpoints(trx, DEFAULT_CONSUMER, new Map([[0, Math.max(...offsets.values())]]));
  });
}

/** What a floor measured: events per second, and the latency of one batch written alone. */
export interface Floor {
  readonly rate: number;
  /** This process's CPU time (user and system) per 1,000 events written, in ms. */
  readonly cpuMsPer1000: number;
  /** A batch of BATCH events written alone, BATCHES times: p50 and p99 in ms (the lag's floor). */
  readonly batchP50: number;
  readonly batchP99: number;
}

/** The mean batch of the load generator's 4:1 mix, and how many are written alone for the latency. */
const BATCH = 26;
const BATCHES = 200;

/**
 * Writes `events` (encoded beforehand) `chunk` at a time, one transaction each, for the rate (the first
 * transaction warms the engine up and is not counted); then BATCHES batches of BATCH events one after
 * the other, each alone, for the latency.
 */
async function writeFloor(
  db: Db,
  events: readonly LoggedEvent[],
  logRows: boolean,
  chunk = CHUNK,
): Promise<Floor> {
  const rows = encoded(events);
  let start = performance.now();
  let cpu = process.cpuUsage();
  for (let i = 0; i < rows.length; i += chunk) {
    if (i === chunk) {
      start = performance.now();
      cpu = process.cpuUsage();
    }
    await writeTransaction(db, rows.slice(i, i + chunk), i, logRows);
  }
  const rate = (events.length - chunk) / ((performance.now() - start) / 1000);
  const used = process.cpuUsage(cpu);
  const cpuMsPer1000 = ((used.user + used.system) / 1000) * (1000 / (events.length - chunk));
  const batches = encoded(loggedEvents(BATCH * BATCHES));
  const latencies: number[] = [];
  for (let i = 0; i < batches.length; i += BATCH) {
    const t = performance.now();
    await writeTransaction(db, batches.slice(i, i + BATCH), rows.length + i, logRows);
    latencies.push(performance.now() - t);
  }
  latencies.sort((a, b) => a - b);
  return { rate, cpuMsPer1000, batchP50: percentile(latencies, 50), batchP99: percentile(latencies, 99) };
}

/** The floor on a fresh embedded database (PGlite in a worker thread, as `feedlab start` runs it). */
export async function embeddedFloor(count: number): Promise<Floor> {
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

/**
 * The catch-up floor: `batches`, each written alone in its own transaction as the append path and the
 * projector write it, one after the other, on a fresh embedded database. Answers events per second.
 */
export async function embeddedBatchesFloor(batches: readonly (readonly LoggedEvent[])[]): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), "feedlab-catch-up-floor-"));
  const { db, close } = openDb({ databaseUrl: null, dataDir: dir });
  try {
    await migrate(db);
    let offset = 0;
    const start = performance.now();
    for (const b of batches) {
      await writeTransaction(db, encoded(b), offset, true);
      offset += b.length;
    }
    return offset / ((performance.now() - start) / 1000);
  } finally {
    await close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The floor on a PostgreSQL database (a fresh one of the server at `url`), the log being Kafka:
 * `count` events written `chunk` a transaction (2,000 by default).
 */
export async function postgresFloor(url: string, count: number, chunk = CHUNK): Promise<Floor> {
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
    return await writeFloor(db, loggedEvents(count + chunk), false, chunk);
  } finally {
    await close();
    await admin.query(`DROP DATABASE ${name}`);
    await admin.end();
  }
}
