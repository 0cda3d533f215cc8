import type { LogRecord } from "@feedlab/ingest";
import { eventLogMigrations } from "@feedlab/ingest";
import {
  applyRecords,
  eventsProjection,
  PROJECTIONS,
  PROJECTOR_MIGRATIONS,
  type Projection,
} from "@feedlab/projector";
import { type EventType, encodeLoggedEvent, type LoggedEvent } from "@feedlab/schemas";
import { createPgliteProxy, pgliteConfig } from "@feedlab/sql";
import knexPkg, { type Knex } from "knex";
import { afterAll, beforeAll } from "vitest";
import { createTestDatabase } from "../../../test/harness/database.ts";
import { ALICE, BOB, logged } from "../logged-event.fixture.ts";

// A read model's tests on a real database (STYLE.md, Tests): given the events of two participants,
// when they are projected and one participant is erased, then the read model's rows are those that
// projecting only the other participant's events builds.

/** The two databases every read model runs on. */
export const BACKENDS = ["pglite", "postgres"] as const;
type Backend = (typeof BACKENDS)[number];

/** How long a test file may take to open its database: a busy machine starts PGlite slowly. */
const OPEN_TIMEOUT_MS = 180_000;

/** A database of one test file with the event log's and the projector's tables. */
interface ReadModelDb {
  readonly db: Knex;
  close(): Promise<void>;
}

/**
 * Opens an empty database of `backend` (PGlite in memory, or a PostgreSQL database of its own from
 * the harness) and makes the event log's and the projector's tables. Once per test file.
 */
async function openReadModelDb(backend: Backend): Promise<ReadModelDb> {
  let db: Knex;
  let release = async () => {};
  if (backend === "postgres") {
    const database = await createTestDatabase();
    db = knexPkg.knex({ client: "pg", connection: database.url, pool: { min: 0, max: 2 } });
    release = () => database.drop();
  } else {
    const pglite = createPgliteProxy(null);
    // The engine starts before the pool asks it for a session: on a busy machine its start takes
    // longer than the pool waits to create a connection (30 s).
    await pglite.waitReady;
    db = knexPkg.knex(pgliteConfig(pglite));
    release = () => pglite.close();
  }
  for (const m of [...eventLogMigrations, ...PROJECTOR_MIGRATIONS]) await m.up(db);
  return {
    db,
    close: async () => {
      await db.destroy();
      await release();
    },
  };
}

/**
 * The database of a test file's `describe`: opened before its tests, closed after them. Answers
 * how the tests reach it.
 */
export function useReadModelDb(backend: Backend): () => Knex {
  let store: ReadModelDb | undefined;
  beforeAll(async () => {
    store = await openReadModelDb(backend);
  }, OPEN_TIMEOUT_MS);
  afterAll(async () => {
    await store?.close();
  });
  return () => {
    if (!store) throw new Error("the test database did not open");
    return store.db;
  };
}

/** A simulated participant (a dry run, issue 36) of the same experiment and group as Alice and Bob. */
export const SIM = "00000000-0000-4000-8000-0000000005a1";

/** Each participant's login and session. */
const PEOPLE = {
  [ALICE]: { login_id: "alice", session_id: "00000000-0000-4000-8000-00000005e551" },
  [BOB]: { login_id: "bob", session_id: "00000000-0000-4000-8000-00000005e552" },
  [SIM]: { login_id: "sim", session_id: "00000000-0000-4000-8000-00000005e553" },
} as const;

/**
 * An event of Alice, Bob or the simulated participant (each in a session of their own) arriving at
 * 12:`mm:ss`, sent 100 ms earlier; the simulated participant's carry `simulated: true`, as intake
 * stamps them.
 */
function at(
  user: keyof typeof PEOPLE,
  mmss: string,
  type: EventType,
  fields: Partial<LoggedEvent> = {},
): LoggedEvent {
  const arrival = Date.parse(`2026-11-24T12:${mmss}.000Z`);
  return logged(type, {
    user_id: user,
    ...PEOPLE[user],
    timestamp: new Date(arrival - 100).toISOString(),
    received_at: new Date(arrival).toISOString(),
    ...(user === SIM ? { simulated: true } : {}),
    ...fields,
  });
}

/**
 * Alice and Bob in one experiment and group, in the log in this order. They share videos `v-a` and
 * `v-B` (plays, watches, likes, the co-viewed pair v-B+v-a, the minute 12:00); `v-c` and the minute
 * 12:03 are Alice's alone, `v-d` Bob's alone. Alice's play of `v-B` is its latest. (`v-B` before
 * `v-a` in code-unit order, after it in most collations.)
 */
export const STORY: readonly LoggedEvent[] = [
  at(ALICE, "00:01", "SESSION_START", { seq: 1 }),
  at(BOB, "00:02", "SESSION_START", { seq: 1 }),
  at(ALICE, "00:03", "IMPRESSION", { video_id: "v-a", position_in_feed: 0, payload: { context: "feed" } }),
  at(BOB, "00:04", "IMPRESSION", { video_id: "v-a", position_in_feed: 1, payload: { context: "feed" } }),
  at(ALICE, "00:05", "IMPRESSION", { video_id: "v-B", position_in_feed: 0, payload: { context: "related" } }),
  at(ALICE, "00:06", "FEED_CLICK", { video_id: "v-a", position_in_feed: 0, seq: 2 }),
  at(ALICE, "00:07", "VIDEO_PLAY", { video_id: "v-a", seq: 3 }),
  at(BOB, "00:08", "VIDEO_PLAY", { video_id: "v-a", seq: 2 }),
  at(ALICE, "00:09", "VIDEO_WATCHED_1S", { video_id: "v-a", watch_ratio: 0.1, seq: 4 }),
  at(BOB, "00:10", "VIDEO_WATCHED_1S", { video_id: "v-a", watch_ratio: 0.1, seq: 3 }),
  at(ALICE, "00:40", "VIDEO_ENDED", { video_id: "v-a", watch_ratio: 0.9, seq: 5 }),
  at(ALICE, "00:41", "LIKE", { video_id: "v-a", seq: 6 }),
  at(BOB, "00:42", "VIDEO_PLAY", { video_id: "v-B", seq: 4 }),
  at(BOB, "00:50", "VIDEO_ENDED", { video_id: "v-B", watch_ratio: 0.3, seq: 5 }),
  at(BOB, "00:51", "LIKE", { video_id: "v-B", seq: 6 }),
  at(BOB, "00:52", "VIDEO_PLAY", { video_id: "v-d", seq: 7 }),
  at(BOB, "00:53", "VIDEO_WATCHED_1S", { video_id: "v-d", watch_ratio: 0.2, seq: 8 }),
  at(BOB, "00:59", "SESSION_END", { seq: 9 }),
  at(ALICE, "03:00", "VIDEO_PLAY", { video_id: "v-B", seq: 7 }),
  at(ALICE, "03:02", "VIDEO_WATCHED_1S", { video_id: "v-B", watch_ratio: 0.2, seq: 8 }),
  at(ALICE, "03:10", "VIDEO_PLAY", { video_id: "v-c", seq: 9 }),
  at(ALICE, "03:12", "VIDEO_WATCHED_1S", { video_id: "v-c", watch_ratio: 0.2, seq: 10 }),
  at(ALICE, "03:20", "LIKE", { video_id: "v-c", seq: 11 }),
  at(ALICE, "03:30", "SESSION_END", { seq: 12 }),
];

/**
 * The story with a simulated participant's events among Alice's and Bob's, in arrival order. They
 * do what counts everywhere: play, watch, finish and like `v-a` (after Bob's play of it) and `v-B`
 * (after Alice's, the latest), pair them with each other and with `v-e`, theirs alone, and make the
 * minute 12:05 alone. What real participants are shown, and training, must be as the story alone
 * builds them (api.md, "Simulated participants").
 */
export const STORY_WITH_SIMULATED: readonly LoggedEvent[] = [
  ...STORY,
  at(SIM, "00:20", "SESSION_START", { seq: 1 }),
  at(SIM, "00:21", "IMPRESSION", { video_id: "v-a", position_in_feed: 0, payload: { context: "feed" } }),
  at(SIM, "00:22", "FEED_CLICK", { video_id: "v-a", position_in_feed: 0, seq: 2 }),
  at(SIM, "00:23", "VIDEO_PLAY", { video_id: "v-a", seq: 3 }),
  at(SIM, "00:24", "VIDEO_WATCHED_1S", { video_id: "v-a", watch_ratio: 0.1, seq: 4 }),
  at(SIM, "00:30", "VIDEO_ENDED", { video_id: "v-a", watch_ratio: 0.9, seq: 5 }),
  at(SIM, "00:31", "LIKE", { video_id: "v-a", seq: 6 }),
  at(SIM, "03:40", "VIDEO_PLAY", { video_id: "v-B", seq: 7 }),
  at(SIM, "03:41", "VIDEO_WATCHED_1S", { video_id: "v-B", watch_ratio: 0.2, seq: 8 }),
  at(SIM, "05:00", "VIDEO_PLAY", { video_id: "v-e", seq: 9 }),
  at(SIM, "05:01", "VIDEO_WATCHED_1S", { video_id: "v-e", watch_ratio: 0.2, seq: 10 }),
  at(SIM, "05:30", "LIKE", { video_id: "v-e", seq: 11 }),
  at(SIM, "05:40", "SESSION_END", { seq: 12 }),
].sort((a, b) => Date.parse(a.received_at) - Date.parse(b.received_at));

/** A table's rows, each as JSON-ready values (times as ISO text, big integers as text), in a fixed order. */
type TableRows = Record<string, unknown>[];

const plain = (v: unknown): unknown =>
  v instanceof Date ? v.toISOString() : typeof v === "bigint" ? String(v) : v;

async function rowsOfTables(db: Knex, tables: readonly string[]): Promise<Record<string, TableRows>> {
  const out: Record<string, TableRows> = {};
  for (const table of tables) {
    const rows = (await db(table).select("*")) as Record<string, unknown>[];
    const plainRows = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)])));
    out[table] = plainRows
      .map((r) => [JSON.stringify(r), r] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, r]) => r);
  }
  return out;
}

/** Rows as "value value ..." lines of `columns`, sorted: what a test states of them in a glance. */
export const summary = (rows: TableRows | undefined, columns: readonly string[]): string[] =>
  (rows ?? []).map((r) => columns.map((c) => String(r[c])).join(" ")).sort();

/** The projection, the events store before it (it gates the others) and what it requires. */
function projectionsFor(projection: Projection): Projection[] {
  return PROJECTIONS.filter(
    (p) => p === eventsProjection || p === projection || projection.requires?.includes(p.name),
  );
}

/** Empties the tables of `projections`, then projects `records` through the applier in two batches. */
async function projectAfresh(
  db: Knex,
  projections: readonly Projection[],
  records: readonly LogRecord[],
): Promise<void> {
  for (const table of projections.flatMap((p) => p.tables)) await db(table).delete();
  const half = Math.ceil(records.length / 2);
  for (const batch of [records.slice(0, half), records.slice(half)])
    await db.transaction((trx) => applyRecords(trx, batch, projections, "read-model-test"));
}

/** A read model's tables at the three moments of an erasure test. */
interface ErasureOutcome {
  /** All the story projected. */
  readonly before: Record<string, TableRows>;
  /** Then `erased` taken out through the projection's `erase`. */
  readonly erased: Record<string, TableRows>;
  /** The story without `erased`'s events projected into empty tables (their places in the log kept). */
  readonly replayed: Record<string, TableRows>;
}

/**
 * Given `events` (the story by default) in the log, when they are projected and `userId` is erased
 * through `projection.erase`, answers the projection's tables then, and as a replay of the others'
 * events alone builds them, so a test can assert they are equal.
 */
export async function eraseAndReplay(
  db: Knex,
  projection: Projection,
  userId: string,
  events: readonly LoggedEvent[] = STORY,
): Promise<ErasureOutcome> {
  const { erase } = projection;
  if (!erase) throw new Error(`${projection.name} has no erase`);
  const projections = projectionsFor(projection);
  const records = events.map((e, offset) => ({
    event: e,
    record: { partition: 0, offset, value: encodeLoggedEvent(e) },
  }));
  await projectAfresh(
    db,
    projections,
    records.map((r) => r.record),
  );
  const before = await rowsOfTables(db, projection.tables);
  await db.transaction((trx) => erase(trx, [userId]));
  const erased = await rowsOfTables(db, projection.tables);
  await projectAfresh(
    db,
    projections,
    records.filter((r) => r.event.user_id !== userId).map((r) => r.record),
  );
  const replayed = await rowsOfTables(db, projection.tables);
  return { before, erased, replayed };
}
