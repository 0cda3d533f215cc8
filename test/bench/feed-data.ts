// Seeding and load helpers of the feed benchmarks (feed.bench.ts, external.bench.ts). The data goes in
// with SQL (generate_series) before the server starts, so the benchmark measures serving, not seeding.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Db, openDb } from "@feedlab/sql";
import pg from "pg";
import { migrate } from "../../api/src/db/db.ts";
import { startPostgres } from "../harness/postgres.ts";

export const BUILTIN_KEYS = ["recency", "random", "popularity", "similarity", "learned_model"] as const;

export interface SeedOptions {
  readonly videos: number;
  readonly events: number;
  /** Participants who have events (and so watched history, plays, co-views). */
  readonly users: number;
  /** Group keys: one group per key. Participants are spread over them round robin. */
  readonly groups: readonly string[];
  /** Participants given a session and a cookie token, per group (they make the requests). */
  readonly clientsPerGroup: number;
  /** Extra participants (cookie, session, no history) in the group of this key, for external calls. */
  readonly fresh?: { readonly group: string; readonly count: number };
}

export interface BenchUser {
  readonly userId: string;
  readonly sessionId: string;
  /** The participant cookie header. */
  readonly cookie: string;
}

export interface Seeded {
  readonly experimentId: string;
  readonly groupIds: Record<string, string>;
  /** Pool video UUIDs. */
  readonly videoIds: string[];
  /** Participants with cookies, by group key. */
  readonly clients: Record<string, BenchUser[]>;
  readonly fresh: BenchUser[];
  readonly counts: Record<string, number>;
}

/**
 * A running experiment with `videos` videos in its pool (metadata drawn from small vocabularies so
 * similarity has structure), `users` participants with `events` stored events between them
 * (a skewed choice of videos: a few are very popular), and the read models those events give:
 * play counts, watched history, co-views; plus a trained model's output (recommendation_cache for
 * the clients, 20 learned neighbours per video). Everything in SQL, in chunks.
 */
export async function seed(db: Db, o: SeedOptions, log: (line: string) => void = () => {}): Promise<Seeded> {
  await migrate(db);
  const experimentId = randomUUID();
  await db("experiments").insert({ id: experimentId, name: "Feed benchmark", status: "running" });
  const groupIds: Record<string, string> = {};
  for (const key of o.groups) {
    groupIds[key] = randomUUID();
    await db("groups").insert({
      id: groupIds[key],
      experiment_id: experimentId,
      name: `Arm ${key}`,
      algorithm_feed: key,
      algorithm_watch: key,
      ui_feed: "grid-desktop",
      ui_watch: "grid-desktop",
    });
  }
  const groupArray = `array[${o.groups.map((k) => `'${groupIds[k]}'::uuid`).join(",")}]`;
  const t = performance.now();

  // 1. Videos and the pool.
  await db.raw(
    `insert into videos (id, external_id, url, resolved_url, type, title, channel_name, category, description,
                         tags, duration_seconds, view_count, published_at, created_at, updated_at)
     select gen_random_uuid(), 'bv-' || g, 'https://cdn.example.org/v/' || g || '.mp4',
            'https://cdn.example.org/v/' || g || '.mp4', 'native',
            'Video ' || g || ' on word' || ((g * 17) % 1000) || ' and word' || ((g * 31) % 1000),
            'Channel ' || (g % 500), 'Category ' || (g % 20), 'About word' || ((g * 7) % 1000) || '.',
            jsonb_build_array('tag' || ((g * 7) % 200), 'tag' || ((g * 13) % 200), 'tag' || ((g * 29) % 200)),
            30 + g % 600, g * 3, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 hour', now(), now()
     from generate_series(1, ?::int) g`,
    [o.videos],
  );
  await db.raw(
    `insert into experiment_videos (experiment_id, video_id, position)
     select ?, id, row_number() over (order by external_id) - 1 from videos where external_id like 'bv-%'`,
    [experimentId],
  );
  const videoIds = (
    (await db("experiment_videos").where({ experiment_id: experimentId }).select("video_id")) as {
      video_id: string;
    }[]
  ).map((r) => r.video_id);
  log(`videos: ${videoIds.length} (${((performance.now() - t) / 1000).toFixed(1)} s)`);

  // 2. Participants, round robin over the groups.
  await db.raw(
    `insert into users (id, experiment_id, login_id, group_id)
     select gen_random_uuid(), ?, 'u' || g, (${groupArray})[1 + (g % ?)] from generate_series(1, ?::int) g`,
    [experimentId, o.groups.length, o.users],
  );

  // 3. Events: each participant's events come in blocks of one of each type of the mix; videos are
  //    chosen with a skew (the cube of a uniform number: a few videos get most of the events).
  const types = [
    "PAGE_LOAD",
    "IMPRESSION",
    "IMPRESSION",
    "IMPRESSION",
    "VIDEO_PLAY",
    "VIDEO_PROGRESS",
    "VIDEO_PROGRESS",
    "VIDEO_WATCHED_1S",
    "SCROLL",
    "FEED_CLICK",
  ];
  const typeArray = `array[${types.map((x) => `'${x}'`).join(",")}]`;
  const chunk = 100_000;
  for (let from = 1; from <= o.events; from += chunk) {
    const to = Math.min(o.events, from + chunk - 1);
    await db.raw(
      `insert into events (event_id, session_id, user_id, login_id, experiment_id, group_id, event_type, video_id,
                           timestamp, received_at, algorithm_feed, algorithm_watch, payload, seq, log_partition, log_offset)
       select gen_random_uuid(), u.id, u.id, u.login_id, u.experiment_id, u.group_id,
              (${typeArray})[1 + (g % ${types.length})],
              'bv-' || (1 + floor(? * power(random(), 3)))::int,
              ts, ts, 'seed', 'seed', '{}'::jsonb, g, 0, g
       from (select g, 1 + ((g / ${types.length}) % ?) as n,
                    timestamptz '2026-01-01 00:00:00+00' + g * interval '100 milliseconds' as ts
             from generate_series(?::int, ?::int) g) x
       join users u on u.experiment_id = ? and u.login_id = 'u' || x.n`,
      [o.videos, o.users, from, to, experimentId],
    );
  }
  log(`events: ${o.events} (${((performance.now() - t) / 1000).toFixed(1)} s)`);

  // 4. The read models those events give (what the projector would have written).
  await db.raw(
    `insert into video_view_counts (experiment_id, video_id, plays, last_played_at)
     select experiment_id, video_id, count(*), max(received_at) from events
     where experiment_id = ? and event_type = 'VIDEO_PLAY' group by experiment_id, video_id`,
    [experimentId],
  );
  await db.raw(
    `insert into watched_videos (user_id, video_id, experiment_id, first_watched_at, log_partition, log_offset)
     select user_id, video_id, experiment_id, min(received_at), 0, min(log_offset) from events
     where experiment_id = ? and event_type = 'VIDEO_WATCHED_1S' group by user_id, video_id, experiment_id`,
    [experimentId],
  );
  await db.raw(
    `insert into co_views (experiment_id, video_a, video_b, count)
     select a.experiment_id, a.video_id, b.video_id, count(*) from watched_videos a
     join watched_videos b on b.user_id = a.user_id and a.video_id < b.video_id
     where a.experiment_id = ? group by a.experiment_id, a.video_id, b.video_id`,
    [experimentId],
  );
  log(`read models (${((performance.now() - t) / 1000).toFixed(1)} s)`);

  // 5. Clients: a session and a cookie for the first participants of each group.
  const clients: Record<string, BenchUser[]> = {};
  for (const [k, key] of o.groups.entries()) {
    const rows = (await db("users")
      .where({ experiment_id: experimentId, group_id: groupIds[key] })
      .orderBy("login_id")
      .limit(o.clientsPerGroup)
      .select("id")) as { id: string }[];
    clients[key] = await withCookies(
      db,
      rows.map((r) => r.id),
      `g${k}`,
    );
  }
  let fresh: BenchUser[] = [];
  if (o.fresh) {
    const ids = Array.from({ length: o.fresh.count }, () => randomUUID());
    for (let i = 0; i < ids.length; i += 1000) {
      await db("users").insert(
        ids.slice(i, i + 1000).map((id, j) => ({
          id,
          experiment_id: experimentId,
          login_id: `fresh-${i + j}`,
          group_id: groupIds[o.fresh?.group ?? ""],
        })),
      );
    }
    fresh = await withCookies(db, ids, "fresh");
  }

  // 6. A trained model's output: a ranking of 100 videos per client, 20 neighbours per video.
  const learners = clients.learned_model ?? [];
  for (const u of learners) {
    await db.raw(
      `insert into recommendation_cache (experiment_id, user_id, video_id, rank, score)
       select ?, ?, 'bv-' || (1 + ((r * 7919 + ?) % ?)), r, 1.0 / r from generate_series(1, 100) r
       on conflict do nothing`,
      [experimentId, u.userId, hashOf(u.userId), o.videos],
    );
  }
  await db.raw(
    `insert into item_similarity (experiment_id, video_id, other_video_id, score)
     select ?, 'bv-' || g, 'bv-' || (1 + ((g + k * 37) % ?)), 1.0 / k
     from generate_series(1, ?::int) g, generate_series(1, 20) k`,
    [experimentId, o.videos, o.videos],
  );
  log(`model output (${((performance.now() - t) / 1000).toFixed(1)} s)`);

  const count = async (table: string) =>
    Number(((await db(table).count({ n: "*" }).first()) as { n: string | number }).n);
  const counts: Record<string, number> = {};
  for (const table of [
    "videos",
    "events",
    "video_view_counts",
    "watched_videos",
    "co_views",
    "recommendation_cache",
    "item_similarity",
  ]) {
    counts[table] = await count(table);
  }
  return { experimentId, groupIds, videoIds, clients, fresh, counts };
}

function hashOf(s: string): number {
  let h = 0;
  for (const c of s) h = (h * 31 + (c.codePointAt(0) ?? 0)) % 1_000_003;
  return h;
}

/** Sessions and participant cookies (auth_sessions rows hold a SHA-256 of the token) for users. */
async function withCookies(db: Db, userIds: readonly string[], tag: string): Promise<BenchUser[]> {
  const users = userIds.map((userId, i) => ({
    userId,
    sessionId: randomUUID(),
    token: `bench-${tag}-${i}-${randomUUID()}`,
  }));
  for (let i = 0; i < users.length; i += 500) {
    const part = users.slice(i, i + 500);
    await db("sessions").insert(part.map((u) => ({ id: u.sessionId, user_id: u.userId })));
    await db("auth_sessions").insert(
      part.map((u) => ({
        token_hash: db.raw("encode(sha256(convert_to(?, 'UTF8')), 'hex')", [u.token]),
        role: "participant",
        user_id: u.userId,
        expires_at: new Date(Date.now() + 7 * 86400_000),
      })),
    );
  }
  return users.map((u) => ({
    userId: u.userId,
    sessionId: u.sessionId,
    cookie: `feedlab_participant=${u.token}`,
  }));
}

/** Where a benchmark's database lives: a throwaway PostgreSQL cluster or a PGlite folder. */
export interface BenchDatabase {
  readonly label: string;
  /** Environment of the server process. */
  readonly env: Record<string, string>;
  readonly db: Db;
  /** Closes the seeding connection (before the server starts: PGlite is single-process). */
  closeSeeder(): Promise<void>;
  cleanup(): Promise<void>;
}

export async function benchDatabase(backend: "pglite" | "postgres"): Promise<BenchDatabase> {
  if (backend === "postgres") {
    const server = await startPostgres();
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query("CREATE DATABASE feedlab_bench");
    await admin.end();
    const url = new URL(server.url);
    url.pathname = "/feedlab_bench";
    const { db, close } = openDb({ databaseUrl: url.href, dataDir: "" });
    return {
      label: "PostgreSQL",
      env: { DATABASE_URL: url.href },
      db,
      closeSeeder: async () => {
        await db.raw("analyze");
        await close();
      },
      cleanup: () => server.stop(),
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), "feedlab-bench-feed-"));
  const { db, close } = openDb({ databaseUrl: null, dataDir: dir });
  return {
    label: "PGlite",
    env: { FEEDLAB_DATA_DIR: dir },
    db,
    closeSeeder: async () => {
      await db.raw("analyze");
      await close();
    },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}
